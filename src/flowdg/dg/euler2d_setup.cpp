// 2D Euler modal DG: set-up of the basis tables, element geometry and faces; the coefficients
// and snapshots (host code: launches no kernel).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "flowdg/backend/backend.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d.hpp"
#include "flowdg/dg/euler2d/common.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/quadrature.hpp"

namespace flowdg::euler2d {

int max_order() { return FLOWDG_MAX_ORDER; }

// ---- set-up ----------------------------------------------------------------------------------
namespace impl {

/// Which CUDA kernels a stage runs. Automatic, by the H100 measurements of docs/performance.md
/// (log 16-33): element kernel thread at p <= 1 (92-118% of copy bandwidth), tensor from p = 2
/// (since log 31 faster than the block kernel there too); face kernel point at p <= 1, block from
/// p = 2 (since log 33 faster than the point kernel there from mesh F up). The tensor cores' FP64
/// instruction needs compute capability 8.0: below it the block element kernel runs instead.
KernelChoice resolve_kernels(Backend backend, int order, index_t n_faces, const SolverOptions& options) {
  KernelChoice choice;
  if (backend != Backend::cuda) return choice;
  GpuElementKernel element = options.element_kernel;
  if (element == GpuElementKernel::automatic) element = order >= 2 ? GpuElementKernel::tensor : GpuElementKernel::thread;
  if (order < 1) element = GpuElementKernel::thread;  // the block kernels are built from p = 1
  if (element == GpuElementKernel::tensor && device_compute_capability() < 80) element = GpuElementKernel::block;
  // The tensor kernel keeps face codes (2 * face + side) in 32-bit registers.
  if (element == GpuElementKernel::tensor && 2 * n_faces + 1 > std::numeric_limits<int>::max()) element = GpuElementKernel::block;
  choice.element = element;
  GpuFaceKernel face = options.face_kernel;
  if (face == GpuFaceKernel::automatic) face = order >= 2 ? GpuFaceKernel::block : GpuFaceKernel::point;
  if (face == GpuFaceKernel::block && face_block_faces(order) == 0) face = GpuFaceKernel::point;  // not built there
  choice.face = face;
  choice.chained = uses_chained_launches(backend, options.chained_launches);
  return choice;
}

void store_edge(const Point3* v, int local_face, index_t f, index_t stride, index_t B, const std::vector<double>& edge_points,
                bool boundary, std::vector<double>& face_geometry, std::vector<double>& boundary_points) {
  const Point3 a = v[face_vertex(Shape::triangle, local_face, 0)];
  const Point3 edge = v[face_vertex(Shape::triangle, local_face, 1)] - a;
  const double length = std::sqrt(dot(edge, edge));
  face_geometry[f] = edge.y / length;
  face_geometry[stride + f] = -edge.x / length;
  face_geometry[2 * stride + f] = 0.5 * length;
  if (!boundary) return;
  const index_t Nfq = static_cast<index_t>(edge_points.size());
  for (index_t q = 0; q < Nfq; ++q) {
    const double t = 0.5 * (1.0 + edge_points[q]);
    boundary_points[q * B + f] = a.x + t * edge.x;
    boundary_points[(Nfq + q) * B + f] = a.y + t * edge.y;
  }
}

DeviceTables::DeviceTables(Space space, const HostTables& tables)
    : Nq(tables.Nq),
      volume_phi(space, tables.phi),
      volume_dphi_dr(space, tables.dphi_dr),
      volume_dphi_ds(space, tables.dphi_ds),
      volume_weight(space, tables.weights),
      face_phi(space, tables.edge_phi),
      face_weight(space, tables.edge_weights),
      point_phi(tables.point_phi()) {}

std::vector<double> HostTables::point_phi() const {
  std::vector<double> values = edge_phi;
  values.insert(values.end(), phi.begin(), phi.end());
  return values;
}

HostTables triangle_tables(int p) {
  const int Np = basis_count(p), Nfq = p + 1;
  const QuadratureRule volume_rule = triangle_rule(2 * p);
  const QuadratureRule edge_rule = gauss_legendre(Nfq);
  HostTables t;
  t.Nq = volume_rule.size();
  t.phi.resize(t.Nq * Np);
  t.dphi_dr.resize(t.Nq * Np);
  t.dphi_ds.resize(t.Nq * Np);
  t.weights = volume_rule.weights;
  std::vector<double> values(Np);
  std::vector<Point3> gradients(Np);
  for (int k = 0; k < t.Nq; ++k) {
    basis_gradients(Shape::triangle, p, volume_rule.points[k], values.data(), gradients.data());
    for (int j = 0; j < Np; ++j) {
      t.phi[k * Np + j] = values[j];
      t.dphi_dr[k * Np + j] = gradients[j].x;
      t.dphi_ds[k * Np + j] = gradients[j].y;
    }
  }
  t.edge_phi.resize(3 * Nfq * Np);
  for (int l = 0; l < 3; ++l)
    for (int q = 0; q < Nfq; ++q) {
      basis_values(Shape::triangle, p, face_to_element(Shape::triangle, l, edge_rule.points[q]), values.data());
      for (int j = 0; j < Np; ++j) t.edge_phi[(l * Nfq + q) * Np + j] = values[j];
    }
  t.edge_weights = edge_rule.weights;
  for (const Point3& point : edge_rule.points) t.edge_points.push_back(point.x);
  return t;
}

HostGeometry triangle_geometry(const Mesh& mesh, const std::vector<index_t>& elements) {
  const index_t K = static_cast<index_t>(elements.size());
  HostGeometry g;
  g.vertices.resize(3 * K);
  g.det_jacobian.resize(K);
  g.geometry.resize(n_geometry * K);
  g.h.resize(K);
  // Element loops run on all host threads (a 50M-triangle mesh): errors are recorded as the
  // lowest offending index and thrown after the loop, the same message as a serial loop's.
  index_t bad_element = K;
#pragma omp parallel for reduction(min : bad_element)
  for (index_t e = 0; e < K; ++e) {
    const index_t* nodes = mesh.element_node_ids(elements[e]);
    Point3* v = &g.vertices[3 * e];
    for (int k = 0; k < 3; ++k) v[k] = mesh.nodes[nodes[k]];
    const double xr = 0.5 * (v[1].x - v[0].x), xs = 0.5 * (v[2].x - v[0].x);
    const double yr = 0.5 * (v[1].y - v[0].y), ys = 0.5 * (v[2].y - v[0].y);
    const double det = xr * ys - xs * yr;
    g.det_jacobian[e] = det;
    if (!(det > 0)) {
      bad_element = std::min(bad_element, e);
      continue;
    }
    g.geometry[rx * K + e] = ys / det;
    g.geometry[ry * K + e] = -xs / det;
    g.geometry[sx * K + e] = -yr / det;
    g.geometry[sy * K + e] = xr / det;
    g.geometry[inverse_det * K + e] = 1.0 / det;
    double longest = 0;
    for (int k = 0; k < 3; ++k) {
      const Point3 edge = v[(k + 1) % 3] - v[k];
      longest = std::max(longest, std::sqrt(dot(edge, edge)));
    }
    g.h[e] = 2.0 * (2.0 * det) / longest;  // area = 2 det J
  }
  if (bad_element < K)
    throw InputError(cat(mesh.element_label(elements[bad_element]), " of ", mesh.source, " is inverted or degenerate (det J = ",
                         g.det_jacobian[bad_element], "); run `flowdg mesh info` on the mesh"));
  return g;
}

void vertex_neighbours(const Mesh& mesh, const std::vector<index_t>& elements, std::vector<index_t>& offsets,
                       std::vector<index_t>& neighbours) {
  const index_t K = static_cast<index_t>(elements.size());
  std::vector<index_t> node_offsets(mesh.n_nodes() + 1, 0), node_elements(3 * K);
  for (index_t e = 0; e < K; ++e)
    for (int k = 0; k < 3; ++k) ++node_offsets[mesh.element_node_ids(elements[e])[k] + 1];
  for (index_t n = 0; n < mesh.n_nodes(); ++n) node_offsets[n + 1] += node_offsets[n];
  std::vector<index_t> fill(node_offsets.begin(), node_offsets.end() - 1);
  for (index_t e = 0; e < K; ++e)
    for (int k = 0; k < 3; ++k) node_elements[fill[mesh.element_node_ids(elements[e])[k]]++] = e;
  offsets.assign(K + 1, 0);
  neighbours.clear();
  std::vector<index_t> list;
  for (index_t e = 0; e < K; ++e) {
    list.clear();
    for (int k = 0; k < 3; ++k) {
      const index_t n = mesh.element_node_ids(elements[e])[k];
      for (index_t i = node_offsets[n]; i < node_offsets[n + 1]; ++i)
        if (node_elements[i] != e) list.push_back(node_elements[i]);
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    neighbours.insert(neighbours.end(), list.begin(), list.end());
    offsets[e + 1] = static_cast<index_t>(neighbours.size());
  }
}

}  // namespace impl

Solver::Solver(const Mesh& mesh, const Connectivity& connectivity, SolverOptions options)
    : options_(std::move(options)), data_(std::make_unique<Data>()) {
  const int p = options_.order;
  if (p < 0 || p > FLOWDG_MAX_ORDER)
    throw InputError(cat("order ", p, " is out of range: this build supports 0..", FLOWDG_MAX_ORDER));
  if (mesh.dimension != 2) throw InputError(cat("2D Euler needs a 2D mesh; ", mesh.source, " is ", mesh.dimension, "D"));
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    if (mesh.element_types[e] != ElementType::triangle3)
      throw InputError(cat("2D Euler runs on straight-sided triangles; element ", e, " of ", mesh.source,
                           " is a ", type_name(mesh.element_types[e])));

  Data& d = *data_;
  d.backend = options_.backend;
  d.stream = std::make_unique<Stream>(d.backend);
  d.order = p;
  d.Np = basis_count(p);
  d.Nfq = p + 1;
  d.K = n_elements_ = mesh.n_elements();
  d.Ks = Data::padded(d.K);
  d.F = connectivity.n_faces();
  d.B = connectivity.n_boundary_faces();
  d.Fs = Data::padded(d.F);
  const Space space = space_of(d.backend);
  const index_t K = d.K, F = d.F, B = d.B;
  const int Np = d.Np, Nfq = d.Nfq;

  // Basis tables.
  const HostTables tables = triangle_tables(p);
  d.Nq = tables.Nq;
  d.basis = DeviceTables(space, tables);
  const KernelChoice choice = resolve_kernels(d.backend, p, d.F, options_);
  d.element_kernel = choice.element;
  d.face_kernel = choice.face;
  d.chained = choice.chained;
  if (d.element_kernel == GpuElementKernel::tensor) {
    if (d.Nq != volume_points(p))
      throw Error(cat("tensor element kernel at p = ", p, ": the volume rule has ", d.Nq, " points, the kernel expects ", volume_points(p)));
    d.tensor_tables = Array<double>(space, tensor_tables(p, tables.phi, tables.dphi_dr, tables.dphi_ds, tables.edge_phi));
  }

  // Element geometry.
  std::vector<index_t> all(K);
  for (index_t e = 0; e < K; ++e) all[e] = e;
  HostGeometry host_geometry = triangle_geometry(mesh, all);
  d.vertices = std::move(host_geometry.vertices);
  d.det_jacobian = std::move(host_geometry.det_jacobian);
  d.geometry = Array<double>(space, pad_rows(host_geometry.geometry, n_geometry, K, d.Ks));
  d.h = Array<double>(space, host_geometry.h);

  // Faces.
  std::vector<index_t> element_m(F), element_p(F), face_code(3 * K, -1);
  std::vector<int> local_m(F), local_p(F);
  std::vector<double> face_geometry(3 * F), boundary_points(2 * Nfq * B);
  // Solver face f is the mesh's face face_order[f]: boundary faces keep their places (first B, in
  // tag ranges); interior faces are put in the order of their lower element (a counting sort), so
  // that the face kernels' consecutive threads read neighbouring elements' coefficients. No result
  // depends on the face order (an element sums its faces by local index).
  std::vector<index_t> face_order(F);
  for (index_t f = 0; f < F; ++f) face_order[f] = f;
  if (options_.faces_by_element && F > B) {
    auto key = [&](index_t f) {
      const Face& face = connectivity.faces[f];
      return face.element_p >= 0 ? std::min(face.element_m, face.element_p) : face.element_m;
    };
    std::vector<index_t> start(K + 1, 0);
    for (index_t f = B; f < F; ++f) ++start[key(f) + 1];
    for (index_t e = 0; e < K; ++e) start[e + 1] += start[e];
    for (index_t f = B; f < F; ++f) face_order[B + start[key(f)]++] = f;
  }
  index_t misplaced_face = F, misoriented_face = F;
#pragma omp parallel for reduction(min : misplaced_face, misoriented_face)
  for (index_t f = 0; f < F; ++f) {
    const Face& face = connectivity.faces[face_order[f]];
    const bool interior = face.element_p >= 0;
    if (interior != (f >= B)) misplaced_face = std::min(misplaced_face, f);
    if (interior && face.orientation != 1) misoriented_face = std::min(misoriented_face, f);
    element_m[f] = face.element_m;
    element_p[f] = interior ? face.element_p : face.element_m;
    local_m[f] = face.local_face_m;
    local_p[f] = interior ? face.local_face_p : face.local_face_m;
    face_code[face.local_face_m * K + face.element_m] = 2 * f;
    if (interior) face_code[face.local_face_p * K + face.element_p] = 2 * f + 1;
    store_edge(&d.vertices[3 * face.element_m], face.local_face_m, f, F, B, tables.edge_points, !interior && f < B, face_geometry,
               boundary_points);
  }
  FLOWDG_ASSERT(misplaced_face == F, "boundary faces must come first (face ", face_order[misplaced_face], ")");
  if (misoriented_face < F) {
    const Face& face = connectivity.faces[face_order[misoriented_face]];
    throw InputError(cat("face ", face_order[misoriented_face], " between elements ", face.element_m, " and ", face.element_p,
                         " is not traversed in opposite directions by its two elements; the mesh is not"
                         " consistently oriented"));
  }
  for (index_t i = 0; i < 3 * K; ++i)
    FLOWDG_ASSERT(face_code[i] >= 0, "element ", i % K, " local face ", i / K, " has no face");
  d.face_element_m = Array<index_t>(space, element_m);
  d.face_element_p = Array<index_t>(space, element_p);
  d.face_local_m = Array<int>(space, local_m);
  d.face_local_p = Array<int>(space, local_p);
  d.face_geometry = Array<double>(space, pad_rows(face_geometry, 3, F, d.Fs));
  d.boundary_points = Array<double>(space, boundary_points);
  d.element_face_code = Array<index_t>(space, pad_rows(face_code, 3, K, d.Ks));
  if (options_.limiter != Limiter::none) {  // the limiter's face neighbours, one load each
    std::vector<index_t> neighbours(static_cast<std::size_t>(3 * K));
    for (index_t i = 0; i < 3 * K; ++i) {
      const index_t f = face_code[i] >> 1;
      neighbours[i] = (face_code[i] & 1) != 0 ? element_m[f] : element_p[f];  // a boundary face's element_p is e
    }
    d.element_neighbours = Array<index_t>(space, pad_rows(neighbours, 3, K, d.Ks));
  }

  // Elements sharing a vertex (the p > 1 limiter's detection stencil): only where it is used.
  if (options_.limiter != Limiter::none && p > 1) {
    std::vector<index_t> offsets, neighbours;
    vertex_neighbours(mesh, all, offsets, neighbours);
    d.vertex_neighbour_offsets = Array<index_t>(space, offsets);
    d.vertex_neighbours = Array<index_t>(space, neighbours);
  }

  // Boundary conditions by tag.
  for (std::size_t tag = 0; tag + 1 < connectivity.tag_offsets.size(); ++tag) {
    const index_t begin = connectivity.tag_offsets[tag], end = connectivity.tag_offsets[tag + 1];
    if (begin == end) continue;
    if (tag >= options_.boundary.size())
      throw InputError(cat("boundary '", mesh.boundary_names[tag], "' of ", mesh.source,
                           " has no boundary condition"));
    d.boundary_ranges.push_back({begin, end, options_.boundary[tag]});
  }

  d.u = Array<double>(space, std::vector<double>(static_cast<std::size_t>(NV) * Np * d.Ks, 0.0));  // padding stays 0
  d.flux = Array<double>(space, static_cast<index_t>(NV) * Nfq * d.Fs);
}

Solver::~Solver() = default;

int Solver::n_basis() const { return data_->Np; }
index_t Solver::dof() const { return static_cast<index_t>(NV) * data_->Np * data_->K; }

std::vector<double> Solver::coefficients() const {
  const Data& d = *data_;
  return unpad_rows(d.u.to_host(), NV * d.Np, d.K, d.Ks);
}
void Solver::set_coefficients(const std::vector<double>& values) {
  const Data& d = *data_;
  if (static_cast<index_t>(values.size()) != dof())
    throw InputError(cat("coefficient array has ", values.size(), " values, the solver expects ", dof()));
  data_->u.assign(pad_rows(values, NV * d.Np, d.K, d.Ks));
}

void Solver::save_snapshot() {
  if (data_->saved.size() != data_->u.size()) data_->saved = Array<double>(space_of(data_->backend), data_->u.size());
  data_->saved.copy_from(data_->u);
}
std::vector<double> Solver::snapshot() const {
  const Data& d = *data_;
  return unpad_rows(d.saved.to_host(), NV * d.Np, d.K, d.Ks);
}
const std::vector<Point3>& Solver::vertices() const { return data_->vertices; }

}  // namespace flowdg::euler2d
