#pragma once
// Case files shared by the tests of the generic loop (run_test.cpp, interrupt_test.cpp).

namespace flowdg::testing {

/// Shu's vortex on 6 x 6 perturbed quadrilaterals (curved geometry: the portable kernels), the
/// exact state prescribed on the boundary, SSP-RK3, 12 steps.
inline const char* const quadrilateral_vortex_case = R"(
[case]
name = "quad-vortex"
[mesh]
file = "builtin:rectangle?nx=6&ny=6&x0=-3&x1=3&y0=-3&y1=3&cells=quadrilaterals&perturbation=0.15"
[flow]
kind = "isentropic-vortex"
u = 1.0
v = 1.0
[solver]
order = 2
[time]
scheme = "ssp-rk3"
cfl = 0.3
max_steps = 12
[boundary.left]
type = "prescribed"
[boundary.right]
type = "prescribed"
[boundary.bottom]
type = "prescribed"
[boundary.top]
type = "prescribed"
)";

}  // namespace flowdg::testing
