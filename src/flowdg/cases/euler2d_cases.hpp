#pragma once
// Built-in 2D Euler problems: initial data, exact solutions and prescribed boundary states, as
// one small struct that kernels evaluate point-wise (no virtual calls on the device).
#include <cmath>
#include <string>
#include <vector>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler.hpp"

namespace flowdg::euler2d {

enum class FlowKind : int {
  uniform,             ///< constant state (free stream)
  isentropic_vortex,   ///< Shu's isentropic vortex advected by a uniform flow (exact at all t)
  supersonic_vortex,   ///< steady supersonic flow between two circular arcs (exact, steady)
  double_mach,         ///< Woodward-Colella: a Mach 10 shock at 60 degrees moving along a wall
};

/// A flow field U(x, y, t). Parameters not used by a kind are ignored.
struct Flow {
  FlowKind kind = FlowKind::uniform;
  Gas gas{};
  Primitive state{1.0, 0.0, 0.0, 1.0};  ///< uniform: the state; vortex: the background flow
  // isentropic vortex
  double strength = 5.0;                ///< beta
  double center_x = 0.0, center_y = 0.0;
  double period_x = 0.0, period_y = 0.0;  ///< periodic domain lengths (0: not periodic)
  // supersonic vortex
  double mach_inner = 2.25;             ///< M_i at r = r_inner
  double r_inner = 1.0;
  // double Mach reflection
  double shock_x0 = 1.0 / 6.0;          ///< where the shock meets the wall at t = 0

  FLOWDG_HD State operator()(double x, double y, double t) const {
    switch (kind) {
      case FlowKind::isentropic_vortex: return isentropic_vortex(x, y, t);
      case FlowKind::supersonic_vortex: return supersonic_vortex(x, y);
      case FlowKind::double_mach: return double_mach(x, y, t);
      default: return to_conservative(state, gas);
    }
  }

  /// Shu's vortex: velocity perturbation beta/(2 pi) exp((1 - r^2)/2) (-dy, dx), temperature
  /// T = 1 - (gamma-1) beta^2 / (8 gamma pi^2) exp(1 - r^2), rho = T^(1/(gamma-1)), p = rho^gamma,
  /// on top of the background (rho, u, v, p) = (1, u_inf, v_inf, 1). On a periodic domain the
  /// centre is wrapped to the nearest image, which is exact while the domain is large enough for
  /// exp(-r^2/2) to vanish at its edges (1e-21 for a half-width of 10).
  FLOWDG_HD State isentropic_vortex(double x, double y, double t) const {
    const double pi = 3.14159265358979323846;
    double dx = x - center_x - state.u * t;
    double dy = y - center_y - state.v * t;
    if (period_x > 0) dx -= period_x * std::floor(dx / period_x + 0.5);
    if (period_y > 0) dy -= period_y * std::floor(dy / period_y + 0.5);
    const double r2 = dx * dx + dy * dy;
    const double g = gas.gamma;
    const double amplitude = strength / (2.0 * pi) * std::exp(0.5 * (1.0 - r2));
    const double temperature =
        1.0 - (g - 1.0) * strength * strength / (8.0 * g * pi * pi) * std::exp(1.0 - r2);
    const double rho = std::pow(temperature, 1.0 / (g - 1.0));
    const Primitive w{rho, state.u - amplitude * dy, state.v + amplitude * dx, rho * temperature};
    return to_conservative(w, gas);
  }

  /// Double Mach reflection (2015 paper, section 5.2): post-shock (8, 8.25 cos 30, -8.25 sin 30,
  /// 116.5) behind the exact shock x = x0 + (y + 20 t) / sqrt(3) (60 degrees to the wall, speed
  /// 10), pre-shock (1.4, 0, 0, 1) ahead of it. Used for the initial data and the top and inflow
  /// boundaries.
  FLOWDG_HD State double_mach(double x, double y, double t) const {
    const double sqrt3 = 1.73205080756887729353;
    const Primitive post{8.0, 8.25 * 0.5 * sqrt3, -8.25 * 0.5, 116.5};
    const Primitive pre{1.4, 0.0, 0.0, 1.0};
    return to_conservative(x < shock_x0 + (y + 20.0 * t) / sqrt3 ? post : pre, gas);
  }

  /// Supersonic vortex (2015 paper, section 5.1): rho = (1 + (g-1)/2 M_i^2 (1 - r_i^2/r^2))^(1/(g-1)),
  /// speed M_i r_i / r counter-clockwise, p = rho^g / g (so the sound speed is 1 at r_i).
  FLOWDG_HD State supersonic_vortex(double x, double y) const {
    const double g = gas.gamma;
    const double r2 = x * x + y * y;
    const double ratio = r_inner * r_inner / r2;
    const double rho = std::pow(1.0 + 0.5 * (g - 1.0) * mach_inner * mach_inner * (1.0 - ratio),
                                1.0 / (g - 1.0));
    const double speed_over_r = mach_inner * r_inner / r2;  // |v| / r
    const Primitive w{rho, -speed_over_r * y, speed_over_r * x, std::pow(rho, g) / g};
    return to_conservative(w, gas);
  }
};

}  // namespace flowdg::euler2d
