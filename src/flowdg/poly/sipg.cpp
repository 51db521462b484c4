#include "flowdg/poly/sipg.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cmath>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "flowdg/backend/backend.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/poly/sipg_data.hpp"

namespace flowdg::poly {

const char* assembly_method_name(AssemblyMethod method) {
  switch (method) {
    case AssemblyMethod::coo: return "coo";
    case AssemblyMethod::deterministic: return "deterministic";
    case AssemblyMethod::atomic: return "atomic";
  }
  return "?";
}

AssemblyMethod parse_assembly_method(const std::string& name, const std::string& where) {
  if (name == "coo") return AssemblyMethod::coo;
  if (name == "deterministic") return AssemblyMethod::deterministic;
  if (name == "atomic") return AssemblyMethod::atomic;
  throw InputError(cat(where, ": assembly = \"", name, "\" is not one of \"deterministic\" (Approach 2, the same bits every run), "
                              "\"atomic\" (Approach 2 with atomics) or \"coo\" (Approach 1)"));
}

LocalSpace parse_space_time_space(const std::string& name, const std::string& where) {
  if (name == "reduced") return LocalSpace::reduced;
  if (name == "full") return LocalSpace::full;
  throw InputError(cat(where, ": space = \"", name, "\" is not one of \"reduced\" (total space-time degree p, the paper's choice) or "
                              "\"full\" (degree q in time times total degree p in space)"));
}

const char* local_space_name(LocalSpace space) {
  switch (space) {
    case LocalSpace::spatial: return "spatial";
    case LocalSpace::full: return "full";
    case LocalSpace::reduced: return "reduced";
  }
  return "?";
}

namespace {

/// A rule's points as barycentric coordinates (n + 1 per point) and its weights summing to 1, for
/// the simplex of dimension n (1 line, 2 triangle, 3 tetrahedron) with reference vertices as in
/// element/reference_element.hpp.
void barycentric_rule(int n, int degree, std::vector<double>& bary, std::vector<double>& weight) {
  const QuadratureRule rule = n == 1 ? line_rule(degree) : n == 2 ? triangle_rule(degree) : tetrahedron_rule(degree);
  const Shape shape = n == 1 ? Shape::line : n == 2 ? Shape::triangle : Shape::tetrahedron;
  const double measure = reference_measure(shape);
  bary.clear();
  weight.clear();
  for (int q = 0; q < rule.size(); ++q) {
    const double r[3] = {rule.points[q].x, rule.points[q].y, rule.points[q].z};
    double lambda[4];
    double rest = 1;
    for (int k = 0; k < n; ++k) {
      lambda[k + 1] = 0.5 * (r[k] + 1);
      rest -= lambda[k + 1];
    }
    lambda[0] = rest;
    for (int k = 0; k <= n; ++k) bary.push_back(lambda[k]);
    weight.push_back(rule.weights[q] / measure);
  }
}

double largest_eigenvalue(const double* a, int d) {
  if (d == 2) {
    const double mean = 0.5 * (a[0] + a[3]), half = 0.5 * (a[0] - a[3]);
    return mean + std::sqrt(half * half + a[1] * a[1]);
  }
  Eigen::Matrix3d m;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m(r, c) = 0.5 * (a[3 * r + c] + a[3 * c + r]);
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(m, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
}

/// Samples a coefficient of `components` values per point at every time point (one Coefficients
/// each: `function(r)` / `constant(r)` give time point r's): values at [(point * nqt + r) *
/// components + c], or one constant (stride 0) where every time point has the same constant.
/// f at every point, on every host thread when the function allows it (chunks of points).
void evaluate_points(const std::function<void(std::span<const Point3>, double*)>& f, const std::vector<Point3>& points, int components,
                     double* out, bool parallel) {
  const std::size_t n = points.size();
  if (n == 0) return;
  constexpr std::size_t chunk = 2048;
  if (!parallel || n <= chunk) {
    f(points, out);
    return;
  }
  const std::int64_t chunks = static_cast<std::int64_t>((n + chunk - 1) / chunk);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t start = static_cast<std::size_t>(c) * chunk, count = std::min(chunk, n - start);
    f(std::span<const Point3>(points.data() + start, count), out + start * static_cast<std::size_t>(components));
  }
}

SampledArray sample(Space space, const std::function<const std::function<void(std::span<const Point3>, double*)>*(int)>& function,
                    const std::function<const double*(int)>& constant, int nqt, int components,
                    const std::vector<Point3>& points, const char* what, bool parallel = false) {
  SampledArray out;
  bool same_constant = true;
  for (int r = 0; r < nqt && same_constant; ++r) {
    const double* c = constant(r);
    const double* c0 = constant(0);
    const bool none = !c && !(function(r) && *function(r));
    const bool none0 = !c0 && !(function(0) && *function(0));
    if (c && c0) {
      for (int k = 0; k < components; ++k) same_constant = same_constant && c[k] == c0[k];
    } else {
      same_constant = none && none0;
    }
  }
  if (same_constant) {
    const double* c = constant(0);
    out.values = c ? Array<double>(space, std::vector<double>(c, c + components))
                   : Array<double>(space, std::vector<double>(components, 0.0));
    out.stride = 0;
    return out;
  }
  const std::size_t n = points.size();
  std::vector<double> values(n * nqt * components), at(n * components);
  for (int r = 0; r < nqt; ++r) {
    if (const double* c = constant(r)) {
      for (std::size_t q = 0; q < n; ++q)
        for (int k = 0; k < components; ++k) at[q * components + k] = c[k];
    } else if (function(r) && *function(r)) {
      evaluate_points(*function(r), points, components, at.data(), parallel);
    } else {
      std::fill(at.begin(), at.end(), 0.0);
    }
    for (std::size_t q = 0; q < n; ++q)
      for (int k = 0; k < components; ++k) values[(q * nqt + r) * components + k] = at[q * components + k];
  }
  for (double v : values)
    if (!std::isfinite(v)) throw InputError(cat("the ", what, " is not finite at a quadrature point"));
  out.values = Array<double>(space, values);
  out.stride = components;
  return out;
}

template <class T>
Array<T> to_space(Space space, const std::vector<T>& host) {
  return Array<T>(space, host);
}

}  // namespace

int SipgDiscretisation::volume_rule_degree() const { return 2 * p_max_ + options_.quadrature_extra; }

int SipgDiscretisation::time_points() const { return data_->nqt; }

SipgDiscretisation::SipgDiscretisation(const PolyMesh& mesh, const Coefficients& coefficients, const SipgOptions& options,
                                       Backend backend)
    : mesh_(mesh), backend_(backend), options_(options), coefficients_(coefficients) {
  const auto start = std::chrono::steady_clock::now();
  const int D = mesh.dimension;
  const index_t K = mesh.n_elements();
  if (D != 2 && D != 3) throw InputError(cat("SIPG: a ", D, "D mesh (2D or 3D only)"));
  if (coefficients.dimension != D)
    throw InputError(cat("SIPG: the problem is ", coefficients.dimension, "D but the mesh ", mesh.source, " is ", D, "D"));
  if (!(options.penalty >= 0)) throw InputError(cat("SIPG: penalty = ", options.penalty, " (C_sigma must be >= 0)"));
  if (options.quadrature_extra < 0 || options.quadrature_extra > 8)
    throw InputError(cat("SIPG: quadrature_extra = ", options.quadrature_extra, " (0 to 8)"));
  if (!coefficients.neumann_tag.empty() && coefficients.neumann_tag.size() != mesh.boundary_names.size())
    throw InputError(cat("SIPG: ", coefficients.neumann_tag.size(), " boundary kinds for the ", mesh.boundary_names.size(),
                         " boundary tags of ", mesh.source));
  if (!options.degrees.empty() && static_cast<index_t>(options.degrees.size()) != K)
    throw InputError(cat("SIPG: ", options.degrees.size(), " degrees for ", K, " elements"));
  degrees_ = options.degrees.empty() ? std::vector<int>(K, options.degree) : options.degrees;
  for (index_t e = 0; e < K; ++e)
    if (degrees_[e] < 1 || degrees_[e] > max_degree)
      throw InputError(cat("SIPG: degree ", degrees_[e], (options.degrees.empty() ? "" : cat(" of element ", e)), " (1 to ",
                           max_degree, ")"));
  p_max_ = 1;
  int p_min = max_degree;
  for (index_t e = 0; e < K; ++e) {
    p_max_ = std::max(p_max_, degrees_[e]);
    p_min = std::min(p_min, degrees_[e]);
  }
  const LocalSpace local = options.space;
  if (local != LocalSpace::spatial) {
    if (p_max_ > max_space_time_degree(D))
      throw InputError(cat("SIPG: space-time degree ", p_max_, " (at most ", max_space_time_degree(D), " in ", D, "D)"));
    time_degree_ = options.time_degree < 0 ? p_min : options.time_degree;
    if (local == LocalSpace::full && (time_degree_ < 0 || time_degree_ > p_min))
      throw InputError(cat("SIPG: time degree q = ", time_degree_, " (0 to the spatial degree ", p_min, ")"));
    if (local == LocalSpace::reduced) time_degree_ = p_max_;
  }
  dof_start_.assign(K + 1, 0);
  for (index_t e = 0; e < K; ++e) dof_start_[e + 1] = dof_start_[e] + local_size(degrees_[e], D, local, time_degree_);
  owned_ = options.owned_elements < 0 ? K : options.owned_elements;
  if (owned_ < 1 || owned_ > K) throw InputError(cat("SIPG: owned_elements = ", options.owned_elements, " of ", K, " elements"));

  const Space space = space_of(backend);
  data_ = new DeviceData;
  DeviceData& d = *data_;
  d.dimension = D;
  d.owned = owned_;
  std::vector<double> volume_bary, volume_weight, face_bary, face_weight;
  barycentric_rule(D, volume_rule_degree(), volume_bary, volume_weight);
  barycentric_rule(D - 1, volume_rule_degree(), face_bary, face_weight);
  d.nqv = static_cast<int>(volume_weight.size());
  d.nqf = static_cast<int>(face_weight.size());

  // quadrature points
  const SubSimplexSet& simplices = mesh.quadrature;
  const index_t S = simplices.n_simplices(), FI = mesh.n_interior_subfaces(), FB = mesh.n_boundary_subfaces();
  const auto map_points = [&](const Point3* vertex, int vertices, const std::vector<double>& bary, int nq,
                              std::vector<Point3>& out) {
    for (int q = 0; q < nq; ++q) out.push_back(barycentric_point(bary.data() + vertices * q, vertex, vertices));
  };
  std::vector<Point3>& volume_points = volume_points_;
  std::vector<Point3>& interior_points = interior_points_;
  std::vector<Point3>& boundary_points = boundary_points_;
  std::vector<Point3>& boundary_normals = boundary_normals_;
  volume_points.reserve(S * d.nqv);
  for (index_t s = 0; s < S; ++s) map_points(simplices.points.data() + (D + 1) * s, D + 1, volume_bary, d.nqv, volume_points);
  std::vector<Point3> interior_vertices(D * FI), boundary_vertices(D * FB);
  for (index_t f = 0; f < FI; ++f)
    for (int v = 0; v < D; ++v) interior_vertices[D * f + v] = mesh.nodes[mesh.interior_vertices[D * f + v]];
  for (index_t f = 0; f < FB; ++f)
    for (int v = 0; v < D; ++v) boundary_vertices[D * f + v] = mesh.nodes[mesh.boundary_vertices[D * f + v]];
  interior_points.reserve(FI * d.nqf);
  for (index_t f = 0; f < FI; ++f) map_points(interior_vertices.data() + D * f, D, face_bary, d.nqf, interior_points);
  boundary_points.reserve(FB * d.nqf);
  for (index_t f = 0; f < FB; ++f) {
    map_points(boundary_vertices.data() + D * f, D, face_bary, d.nqf, boundary_points);
    for (int q = 0; q < d.nqf; ++q) boundary_normals.push_back(mesh.boundary_normal[f]);
  }

  // time rule (space-time: Gauss-Legendre, exact to 2 p_max + quadrature_extra + 1 in t; steady: one point)
  {
    std::vector<double> tau{0.0}, weight{1.0};
    if (local != LocalSpace::spatial) {
      const QuadratureRule rule = gauss_legendre(p_max_ + 1 + (options.quadrature_extra + 1) / 2);
      tau.clear();
      weight.clear();
      for (int r = 0; r < rule.size(); ++r) {
        tau.push_back(rule.points[r].x);
        weight.push_back(0.5 * rule.weights[r]);
      }
    }
    d.nqt = static_cast<int>(tau.size());
    d.time_point = to_space(space, tau);
    d.time_weight = to_space(space, weight);
    d.local_space = local;
    d.time_degree = time_degree_;
    d.slab = slab_map(1.0);
    d.volume_previous.values = Array<double>(space, std::vector<double>{0.0});
    d.volume_previous.stride = 0;
  }
  std::vector<std::uint8_t> neumann(FB, 0);
  for (index_t f = 0; f < FB; ++f) {
    const int tag = mesh.boundary_tag[f];
    neumann[f] = !coefficients.neumann_tag.empty() && coefficients.neumann_tag[tag];
  }

  // elements, sub-simplices, sub-faces
  std::vector<BoxMap> boxes(K);
  for (index_t e = 0; e < K; ++e) boxes[e] = box_map(mesh.box_min[e], mesh.box_max[e], D);
  std::vector<index_t> simplex_element(S), interior_interface(FI), boundary_element(FB);
  for (index_t e = 0; e < K; ++e)
    for (index_t s = simplices.start[e]; s < simplices.start[e + 1]; ++s) simplex_element[s] = e;
  for (index_t i = 0; i < mesh.n_interfaces(); ++i)
    for (index_t f = mesh.interface_start[i]; f < mesh.interface_start[i + 1]; ++f) interior_interface[f] = i;
  for (index_t e = 0; e < K; ++e)
    for (index_t f = mesh.boundary_start[e]; f < mesh.boundary_start[e + 1]; ++f) boundary_element[f] = e;

  // contribution offsets (blocks one after the other) and launch groups by degree
  const auto n_of = [&](index_t e) { return static_cast<index_t>(local_size(degrees_[e], D, local, time_degree_)); };
  std::vector<index_t> simplex_offset(S), boundary_offset(FB), interior_offset(FI);
  index_t offset = 0;
  std::array<std::vector<index_t>, max_degree + 1> simplex_group, interior_group, boundary_group, element_group;
  // (a part: only what the owned elements' rows need is launched; the other offsets stay, unused)
  for (index_t s = 0; s < S; ++s) {
    simplex_offset[s] = offset;
    offset += n_of(simplex_element[s]) * n_of(simplex_element[s]);
    if (simplex_element[s] < owned_) simplex_group[degrees_[simplex_element[s]]].push_back(s);
  }
  for (index_t f = 0; f < FB; ++f) {
    boundary_offset[f] = offset;
    offset += n_of(boundary_element[f]) * n_of(boundary_element[f]);
    if (boundary_element[f] < owned_) boundary_group[degrees_[boundary_element[f]]].push_back(f);
  }
  for (index_t f = 0; f < FI; ++f) {
    interior_offset[f] = offset;
    const index_t i = interior_interface[f], a = mesh.interface_elements[2 * i], b = mesh.interface_elements[2 * i + 1];
    offset += (n_of(a) + n_of(b)) * (n_of(a) + n_of(b));
    if (a < owned_ || b < owned_) interior_group[std::max(degrees_[a], degrees_[b])].push_back(f);
  }
  for (index_t e = 0; e < owned_; ++e) element_group[degrees_[e]].push_back(e);
  d.contribution_values = offset;

  d.volume_bary = to_space(space, volume_bary);
  d.volume_weight = to_space(space, volume_weight);
  d.face_bary = to_space(space, face_bary);
  d.face_weight = to_space(space, face_weight);
  d.degree = to_space(space, degrees_);
  d.dof_start = to_space(space, dof_start_);
  d.box = to_space(space, boxes);
  d.simplex_start = to_space(space, simplices.start);
  d.boundary_start = to_space(space, mesh.boundary_start);
  d.element_interface_start = to_space(space, mesh.element_interface_start);
  d.element_interfaces = to_space(space, mesh.element_interfaces);
  d.interface_start = to_space(space, mesh.interface_start);
  d.interface_elements = to_space(space, mesh.interface_elements);
  d.simplex_element = to_space(space, simplex_element);
  d.simplex_points = to_space(space, simplices.points);
  d.simplex_measure = to_space(space, simplices.measure);
  d.interior_interface = to_space(space, interior_interface);
  d.interior_points = to_space(space, interior_vertices);
  d.interior_normal = to_space(space, mesh.interior_normal);
  d.interior_measure = to_space(space, mesh.interior_measure);
  d.boundary_element = to_space(space, boundary_element);
  d.boundary_points = to_space(space, boundary_vertices);
  d.boundary_normal = to_space(space, mesh.boundary_normal);
  d.boundary_measure = to_space(space, mesh.boundary_measure);
  d.boundary_neumann = to_space(space, neumann);
  d.simplex_offset = to_space(space, simplex_offset);
  d.boundary_offset = to_space(space, boundary_offset);
  d.interior_offset = to_space(space, interior_offset);
  for (int p = 0; p <= max_degree; ++p) {
    d.simplex_group[p] = to_space(space, simplex_group[p]);
    d.interior_group[p] = to_space(space, interior_group[p]);
    d.boundary_group[p] = to_space(space, boundary_group[p]);
    d.element_group[p] = to_space(space, element_group[p]);
  }
  sample_coefficients(std::vector<Coefficients>(static_cast<std::size_t>(d.nqt), coefficients));
  synchronize(backend);
  setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void SipgDiscretisation::sample_coefficients(const std::vector<Coefficients>& at) {
  const PolyMesh& mesh = mesh_;
  const int D = mesh.dimension;
  const index_t K = mesh.n_elements(), FB = mesh.n_boundary_subfaces(), FI = mesh.n_interior_subfaces();
  const SubSimplexSet& simplices = mesh.quadrature;
  const Space space = space_of(backend_);
  DeviceData& d = *data_;
  const int nqt = d.nqt;
  const SipgOptions& options = options_;
  for (const Coefficients& c : at)
    if (c.dimension != D) throw InputError(cat("SIPG: the problem is ", c.dimension, "D but the mesh ", mesh.source, " is ", D, "D"));
  // the constants of each time point (a in the mesh's d x d layout)
  std::vector<std::array<double, 9>> packed(at.size());
  std::vector<const double*> const_a(at.size()), const_b(at.size()), const_c(at.size());
  for (std::size_t r = 0; r < at.size(); ++r) {
    const Coefficients& c = at[r];
    if (c.constant_diffusion) {
      const auto& a = *c.constant_diffusion;
      packed[r] = D == 2 ? std::array<double, 9>{a[0], a[1], a[3], a[4]} : a;
      const_a[r] = packed[r].data();
    }
    const_b[r] = c.constant_advection ? c.constant_advection->data() : nullptr;
    const_c[r] = c.constant_reaction ? &*c.constant_reaction : nullptr;
  }
  using Function = std::function<void(std::span<const Point3>, double*)>;
  bool parallel = true;
  for (const Coefficients& c : at) parallel = parallel && c.thread_safe;
  const auto none = [](int) -> const double* { return nullptr; };
  const auto a_fn = [&](int r) -> const Function* { return &at[r].diffusion; };
  const auto b_fn = [&](int r) -> const Function* { return &at[r].advection; };
  const auto c_fn = [&](int r) -> const Function* { return &at[r].reaction; };
  const auto f_fn = [&](int r) -> const Function* { return &at[r].source; };
  const auto g_fn = [&](int r) -> const Function* { return &at[r].dirichlet; };
  const auto a_c = [&](int r) { return const_a[r]; };
  const auto b_c = [&](int r) { return const_b[r]; };
  const auto c_c = [&](int r) { return const_c[r]; };
  d.volume_a = sample(space, a_fn, a_c, nqt, D * D, volume_points_, "diffusion", parallel);
  d.volume_b = sample(space, b_fn, b_c, nqt, D, volume_points_, "advection", parallel);
  d.volume_c = sample(space, c_fn, c_c, nqt, 1, volume_points_, "reaction", parallel);
  d.volume_f = sample(space, f_fn, none, nqt, 1, volume_points_, "source", parallel);
  d.interior_a = sample(space, a_fn, a_c, nqt, D * D, interior_points_, "diffusion", parallel);
  d.interior_b = sample(space, b_fn, b_c, nqt, D, interior_points_, "advection", parallel);
  d.boundary_a = sample(space, a_fn, a_c, nqt, D * D, boundary_points_, "diffusion", parallel);
  d.boundary_b = sample(space, b_fn, b_c, nqt, D, boundary_points_, "advection", parallel);
  d.boundary_gd = sample(space, g_fn, none, nqt, 1, boundary_points_, "Dirichlet data", parallel);
  const std::vector<std::uint8_t> neumann = d.boundary_neumann.to_host();
  bool any_neumann = false;
  for (std::uint8_t v : neumann) any_neumann = any_neumann || v;
  if (any_neumann) {
    const std::size_t n = boundary_points_.size();
    std::vector<double> values(n * nqt), one(n);
    for (int r = 0; r < nqt; ++r) {
      if (!at[r].neumann) throw InputError("SIPG: a Neumann boundary tag but no Neumann data g_N");
      if (n) at[r].neumann(boundary_points_, boundary_normals_, one.data());
      for (std::size_t q = 0; q < n; ++q) values[q * nqt + r] = one[q];
    }
    for (double v : values)
      if (!std::isfinite(v)) throw InputError("the Neumann data is not finite at a quadrature point");
    d.boundary_gn.values = Array<double>(space, values);
    d.boundary_gn.stride = 1;
  } else {
    d.boundary_gn = sample(space, [](int) -> const Function* { return nullptr; }, none, nqt, 1, boundary_points_, "Neumann data");
  }

  // abar per element: the largest eigenvalue of a at its quadrature points (and time points)
  abar_.assign(K, 0);
  if (d.volume_a.stride == 0) {
    const std::vector<double> a = d.volume_a.values.to_host();
    std::fill(abar_.begin(), abar_.end(), std::max(0.0, largest_eigenvalue(a.data(), D)));
  } else {
    const std::vector<double> a = d.volume_a.values.to_host();
    for (index_t e = 0; e < K; ++e)
      for (index_t s = simplices.start[e]; s < simplices.start[e + 1]; ++s)
        for (int q = 0; q < d.nqv * nqt; ++q)
          abar_[e] = std::max(abar_[e], largest_eigenvalue(a.data() + (s * d.nqv * nqt + q) * D * D, D));
  }
  // symmetric: b = 0 everywhere (and steady: the time derivative is not symmetric)
  symmetric_ = !space_time();
  {
    const std::vector<double> b = d.volume_b.values.to_host();
    for (double v : b) symmetric_ = symmetric_ && v == 0;
    const std::vector<double> bb = d.boundary_b.values.to_host();
    for (double v : bb) symmetric_ = symmetric_ && v == 0;
  }

  // penalty (Appendix A)
  const auto sigma_side = [&](index_t e, double face_measure, double cover) {
    const int p = degrees_[e];
    const double factor = options.penalty_cap ? inverse_estimate_factor(p, D, mesh.measure[e], cover) : mesh.measure[e] / cover;
    return factor * abar_[e] * p * p * face_measure / mesh.measure[e];
  };
  interior_sigma_.assign(FI, 0);
  for (index_t i = 0; i < mesh.n_interfaces(); ++i)
    for (index_t f = mesh.interface_start[i]; f < mesh.interface_start[i + 1]; ++f) {
      const double m = mesh.interior_measure[f];
      interior_sigma_[f] = options.penalty * std::max(sigma_side(mesh.interface_elements[2 * i], m, mesh.interior_cover[2 * f]),
                                                      sigma_side(mesh.interface_elements[2 * i + 1], m, mesh.interior_cover[2 * f + 1]));
    }
  boundary_sigma_.assign(FB, 0);
  for (index_t e = 0; e < K; ++e)
    for (index_t f = mesh.boundary_start[e]; f < mesh.boundary_start[e + 1]; ++f)
      boundary_sigma_[f] = options.penalty * sigma_side(e, mesh.boundary_measure[f], mesh.boundary_cover[f]);
  d.interior_sigma = to_space(space, interior_sigma_);
  d.boundary_sigma = to_space(space, boundary_sigma_);
}

void SipgDiscretisation::set_slab(double t0, double dt, const CoefficientsAt& at) {
  if (!space_time()) throw Error("SIPG: set_slab on a steady discretisation");
  if (!(dt > 0) || !std::isfinite(t0) || !std::isfinite(dt))
    throw InputError(cat("SIPG: a slab from t = ", t0, " of length ", dt, " (it must have a positive, finite length)"));
  DeviceData& d = *data_;
  const std::vector<double> tau = d.time_point.to_host();
  std::vector<Coefficients> at_times;
  at_times.reserve(tau.size());
  for (double x : tau) at_times.push_back(at(t0 + 0.5 * (x + 1) * dt));
  coefficients_at_ = at;
  coefficients_ = at_times.front();
  sample_coefficients(at_times);
  d.slab = slab_map(dt);
  slab_t0_ = t0;
  slab_t1_ = t0 + dt;
  slab_dt_ = dt;
  synchronize(backend_);
}

void SipgDiscretisation::set_initial_trace(const std::function<void(std::span<const Point3>, double*)>& u0) {
  if (!space_time()) throw Error("SIPG: set_initial_trace on a steady discretisation");
  std::vector<double> values(volume_points_.size());
  if (!values.empty()) u0(volume_points_, values.data());
  for (double v : values)
    if (!std::isfinite(v)) throw InputError("the initial condition is not finite at a quadrature point");
  data_->volume_previous.values = Array<double>(space_of(backend_), values);
  data_->volume_previous.stride = 1;
}

SipgDiscretisation::~SipgDiscretisation() { delete data_; }

namespace {

constexpr int host_max_local = max_local_size(max_degree, 3, true);

/// The local functions (spatial or space-time) at (x, tau), on the host.
void host_local(int D, const BoxMap& box, int p, LocalSpace space, int q, const SlabMap& slab, Point3 x, double tau, double* phi,
                double* grad) {
  if (space == LocalSpace::spatial) {
    if (D == 2) evaluate_basis<2>(box, p, x, phi, grad);
    else evaluate_basis<3>(box, p, x, phi, grad);
    return;
  }
  double spatial[basis_size(max_degree, 3)], spatial_gradient[3 * basis_size(max_degree, 3)];
  if (D == 2) evaluate_space_time<2>(box, p, space, q, slab, x, tau, spatial, spatial_gradient, phi, grad, nullptr);
  else evaluate_space_time<3>(box, p, space, q, slab, x, tau, spatial, spatial_gradient, phi, grad, nullptr);
}

}  // namespace

void SipgDiscretisation::evaluate(const std::vector<double>& solution, index_t element, std::span<const Point3> points,
                                  double* out, double tau) const {
  const int D = mesh_.dimension, p = degrees_[element], n = local_size(p, D, options_.space, time_degree_);
  const BoxMap box = box_map(mesh_.box_min[element], mesh_.box_max[element], D);
  double phi[host_max_local];
  for (std::size_t q = 0; q < points.size(); ++q) {
    host_local(D, box, p, options_.space, time_degree_, data_->slab, points[q], tau, phi, nullptr);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += solution[dof_start_[element] + i] * phi[i];
    out[q] = sum;
  }
}

SipgErrors SipgDiscretisation::errors(const std::vector<double>& solution,
                                      const std::function<void(std::span<const Point3>, double*)>& exact,
                                      const std::function<void(std::span<const Point3>, double*)>& exact_gradient) const {
  const Integrals i = error_integrals(solution, exact, exact_gradient, coefficients_, 1.0);
  SipgErrors out;
  out.l2 = std::sqrt(i.l2);
  out.h1 = std::sqrt(i.h1);
  out.jumps = std::sqrt(i.jumps);
  out.dg = std::sqrt(i.energy + i.jumps + i.advective + std::max(0.0, i.reactive));
  return out;
}

SipgErrorSquares SipgDiscretisation::error_squares(const std::vector<double>& solution,
                                                  const std::function<void(std::span<const Point3>, double*)>& exact,
                                                  const std::function<void(std::span<const Point3>, double*)>& exact_gradient) const {
  const Integrals i = error_integrals(solution, exact, exact_gradient, coefficients_, 1.0);
  SipgErrorSquares out;
  out.l2 = i.l2;
  out.h1 = i.h1;
  out.jumps = i.jumps;
  out.dg = i.energy + i.jumps + i.advective + std::max(0.0, i.reactive);
  return out;
}

SipgErrors errors_from_squares(const SipgErrorSquares& squares) {
  SipgErrors out;
  out.l2 = std::sqrt(squares.l2);
  out.h1 = std::sqrt(squares.h1);
  out.jumps = std::sqrt(squares.jumps);
  out.dg = std::sqrt(squares.dg);
  return out;
}

namespace {

/// Sums body(i, sums) over i in [0, n) into `width` totals: per host thread its own partial sums
/// (a static schedule) added in thread order afterwards, so the same thread count gives the same
/// bits; `parallel` false runs one thread. body must only touch its own scratch (make_scratch()).
template <class MakeScratch, class Body>
void sum_over(index_t n, bool parallel, int width, double* totals, const MakeScratch& make_scratch, const Body& body) {
  const int threads = parallel ? std::max(1, cpu_threads()) : 1;
  std::vector<double> partial(static_cast<std::size_t>(threads * width), 0.0);
#pragma omp parallel num_threads(threads)
  {
#ifdef _OPENMP
    const int t = omp_get_thread_num();
#else
    const int t = 0;
#endif
    auto scratch = make_scratch();
    double* mine = partial.data() + static_cast<std::size_t>(t * width);
#pragma omp for schedule(static)
    for (index_t i = 0; i < n; ++i) body(i, scratch, mine);
  }
  for (int t = 0; t < threads; ++t)
    for (int k = 0; k < width; ++k) totals[k] += partial[static_cast<std::size_t>(t * width + k)];
}

}  // namespace

SlabErrors SipgDiscretisation::slab_errors(
    const std::vector<double>& solution,
    const std::function<std::function<void(std::span<const Point3>, double*)>(double)>& exact_at,
    const std::function<std::function<void(std::span<const Point3>, double*)>(double)>& gradient_at) const {
  if (!space_time()) throw Error("SIPG: slab_errors of a steady discretisation");
  const DeviceData& d = *data_;
  const std::vector<double> tau = d.time_point.to_host(), weight = d.time_weight.to_host();
  const double t0 = slab_t0_, t1 = slab_t1_, dt = slab_dt_;
  SlabErrors out;
  for (std::size_t r = 0; r < tau.size(); ++r) {
    const double t = t0 + 0.5 * (tau[r] + 1) * dt;
    const Integrals i = error_integrals(solution, exact_at(t), gradient_at(t), coefficients_at_(t), tau[r]);
    out.l2l2_squared += weight[r] * dt * i.l2;
    out.dg_squared += weight[r] * dt * (i.energy + i.jumps + i.advective + std::max(0.0, i.reactive));
  }
  out.top_l2 = std::sqrt(error_integrals(solution, exact_at(t1), gradient_at(t1), coefficients_at_(t1), 1.0).l2);
  // the time jump at t_{n-1}: u_h^+ against the stored u_h^- at the volume points
  const int D = mesh_.dimension;
  const std::vector<double> bary = d.volume_bary.to_host(), volume_weight = d.volume_weight.to_host();
  const std::vector<double> previous = d.volume_previous.values.to_host();
  const SubSimplexSet& simplices = mesh_.quadrature;
  struct Scratch {
    std::vector<Point3> x;
    std::vector<double> uh;
  };
  const int nqv = d.nqv;
  sum_over(owned_, true, 1, &out.jump_squared, [nqv] { return Scratch{std::vector<Point3>(static_cast<std::size_t>(nqv)), std::vector<double>(static_cast<std::size_t>(nqv))}; },
           [&](index_t e, Scratch& w, double* sum) {
             for (index_t s = simplices.start[e]; s < simplices.start[e + 1]; ++s) {
               for (int q = 0; q < nqv; ++q)
                 w.x[q] = barycentric_point(bary.data() + (D + 1) * q, simplices.points.data() + (D + 1) * s, D + 1);
               evaluate(solution, e, w.x, w.uh.data(), -1.0);
               for (int q = 0; q < nqv; ++q) {
                 const double before = d.volume_previous.stride == 0 ? previous[0] : previous[s * nqv + q];
                 const double jump = w.uh[q] - before;
                 *sum += volume_weight[q] * simplices.measure[s] * jump * jump;
               }
             }
           });
  return out;
}


SipgDiscretisation::Integrals SipgDiscretisation::error_integrals(
    const std::vector<double>& solution, const std::function<void(std::span<const Point3>, double*)>& exact,
    const std::function<void(std::span<const Point3>, double*)>& exact_gradient, const Coefficients& coefficients,
    double tau) const {
  const Coefficients& co = coefficients;  // the time's (space-time) or the problem's
  if (static_cast<index_t>(solution.size()) != dofs())
    throw Error(cat("SIPG errors: ", solution.size(), " values for ", dofs(), " unknowns"));
  const int D = mesh_.dimension;
  const DeviceData& d = *data_;
  const std::vector<double> volume_bary = d.volume_bary.to_host(), volume_weight = d.volume_weight.to_host();
  const std::vector<double> face_bary = d.face_bary.to_host(), face_weight = d.face_weight.to_host();
  const int nqv = d.nqv, nqf = d.nqf;
  // the exact solution and its gradient are taken to be as thread safe as the coefficients (so they
  // are in the built-in problems; muparser formulas are in neither)
  const bool parallel = co.thread_safe;
  /// One thread's work arrays.
  struct Scratch {
    std::vector<double> phi = std::vector<double>(host_max_local), grad = std::vector<double>(3 * host_max_local);
    std::vector<Point3> x;
    std::vector<double> u, gu, a, b, c;
  };
  const auto make_scratch = [] { return Scratch{}; };
  const auto eval = [&](Scratch& w, index_t e, Point3 x, double& u, double* g) {
    const int p = degrees_[e], n = local_size(p, D, options_.space, time_degree_);
    const BoxMap box = box_map(mesh_.box_min[e], mesh_.box_max[e], D);
    host_local(D, box, p, options_.space, time_degree_, d.slab, x, tau, w.phi.data(), w.grad.data());
    u = 0;
    for (int r = 0; r < D; ++r) g[r] = 0;
    for (int i = 0; i < n; ++i) {
      const double c = solution[dof_start_[e] + i];
      u += c * w.phi[i];
      for (int r = 0; r < D; ++r) g[r] += c * w.grad[D * i + r];
    }
  };
  const auto coefficient = [&](const std::function<void(std::span<const Point3>, double*)>& f, const double* constant,
                               int components, const std::vector<Point3>& x, std::vector<double>& out) {
    out.assign(x.size() * components, 0);
    if (constant) {
      for (std::size_t q = 0; q < x.size(); ++q)
        for (int c = 0; c < components; ++c) out[q * components + c] = constant[c];
    } else if (f) {
      f(x, out.data());
    }
  };
  std::array<double, 9> a_packed{};
  const double* const_a = nullptr;
  if (co.constant_diffusion) {
    const auto& a = *co.constant_diffusion;
    a_packed = D == 2 ? std::array<double, 9>{a[0], a[1], a[3], a[4]} : a;
    const_a = a_packed.data();
  }
  const double* const_b = co.constant_advection ? co.constant_advection->data() : nullptr;
  const double* const_c = co.constant_reaction ? &*co.constant_reaction : nullptr;

  // sums: l2, h1, energy, reactive (volume); jumps, advective (faces)
  double sums[6] = {0, 0, 0, 0, 0, 0};
  // volume, element by element
  const SubSimplexSet& simplices = mesh_.quadrature;
  sum_over(owned_, parallel, 6, sums, make_scratch, [&](index_t e, Scratch& w, double* out) {
    for (index_t s = simplices.start[e]; s < simplices.start[e + 1]; ++s) {
      w.x.clear();
      for (int q = 0; q < nqv; ++q)
        w.x.push_back(barycentric_point(volume_bary.data() + (D + 1) * q, simplices.points.data() + (D + 1) * s, D + 1));
      w.u.resize(nqv);
      w.gu.resize(nqv * D);
      exact(w.x, w.u.data());
      exact_gradient(w.x, w.gu.data());
      coefficient(co.diffusion, const_a, D * D, w.x, w.a);
      coefficient(co.reaction, const_c, 1, w.x, w.c);
      for (int q = 0; q < nqv; ++q) {
        double uh, g[3];
        eval(w, e, w.x[q], uh, g);
        const double weight = volume_weight[q] * simplices.measure[s], err = w.u[q] - uh;
        double ge[3];
        for (int r = 0; r < D; ++r) ge[r] = w.gu[q * D + r] - g[r];
        out[0] += weight * err * err;
        for (int r = 0; r < D; ++r) {
          out[1] += weight * ge[r] * ge[r];
          for (int l = 0; l < D; ++l) out[2] += weight * ge[r] * w.a[q * D * D + r * D + l] * ge[l];
        }
        out[3] += weight * w.c[q] * err * err;
      }
    }
  });
  // interior sub-faces, interface by interface
  sum_over(mesh_.n_interfaces(), parallel, 6, sums, make_scratch, [&](index_t i, Scratch& w, double* out) {
    // a part's share: an interface with one owned side counts half on each of its two ranks
    const double share = 0.5 * ((mesh_.interface_elements[2 * i] < owned_ ? 1 : 0) + (mesh_.interface_elements[2 * i + 1] < owned_ ? 1 : 0));
    if (share == 0) return;
    for (index_t f = mesh_.interface_start[i]; f < mesh_.interface_start[i + 1]; ++f) {
      w.x.clear();
      Point3 vertex[3];
      for (int v = 0; v < D; ++v) vertex[v] = mesh_.nodes[mesh_.interior_vertices[D * f + v]];
      for (int q = 0; q < nqf; ++q) w.x.push_back(barycentric_point(face_bary.data() + D * q, vertex, D));
      coefficient(co.advection, const_b, D, w.x, w.b);
      const Point3 n = mesh_.interior_normal[f];
      for (int q = 0; q < nqf; ++q) {
        double u1, u2, g[3];
        eval(w, mesh_.interface_elements[2 * i], w.x[q], u1, g);
        eval(w, mesh_.interface_elements[2 * i + 1], w.x[q], u2, g);
        const double weight = face_weight[q] * mesh_.interior_measure[f] * share, jump = u1 - u2;
        const double bn = w.b[q * D] * n.x + w.b[q * D + 1] * n.y + (D == 3 ? w.b[q * D + 2] * n.z : 0);
        out[4] += weight * interior_sigma_[f] * jump * jump;
        out[5] += 0.5 * weight * std::abs(bn) * jump * jump;
      }
    }
  });
  // boundary sub-faces, element by element
  sum_over(owned_, parallel, 6, sums, make_scratch, [&](index_t e, Scratch& w, double* out) {
    for (index_t f = mesh_.boundary_start[e]; f < mesh_.boundary_start[e + 1]; ++f) {
      w.x.clear();
      Point3 vertex[3];
      for (int v = 0; v < D; ++v) vertex[v] = mesh_.nodes[mesh_.boundary_vertices[D * f + v]];
      for (int q = 0; q < nqf; ++q) w.x.push_back(barycentric_point(face_bary.data() + D * q, vertex, D));
      w.u.resize(nqf);
      exact(w.x, w.u.data());
      coefficient(co.advection, const_b, D, w.x, w.b);
      const Point3 n = mesh_.boundary_normal[f];
      const bool neumann = !co.neumann_tag.empty() && co.neumann_tag[mesh_.boundary_tag[f]];
      for (int q = 0; q < nqf; ++q) {
        double uh, g[3];
        eval(w, e, w.x[q], uh, g);
        const double weight = face_weight[q] * mesh_.boundary_measure[f], err = w.u[q] - uh;
        const double bn = w.b[q * D] * n.x + w.b[q * D + 1] * n.y + (D == 3 ? w.b[q * D + 2] * n.z : 0);
        if (!neumann) out[4] += weight * boundary_sigma_[f] * err * err;
        out[5] += 0.5 * weight * std::abs(bn) * err * err;
      }
    }
  });
  Integrals out;
  out.l2 = sums[0];
  out.h1 = sums[1];
  out.energy = sums[2];
  out.reactive = sums[3];
  out.jumps = sums[4];
  out.advective = sums[5];
  return out;
}

std::vector<double> SipgDiscretisation::sample_at_fine_vertices(const std::vector<double>& solution) const {
  const int D = mesh_.dimension;
  const index_t fine = mesh_.n_fine_elements();
  std::vector<double> out((D + 1) * fine);
#pragma omp parallel
  {
    std::vector<Point3> x(D + 1);
#pragma omp for schedule(static)
    for (index_t fe = 0; fe < fine; ++fe) {
      for (int v = 0; v <= D; ++v) x[v] = mesh_.nodes[mesh_.fine_vertices[(D + 1) * fe + v]];
      evaluate(solution, mesh_.agglomerate_of[fe], x, out.data() + (D + 1) * fe);
    }
  }
  return out;
}

}  // namespace flowdg::poly
