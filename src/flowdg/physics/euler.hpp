#pragma once
// Two-dimensional compressible Euler equations for a calorically perfect gas, as in Fuhry,
// Giuliani & Krivodonova (2015), Eq. (20)-(21):
//   d/dt U + d/dx F(U) + d/dy G(U) = 0,   U = (rho, rho u, rho v, E),
//   F = (rho u, rho u^2 + p, rho u v, u (E + p)),   G = (rho v, rho u v, rho v^2 + p, v (E + p)),
//   p = (gamma - 1) (E - rho |v|^2 / 2),   c = sqrt(gamma p / rho).
// Everything here runs per quadrature point inside kernels: fixed-size values, no heap, no throw.
#include <cmath>

#include "flowdg/core/hd.hpp"

namespace flowdg::euler2d {

inline constexpr int n_variables = 4;

/// Conserved variables (rho, rho u, rho v, E).
struct State {
  double v[n_variables];
  FLOWDG_HD double& operator[](int i) { return v[i]; }
  FLOWDG_HD double operator[](int i) const { return v[i]; }
};

FLOWDG_HD inline State operator+(const State& a, const State& b) {
  return {{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]}};
}
FLOWDG_HD inline State operator-(const State& a, const State& b) {
  return {{a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]}};
}
FLOWDG_HD inline State operator*(double s, const State& a) {
  return {{s * a[0], s * a[1], s * a[2], s * a[3]}};
}
FLOWDG_HD inline State operator*(const State& a, double s) { return s * a; }

struct Gas {
  double gamma = 1.4;
};

struct Primitive {
  double rho, u, v, p;
};

FLOWDG_HD inline double pressure(const State& U, const Gas& gas) {
  return (gas.gamma - 1.0) * (U[3] - 0.5 * (U[1] * U[1] + U[2] * U[2]) / U[0]);
}

FLOWDG_HD inline double sound_speed(const State& U, const Gas& gas) {
  return std::sqrt(gas.gamma * pressure(U, gas) / U[0]);
}

/// F(U) nx + G(U) ny.
FLOWDG_HD inline State normal_flux(const State& U, double nx, double ny, const Gas& gas) {
  const double p = pressure(U, gas);
  const double normal_velocity = (U[1] * nx + U[2] * ny) / U[0];
  return {{U[0] * normal_velocity, U[1] * normal_velocity + p * nx, U[2] * normal_velocity + p * ny,
           (U[3] + p) * normal_velocity}};
}

FLOWDG_HD inline void flux(const State& U, const Gas& gas, State& Fx, State& Fy) {
  const double p = pressure(U, gas);
  const double u = U[1] / U[0];
  const double v = U[2] / U[0];
  Fx = {{U[1], U[1] * u + p, U[2] * u, (U[3] + p) * u}};
  Fy = {{U[2], U[1] * v, U[2] * v + p, (U[3] + p) * v}};
}

/// Largest |eigenvalue| of the flux Jacobian along the unit normal n: |v.n| + c.
FLOWDG_HD inline double max_wave_speed(const State& U, double nx, double ny, const Gas& gas) {
  return std::abs((U[1] * nx + U[2] * ny) / U[0]) + sound_speed(U, gas);
}

/// Largest wave speed over all directions: |v| + c.
FLOWDG_HD inline double max_wave_speed(const State& U, const Gas& gas) {
  return std::sqrt(U[1] * U[1] + U[2] * U[2]) / U[0] + sound_speed(U, gas);
}

FLOWDG_HD inline State to_conservative(const Primitive& W, const Gas& gas) {
  return {{W.rho, W.rho * W.u, W.rho * W.v,
           W.p / (gas.gamma - 1.0) + 0.5 * W.rho * (W.u * W.u + W.v * W.v)}};
}

FLOWDG_HD inline Primitive to_primitive(const State& U, const Gas& gas) {
  return {U[0], U[1] / U[0], U[2] / U[0], pressure(U, gas)};
}

/// A state the fluxes can be evaluated at: finite, positive density and pressure.
FLOWDG_HD inline bool is_admissible(const State& U, const Gas& gas) {
  for (int i = 0; i < n_variables; ++i)
    if (!std::isfinite(U[i])) return false;
  // A NaN pressure (overflow in the kinetic energy) fails the comparison too.
  return U[0] > 0.0 && pressure(U, gas) > 0.0;
}

/// Eigenvectors of the flux Jacobian d(F(U).n)/dU at U for the unit normal n: the columns of
/// `right` are the acoustic (v.n - c), entropy, shear and acoustic (v.n + c) waves; `left` is its
/// inverse, so left * U are the characteristic variables.
FLOWDG_HD inline void characteristic_matrices(const State& U, double nx, double ny, const Gas& gas,
                                              double (&right)[4][4], double (&left)[4][4]) {
  const double u = U[1] / U[0], v = U[2] / U[0];
  const double c = sound_speed(U, gas);
  const double kinetic = 0.5 * (u * u + v * v);
  const double enthalpy = (U[3] + pressure(U, gas)) / U[0];
  const double normal = u * nx + v * ny, tangential = -u * ny + v * nx;
  const double b1 = (gas.gamma - 1.0) / (c * c), b2 = b1 * kinetic;
  const double columns[4][4] = {{1.0, u - c * nx, v - c * ny, enthalpy - c * normal},
                                {1.0, u, v, kinetic},
                                {0.0, -ny, nx, tangential},
                                {1.0, u + c * nx, v + c * ny, enthalpy + c * normal}};
  for (int row = 0; row < 4; ++row)
    for (int column = 0; column < 4; ++column) right[row][column] = columns[column][row];
  const double rows[4][4] = {
      {0.5 * (b2 + normal / c), -0.5 * (b1 * u + nx / c), -0.5 * (b1 * v + ny / c), 0.5 * b1},
      {1.0 - b2, b1 * u, b1 * v, -b1},
      {-tangential, -ny, nx, 0.0},
      {0.5 * (b2 - normal / c), -0.5 * (b1 * u - nx / c), -0.5 * (b1 * v - ny / c), 0.5 * b1}};
  for (int row = 0; row < 4; ++row)
    for (int column = 0; column < 4; ++column) left[row][column] = rows[row][column];
}

}  // namespace flowdg::euler2d
