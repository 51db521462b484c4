#pragma once
// Rusanov (local Lax-Friedrichs) flux:
//   F = (f(U_m).n + f(U_p).n) / 2 - s (U_p - U_m) / 2,   s = max(|v_m.n| + c_m, |v_p.n| + c_p).
// The most dissipative of the three solvers, and the most robust: it needs no averaged state.
#include <cmath>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler.hpp"

namespace flowdg::euler2d {

struct RusanovFlux {
  /// Flux through the face along the unit normal n pointing from the minus to the plus side.
  FLOWDG_HD State operator()(const State& Um, const State& Up, double nx, double ny,
                             const Gas& gas) const {
    const double speed = std::fmax(max_wave_speed(Um, nx, ny, gas), max_wave_speed(Up, nx, ny, gas));
    return 0.5 * (normal_flux(Um, nx, ny, gas) + normal_flux(Up, nx, ny, gas)) - (0.5 * speed) * (Up - Um);
  }
};

}  // namespace flowdg::euler2d
