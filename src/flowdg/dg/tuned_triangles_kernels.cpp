// The tuned 2D Euler kernels on one affine-triangle group of the core (tuned_triangles.hpp): set-up
// of what they read beyond the core's data, and their launches. Compiled by nvcc when CUDA is on.
#include <algorithm>
#include <cmath>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d/common.hpp"
#include "flowdg/dg/euler2d/limiter_kernels.hpp"
#include "flowdg/dg/euler2d/stage_launch.hpp"
#include "flowdg/dg/tuned_triangle_operator.hpp"
#include "flowdg/dg/tuned_triangles.hpp"

namespace flowdg::dg {

using namespace euler2d::impl;

struct TunedTriangles::Data {
  Backend backend{};
  euler2d::SolverOptions options;
  KernelChoice choice;
  int group = 0, order = 0, Nq = 0;
  index_t K = 0, Ks = 0, Fs = 0, B = 0;
  Array<double> geometry;          ///< [c * Ks + e], c: GeometryComponent
  Array<index_t> codes;            ///< [l * Ks + e] = 2 face + plus side
  Array<double> face_geometry;     ///< [c * Fs + f], c: nx, ny, half length (this group's faces)
  Array<double> boundary_points;   ///< [(c * Nfq + q) * B + f] (this group's boundary faces)
  DeviceTables basis;
  Array<double> tensor_tables;
  Array<index_t> element_neighbours, vertex_neighbour_offsets, vertex_neighbours;
  std::vector<BoundaryRange> ranges;  ///< this group's boundary faces, by condition, in face order
  std::vector<bool> tag_supported;    ///< per boundary tag: a condition the tuned face kernels have

