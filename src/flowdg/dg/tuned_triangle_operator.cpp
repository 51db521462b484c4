// The registry's specialisation for (Euler<2>, straight triangles, affine, double, any order, CPU
// or CUDA): the hand-tuned 2D Euler solver (dg/euler2d.hpp, its CUDA element kernels thread /
// block / tensor and face kernels point / block / warp, the limiter and positivity scaling) behind
// the core's Operator interface. Its numbers are the core's to 1e-11
// (DgCore.AffineTrianglesReproduceTheTunedTriangleSolver); it stays a separate engine until its
// kernels run on the core's group data (issue 14's next step).
#include "flowdg/dg/tuned_triangle_operator.hpp"

#include <cmath>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d.hpp"
#include "flowdg/dg/groups.hpp"
#include "flowdg/element/basis.hpp"

namespace flowdg::dg {

euler2d::Flow tuned_flow(const FlowSpec& spec, double gamma) {
  physics::check_supported(spec, 2, gamma);
  euler2d::Flow flow;
  switch (spec.kind) {
    case physics::FlowKind::uniform: flow.kind = euler2d::FlowKind::uniform; break;
    case physics::FlowKind::isentropic_vortex: flow.kind = euler2d::FlowKind::isentropic_vortex; break;
    case physics::FlowKind::supersonic_vortex: flow.kind = euler2d::FlowKind::supersonic_vortex; break;
    case physics::FlowKind::double_mach: flow.kind = euler2d::FlowKind::double_mach; break;
  }
  flow.gas.gamma = gamma;
  flow.state = {spec.density, spec.velocity.x, spec.velocity.y, spec.pressure};
  if (spec.kind == physics::FlowKind::isentropic_vortex) flow.state.rho = flow.state.p = 1.0;  // Shu's background
  flow.strength = spec.strength;
  flow.center_x = spec.center.x;
  flow.center_y = spec.center.y;
  flow.period_x = spec.period.x;
  flow.period_y = spec.period.y;
  flow.mach_inner = spec.mach_inner;
  flow.r_inner = spec.r_inner;
  flow.shock_x0 = spec.shock_x0;
  return flow;
}

namespace {

euler2d::BoundaryKind tuned_boundary(physics::BoundaryKind kind) {
  switch (kind) {
    case physics::BoundaryKind::slip_wall:
    case physics::BoundaryKind::symmetry: return euler2d::BoundaryKind::slip_wall;  // the same state for Euler
    case physics::BoundaryKind::curvature_wall: return euler2d::BoundaryKind::curvature_wall;
    case physics::BoundaryKind::inflow: return euler2d::BoundaryKind::inflow;
    case physics::BoundaryKind::outflow: return euler2d::BoundaryKind::outflow;
    case physics::BoundaryKind::farfield: return euler2d::BoundaryKind::farfield;
    case physics::BoundaryKind::prescribed: return euler2d::BoundaryKind::prescribed;
  }
  return euler2d::BoundaryKind::slip_wall;
}

template <class Enum>
Enum kernel_variant(const std::string& name, const std::vector<std::string>& names, const char* what) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  std::string valid;
  for (const std::string& n : names) valid += (valid.empty() ? "" : ", ") + n;
  throw InputError(cat("unknown ", what, " kernel '", name, "' (valid: ", valid, ")"));
}

class TunedTriangleOperator final : public Operator {
 public:
  TunedTriangleOperator(const Mesh& mesh, const Connectivity& connectivity, const OperatorOptions& options)
      : gamma_(options.gamma) {
    const euler2d::SolverOptions tuned = tuned_solver_options(options);
    solver_ = std::make_unique<euler2d::Solver>(mesh, connectivity, tuned);
    groups_ = build_groups(mesh, connectivity, std::vector<GeometryKind>(mesh.n_elements(), GeometryKind::affine),
                           std::vector<int>(mesh.n_elements(), 1));
  }

  int dimension() const override { return 2; }
  int n_variables() const override { return 4; }
  int order() const override { return solver_->order(); }
  Precision precision() const override { return Precision::double_precision; }
  index_t n_elements() const override { return solver_->n_elements(); }
  index_t dof() const override { return solver_->dof(); }
  const Groups& groups() const override { return groups_; }
  std::string describe() const override {
    return cat(solver_->n_elements(), " affine triangles (tuned 2D Euler kernels); ", groups_.faces.size(), " faces");
  }
  std::string implementation() const override { return "tuned 2D Euler triangle kernels"; }
  /// The model of Solver::time_kernels (faces + element; the limiter not counted).
  double stage_bytes(const RungeKuttaScheme& scheme) const override {
    const double word = sizeof(double), K = static_cast<double>(solver_->n_elements());
    const double Nfq = solver_->order() + 1, state = 4.0 * solver_->n_basis() * word, face_flux = 4 * Nfq * word;
    double boundary = 0;
    for (const FaceGroup& group : groups_.face_groups)
      if (group.boundary()) boundary += static_cast<double>(group.size());
    const double faces = static_cast<double>(groups_.faces.size());
    const double face_ids = 3 * word + 2 * sizeof(index_t) + 2 * sizeof(int);
    const double element = (2 + register_words_per_stage(scheme)) * state + 5 * word + 3 * sizeof(index_t) + 3 * face_flux;
    return K * state + faces * (face_ids + face_flux) + boundary * 2 * Nfq * word + K * element;
  }

