// The tuned 2D Euler kernels' options and flows from the core's: what the core's tuned triangle
// groups (tuned_triangles.hpp) and the stand-alone euler2d::Solver (the benchmark's and the
// reference states' engine) are configured with.
#include "flowdg/dg/tuned_triangle_operator.hpp"

#include <cmath>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d.hpp"

namespace flowdg::dg {

euler2d::Flow tuned_flow(const FlowSpec& spec, double gamma) {
  physics::check_supported(spec, 2, gamma);
  euler2d::Flow flow;
  switch (spec.kind) {
    case physics::FlowKind::uniform: flow.kind = euler2d::FlowKind::uniform; break;
    case physics::FlowKind::isentropic_vortex: flow.kind = euler2d::FlowKind::isentropic_vortex; break;
    case physics::FlowKind::supersonic_vortex: flow.kind = euler2d::FlowKind::supersonic_vortex; break;
    case physics::FlowKind::double_mach: flow.kind = euler2d::FlowKind::double_mach; break;
    case physics::FlowKind::couette:
      throw InputError("flow 'couette' is a viscous flow: the tuned 2D Euler kernels cannot evaluate it");
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
  FLOWDG_ASSERT(tuned_boundary_supported(kind), "the tuned triangle kernels have no boundary condition '",
                physics::boundary_kind_name(kind), "' (TunedTriangles::runs leaves it to the portable kernels)");
  switch (kind) {
    case physics::BoundaryKind::slip_wall:
    case physics::BoundaryKind::symmetry: return euler2d::BoundaryKind::slip_wall;  // the same state for Euler
    case physics::BoundaryKind::curvature_wall: return euler2d::BoundaryKind::curvature_wall;
    case physics::BoundaryKind::inflow: return euler2d::BoundaryKind::inflow;
    case physics::BoundaryKind::outflow: return euler2d::BoundaryKind::outflow;
    case physics::BoundaryKind::farfield: return euler2d::BoundaryKind::farfield;
    case physics::BoundaryKind::prescribed: return euler2d::BoundaryKind::prescribed;
    default: break;
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
    // A kind the tuned kernels lack keeps a placeholder: its face group runs the portable kernel.
    condition.kind = tuned_boundary_supported(spec.kind) ? tuned_boundary(spec.kind) : euler2d::BoundaryKind::slip_wall;
    condition.flow = tuned_flow(spec.flow, options.gamma);
    condition.center_x = spec.center.x;
    condition.center_y = spec.center.y;
    tuned.boundary.push_back(condition);
  }
  return tuned;
}

bool tuned_boundary_supported(physics::BoundaryKind kind) {
  switch (kind) {
    case physics::BoundaryKind::slip_wall:
    case physics::BoundaryKind::symmetry:
    case physics::BoundaryKind::curvature_wall:
    case physics::BoundaryKind::inflow:
    case physics::BoundaryKind::outflow:
    case physics::BoundaryKind::farfield:
    case physics::BoundaryKind::prescribed: return true;
    default: return false;
  }
}

bool tuned_triangles_apply(const Mesh& mesh, const OperatorOptions& options) {
  if (mesh.dimension != 2 || options.precision != Precision::double_precision) return false;
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    if (mesh.element_shape(e) != Shape::triangle) return false;
  return true;
}

}  // namespace flowdg::dg