  Tables tables() const { return basis.view(); }
};

bool TunedTriangles::applies(const Groups& groups, int g, int order, int face_points) {
  const ElementGroup& group = groups.element_groups[g];
  return group.shape == Shape::triangle && group.geometry == GeometryKind::affine && face_points == order + 1 &&
         order <= FLOWDG_MAX_ORDER;
}

TunedTriangles::TunedTriangles(const Mesh& mesh, const Groups& groups, int group, const OperatorOptions& options,
                               index_t face_stride)
    : data_(std::make_unique<Data>()) {
  Data& d = *data_;
  d.options = tuned_solver_options(options);
  d.backend = options.backend;
  d.group = group;
  d.order = options.order;
  for (const BoundarySpec& spec : options.boundary) d.tag_supported.push_back(tuned_boundary_supported(spec.kind));
  const int p = d.order, Nfq = p + 1;
  const ElementGroup& elements = groups.element_groups[group];
  d.K = elements.size();
  d.Ks = euler2d::Solver::Data::padded(d.K);
  d.Fs = face_stride;
  const index_t K = d.K, F = static_cast<index_t>(groups.faces.size());
  for (const FaceGroup& face_group : groups.face_groups)
    if (face_group.boundary()) d.B = std::max(d.B, face_group.end);
  const Space space = space_of(d.backend);

  const HostTables tables = triangle_tables(p);
  d.Nq = tables.Nq;
  d.basis = DeviceTables(space, tables);
  d.choice = resolve_kernels(d.backend, p, F, d.options);
  if (d.choice.element == euler2d::GpuElementKernel::tensor)
    d.tensor_tables = Array<double>(space, tensor_tables(p, tables.phi, tables.dphi_dr, tables.dphi_ds, tables.edge_phi));

  const HostGeometry host = triangle_geometry(mesh, elements.elements);
  d.geometry = Array<double>(space, pad_rows(host.geometry, n_geometry, K, d.Ks));

  // Face codes of every face of the group's elements (faces computed by other kernels too: the
  // fluxes are in one array, in the minus side's point order, whichever kernel wrote them).
  std::vector<index_t> codes(3 * K);
  const std::vector<index_t>& element_faces = groups.element_faces[group];
  const std::vector<unsigned char>& plus_side = groups.element_plus_side[group];
  for (index_t i = 0; i < 3 * K; ++i) codes[i] = 2 * element_faces[i] + (plus_side[i] != 0 ? 1 : 0);
  d.codes = Array<index_t>(space, pad_rows(codes, 3, K, d.Ks));

  // Normals, half lengths and boundary points of the faces computed here (Solver's formulas).
  std::vector<double> face_geometry(static_cast<std::size_t>(3 * d.Fs), 0.0), boundary_points(2 * Nfq * d.B, 0.0);
  for (const FaceGroup& face_group : groups.face_groups) {
    if (!runs(face_group)) continue;
    if (face_group.boundary()) {
      if (face_group.tag >= static_cast<int>(d.options.boundary.size()))
        throw InputError(cat("boundary '", mesh.boundary_names[face_group.tag], "' of ", mesh.source, " has no boundary condition"));
      d.ranges.push_back({face_group.begin, face_group.end, d.options.boundary[face_group.tag]});
    }
    for (index_t f = face_group.begin; f < face_group.end; ++f) {
      const GroupFace& face = groups.faces[f];
      if (!face_group.boundary() && face.orientation != 1)
        throw InputError(cat("face ", face.mesh_face, " is not traversed in opposite directions by its two elements; the mesh is not"
                             " consistently oriented"));
      store_edge(&host.vertices[3 * face.element_m], face.local_m, f, d.Fs, d.B, tables.edge_points, face_group.boundary(),
                 face_geometry, boundary_points);
    }
  }
  d.face_geometry = Array<double>(space, face_geometry);
  d.boundary_points = Array<double>(space, boundary_points);

  if (d.options.limiter != euler2d::Limiter::none) {
    // The element across each face, the element itself on a boundary (boundary faces come first).
    // The operator runs a limiter only when this group is the whole mesh, so every interior face
    // joins two of its elements.
    FLOWDG_ASSERT(groups.element_groups.size() == 1, "the limiter needs a mesh of one triangle group");
    std::vector<index_t> neighbours(3 * K);
    for (index_t i = 0; i < 3 * K; ++i) {
      const GroupFace& face = groups.faces[element_faces[i]];
      neighbours[i] = element_faces[i] < d.B ? i % K : plus_side[i] != 0 ? face.element_m : face.element_p;
    }
    d.element_neighbours = Array<index_t>(space, pad_rows(neighbours, 3, K, d.Ks));
    if (p > 1) {
      std::vector<index_t> offsets, list;
      vertex_neighbours(mesh, elements.elements, offsets, list);
      d.vertex_neighbour_offsets = Array<index_t>(space, offsets);
      d.vertex_neighbours = Array<index_t>(space, list);
    }
  }
}

TunedTriangles::~TunedTriangles() = default;

bool TunedTriangles::runs(const FaceGroup& group) const {
  const int g = data_->group;
  if (group.boundary() && (group.tag >= static_cast<int>(data_->tag_supported.size()) || !data_->tag_supported[group.tag]))
    return false;
  return group.group_m == g && (group.boundary() || group.group_p == g) && group.geometry == GeometryKind::affine;
}

void TunedTriangles::faces(View<const double> u, View<double> flux, const FaceIndex& index, index_t first, index_t last,
                           double t) const {
  const Data& d = *data_;
  std::vector<BoundaryRange> ranges;
  for (const BoundaryRange& range : d.ranges)
    if (range.begin >= first && range.end <= last) ranges.push_back(range);
  const FaceData faces{index.element_m, index.element_p, index.local_m, index.local_p, d.face_geometry.view(),
                       d.boundary_points.view(), d.Fs, d.B};
  const Tables tables = d.tables();
  with_order(d.order, [&](auto order) {
    constexpr int P = decltype(order)::value;
    with_flux(d.options.flux, [&](auto riemann) {
      launch_faces<P, decltype(riemann)>(d.backend, d.choice, u, flux, faces, tables, d.Ks, d.options.gas, ranges, first, last, t);
    });
  });
}

void TunedTriangles::element(View<double> u, View<const double> flux, const RungeKuttaStage& stage, double dt, View<double> u0,
                             View<double> q, const StageRegisters& registers, View<double> residual, index_t first,
                             index_t count) const {
  const Data& d = *data_;
  euler2d::impl::StageUpdate update;
  if (residual.data != nullptr) {  // q <- 1 * R(u), u <- 1 * u (Solver::residual's form)
    update.stage = RungeKuttaStage{};
    update.stage.q_k = 1.0;
    update.stage.u_s = 1.0;
    update.dt = 1.0;
    update.q = residual;
  } else {
    update.stage = stage;
    update.dt = dt;
    update.u0 = u0;
    update.q = q;
    update.set(registers);
  }
  const Tables tables = d.tables();
  with_order(d.order, [&](auto order) {
    constexpr int P = decltype(order)::value;
    FLOWDG_ASSERT(first >= 0 && count >= 0 && first + count <= d.K, "tuned element range [", first, ", ", first + count,
                  ") outside the group's ", d.K, " elements");
    const ElementKernel<P> kernel{u, flux, d.geometry.view(), d.codes.view(), tables, d.Ks, d.Fs, d.options.gas, update, count, first};
    if (count == 0) return;
    launch_element<P>(d.backend, d.choice, kernel, d.tensor_tables.view().data);
  });
}

bool TunedTriangles::limits() const {
  return data_->options.limiter != euler2d::Limiter::none || data_->options.positivity;
}

void TunedTriangles::limit(View<double> u) const {
  const Data& d = *data_;
  if (!limits()) return;
  const LimiterData limiter{d.backend, u, d.K, d.Ks, d.Nq, d.element_neighbours.view(), d.vertex_neighbour_offsets.view(),
                            d.vertex_neighbours.view(), &d.basis.point_phi, d.choice.chained};
  with_order(d.order, [&](auto order) { launch_limiter<decltype(order)::value>(limiter, d.options); });
}

std::string TunedTriangles::describe() const {
  const Data& d = *data_;
  if (d.backend != Backend::cuda) return "thread per element, thread per face point";
  const char* elements[] = {"automatic", "thread", "block", "tensor"};
  const char* faces[] = {"automatic", "point", "block", "warp"};
  return cat("element ", elements[static_cast<int>(d.choice.element)], ", faces ", faces[static_cast<int>(d.choice.face)],
             d.choice.chained ? ", chained launches" : "");
}

}  // namespace flowdg::dg
