#pragma once
// Run-time choice of the numerical flux; the DG operator dispatches it to a kernel instantiation.
#include <string>

namespace flowdg::euler2d {

enum class RiemannSolver { rusanov, hllc, roe };

/// "rusanov" (aliases "llf", "lax-friedrichs"), "hllc" or "roe"; anything else throws InputError.
RiemannSolver parse_riemann_solver(const std::string& name);

}  // namespace flowdg::euler2d