  void project(const FlowSpec& flow, double t) override { solver_->project(tuned_flow(flow, gamma_), t); }
  double stable_time_step(double cfl) const override { return solver_->stable_time_step(cfl); }
  void step(const RungeKuttaScheme& scheme, double t, double dt, bool monitor_change = false) override {
    solver_->step(scheme, t, dt, monitor_change);
  }
  double last_change() const override { return solver_->last_change(); }
  std::vector<double> residual(double t) override { return solver_->residual(t); }
  Norms errors(const FlowSpec& exact, double t) const override {
    const euler2d::ErrorNorms norms = solver_->errors(tuned_flow(exact, gamma_), t);
    return {std::vector<double>(norms.l2.begin(), norms.l2.end()), std::vector<double>(norms.linf.begin(), norms.linf.end())};
  }
  std::vector<double> totals() const override {
    const auto totals = solver_->totals();
    return {totals.begin(), totals.end()};
  }
  std::vector<double> coefficients() const override { return solver_->coefficients(); }
  void set_coefficients(const std::vector<double>& values) override { solver_->set_coefficients(values); }
  void apply_limiter() override { solver_->apply_limiter(); }
  void save_snapshot() override { solver_->save_snapshot(); }
  std::vector<double> snapshot() const override { return solver_->snapshot(); }
  std::string describe_bad_state() const override { return solver_->describe_bad_state(); }

  std::vector<PointValues> evaluate(const std::vector<std::vector<Point3>>& points_by_shape) const override {
    const auto index = static_cast<std::size_t>(Shape::triangle);
    FLOWDG_ASSERT(index < points_by_shape.size() && !points_by_shape[index].empty(), "no output points for triangles");
    const std::vector<Point3>& points = points_by_shape[index];
    const int Np = solver_->n_basis(), n_points = static_cast<int>(points.size());
    const index_t K = solver_->n_elements();
    std::vector<double> phi(static_cast<std::size_t>(n_points) * Np);
    for (int k = 0; k < n_points; ++k) basis_values(Shape::triangle, solver_->order(), points[k], &phi[k * Np]);
    const std::vector<double> u = solver_->coefficients();
    const std::vector<Point3>& vertices = solver_->vertices();
    PointValues block;
    block.shape = Shape::triangle;
    block.elements.resize(K);
    block.points.resize(static_cast<std::size_t>(K) * n_points);
    block.values.resize(static_cast<std::size_t>(K) * n_points * 4);
#pragma omp parallel for schedule(static)
    for (index_t e = 0; e < K; ++e) {
      block.elements[e] = e;
      const Point3* v = &vertices[3 * e];
      for (int k = 0; k < n_points; ++k) {
        const double a = 0.5 * (1.0 + points[k].x), b = 0.5 * (1.0 + points[k].y);
        block.points[e * n_points + k] = v[0] + a * (v[1] - v[0]) + b * (v[2] - v[0]);
        for (int c = 0; c < 4; ++c) {
          double value = 0;
          for (int j = 0; j < Np; ++j) value += u[(static_cast<index_t>(c) * Np + j) * K + e] * phi[k * Np + j];
          block.values[(e * n_points + k) * 4 + c] = value;
        }
      }
    }
    return {std::move(block)};
  }

  euler2d::Solver& solver() { return *solver_; }

 private:
  double gamma_;
  std::unique_ptr<euler2d::Solver> solver_;
  Groups groups_;
};

}  // namespace

euler2d::SolverOptions tuned_solver_options(const OperatorOptions& options) {
  euler2d::SolverOptions tuned;
  tuned.order = options.order;
  tuned.flux = options.flux == physics::RiemannKind::rusanov ? euler2d::RiemannSolver::rusanov
               : options.flux == physics::RiemannKind::roe   ? euler2d::RiemannSolver::roe
                                                              : euler2d::RiemannSolver::hllc;
  tuned.limiter = options.limiter == Limiter::barth_jespersen ? euler2d::Limiter::barth_jespersen : euler2d::Limiter::none;
  tuned.characteristic_limiting = options.characteristic_limiting;
  tuned.positivity = options.positivity;
  tuned.element_kernel =
      kernel_variant<euler2d::GpuElementKernel>(options.element_kernel, {"automatic", "thread", "block", "tensor"}, "element");
  tuned.face_kernel = kernel_variant<euler2d::GpuFaceKernel>(options.face_kernel, {"automatic", "point", "block", "warp"}, "face");
  tuned.chained_launches = options.chained_launches;
  tuned.faces_by_element = options.faces_by_element;
  tuned.gas.gamma = options.gamma;
  tuned.backend = options.backend;
  for (const BoundarySpec& spec : options.boundary) {
    euler2d::BoundaryCondition condition;
    condition.kind = tuned_boundary(spec.kind);
    condition.flow = tuned_flow(spec.flow, options.gamma);
    condition.center_x = spec.center.x;
    condition.center_y = spec.center.y;
    tuned.boundary.push_back(condition);
  }
  return tuned;
}

bool tuned_triangles_apply(const Mesh& mesh, const OperatorOptions& options) {
  if (mesh.dimension != 2 || options.precision != Precision::double_precision) return false;
  for (ElementType type : mesh.element_types)
    if (type != ElementType::triangle3) return false;
  return true;
}

std::unique_ptr<Operator> make_tuned_triangle_operator(const Mesh& mesh, const Connectivity& connectivity,
                                                       const OperatorOptions& options) {
  if (!tuned_triangles_apply(mesh, options))
    throw InputError(cat("the tuned 2D Euler kernels run double-precision meshes of 3-node triangles only; ", mesh.source,
                         " needs the portable kernels (solver.kernels = \"portable\" or \"automatic\")"));
  return std::make_unique<TunedTriangleOperator>(mesh, connectivity, options);
}

}  // namespace flowdg::dg
