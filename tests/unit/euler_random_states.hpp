#pragma once
// Seeded random admissible Euler states and unit normals shared by the physics tests.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "flowdg/physics/euler.hpp"

namespace flowdg::euler2d::test_support {

/// Density and pressure over two decades, Mach 0 to 3 in any direction.
inline State random_state(std::mt19937_64& rng, const Gas& gas) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double rho = std::pow(10.0, 2.0 * unit(rng) - 1.0);
  const double p = std::pow(10.0, 2.0 * unit(rng) - 1.0);
  const double speed = 3.0 * unit(rng) * std::sqrt(gas.gamma * p / rho);
  const double angle = 2.0 * std::numbers::pi * unit(rng);
  return to_conservative({rho, speed * std::cos(angle), speed * std::sin(angle), p}, gas);
}

inline void random_normal(std::mt19937_64& rng, double& nx, double& ny) {
  const double angle = std::uniform_real_distribution<double>(0.0, 2.0 * std::numbers::pi)(rng);
  nx = std::cos(angle);
  ny = std::sin(angle);
}

/// Per component, a bound on |f(U).n| and on the dissipation s |U| of a flux between U_m and U_p,
/// with s the larger of their |v| + c: rho s for mass, rho s^2 for momentum, (E + p) s for energy,
/// each with the larger side's rho and E + p. Flux tolerances are relative to it, since a single
/// component may vanish.
inline State flux_scale(const State& Um, const State& Up, const Gas& gas) {
  const double speed = std::max(max_wave_speed(Um, gas), max_wave_speed(Up, gas));
  const double rho = std::max(Um[0], Up[0]);
  const double enthalpy = std::max(Um[3] + pressure(Um, gas), Up[3] + pressure(Up, gas));
  return {{rho * speed, rho * speed * speed, rho * speed * speed, enthalpy * speed}};
}

inline State flux_scale(const State& U, const Gas& gas) { return flux_scale(U, U, gas); }

/// max_i |a_i - b_i| / scale_i.
inline double scaled_difference(const State& a, const State& b, const State& scale) {
  double largest = 0.0;
  for (int i = 0; i < n_variables; ++i) largest = std::max(largest, std::abs(a[i] - b[i]) / scale[i]);
  return largest;
}

}  // namespace flowdg::euler2d::test_support
