#pragma once
// Roe flux with Harten's entropy fix.
//   F = (f(U_m).n + f(U_p).n) / 2 - |A(U~)| (U_p - U_m) / 2,
// with A(U~) the flux Jacobian along n at Roe's average U~, decomposed into the acoustic waves
// v~.n -+ c~ and the entropy and shear waves v~.n (Toro, "Riemann Solvers and Numerical Methods for
// Fluid Dynamics", Sec. 11.2, written for an arbitrary unit normal).
//
// Harten's (1983) fix replaces |lambda| of the two acoustic waves, where |lambda| < delta, by
// (lambda^2 + delta^2) / (2 delta), with delta = entropy_fix * (|v~.n| + c~): a C^1 modification that
// keeps dissipation at a sonic point, so a stationary expansion shock breaks into a rarefaction.
// The linear (entropy and shear) waves keep |v~.n|, so a stationary contact stays exact.
#include <cmath>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler.hpp"

namespace flowdg::euler2d {

/// Roe's density-weighted average: f(U_p) - f(U_m) = A(U~) (U_p - U_m) holds exactly.
struct RoeAverage {
  double rho, u, v, enthalpy, c;
};

FLOWDG_HD inline RoeAverage roe_average(const State& Um, const State& Up, const Gas& gas) {
  const double root_m = std::sqrt(Um[0]);
  const double root_p = std::sqrt(Up[0]);
  const double weight = 1.0 / (root_m + root_p);
  const double u = (Um[1] / root_m + Up[1] / root_p) * weight;
  const double v = (Um[2] / root_m + Up[2] / root_p) * weight;
  const double enthalpy =
      ((Um[3] + pressure(Um, gas)) / root_m + (Up[3] + pressure(Up, gas)) / root_p) * weight;
  const double c = std::sqrt((gas.gamma - 1.0) * (enthalpy - 0.5 * (u * u + v * v)));
  return {root_m * root_p, u, v, enthalpy, c};
}

struct RoeFlux {
  double entropy_fix = 0.1;

  FLOWDG_HD static double harten_absolute(double lambda, double delta) {
    const double magnitude = std::abs(lambda);
    return magnitude >= delta ? magnitude : 0.5 * (lambda * lambda + delta * delta) / delta;
  }

  /// Flux through the face along the unit normal n pointing from the minus to the plus side.
  FLOWDG_HD State operator()(const State& Um, const State& Up, double nx, double ny,
                             const Gas& gas) const {
    const RoeAverage average = roe_average(Um, Up, gas);
    const double c = average.c;
    const double normal_velocity = average.u * nx + average.v * ny;

    const double jump_rho = Up[0] - Um[0];
    const double jump_p = pressure(Up, gas) - pressure(Um, gas);
    const double jump_u = Up[1] / Up[0] - Um[1] / Um[0];
    const double jump_v = Up[2] / Up[0] - Um[2] / Um[0];
    const double jump_normal = jump_u * nx + jump_v * ny;
    const double jump_tangential_u = jump_u - jump_normal * nx;
    const double jump_tangential_v = jump_v - jump_normal * ny;

    const double strength_minus = (jump_p - average.rho * c * jump_normal) / (2.0 * c * c);
    const double strength_plus = (jump_p + average.rho * c * jump_normal) / (2.0 * c * c);
    const double strength_entropy = jump_rho - jump_p / (c * c);

    const double delta = entropy_fix * (std::abs(normal_velocity) + c);
    const double speed_minus = harten_absolute(normal_velocity - c, delta) * strength_minus;
    const double speed_plus = harten_absolute(normal_velocity + c, delta) * strength_plus;
    const double speed_linear = std::abs(normal_velocity);

    const State dissipation{{
        speed_minus + speed_plus + speed_linear * strength_entropy,
        speed_minus * (average.u - c * nx) + speed_plus * (average.u + c * nx) +
            speed_linear * (strength_entropy * average.u + average.rho * jump_tangential_u),
        speed_minus * (average.v - c * ny) + speed_plus * (average.v + c * ny) +
            speed_linear * (strength_entropy * average.v + average.rho * jump_tangential_v),
        speed_minus * (average.enthalpy - normal_velocity * c) +
            speed_plus * (average.enthalpy + normal_velocity * c) +
            speed_linear * (strength_entropy * 0.5 * (average.u * average.u + average.v * average.v) +
                            average.rho * (average.u * jump_tangential_u + average.v * jump_tangential_v)),
    }};
    return 0.5 * (normal_flux(Um, nx, ny, gas) + normal_flux(Up, nx, ny, gas) - dissipation);
  }
};

}  // namespace flowdg::euler2d
