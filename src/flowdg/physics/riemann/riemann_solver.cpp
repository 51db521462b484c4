#include "flowdg/physics/riemann/riemann_solver.hpp"

#include "flowdg/core/error.hpp"

namespace flowdg::euler2d {

RiemannSolver parse_riemann_solver(const std::string& name) {
  if (name == "rusanov" || name == "llf" || name == "lax-friedrichs") return RiemannSolver::rusanov;
  if (name == "hllc") return RiemannSolver::hllc;
  if (name == "roe") return RiemannSolver::roe;
  throw InputError(cat("unknown Riemann solver '", name,
                       "'; valid names are rusanov (or llf, lax-friedrichs), hllc, roe"));
}

}  // namespace flowdg::euler2d
