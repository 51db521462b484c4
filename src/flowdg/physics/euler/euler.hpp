#pragma once
// Compressible Euler equations for a calorically perfect gas in Dim = 2 or 3 space dimensions,
// the d-dimensional form of Fuhry, Giuliani & Krivodonova (2015), Eq. (20)-(21):
//   d/dt U + sum_d d/dx_d F_d(U) = 0,   U = (rho, rho v_1, ..., rho v_Dim, E),
//   F_d = (rho v_d, rho v_1 v_d + p delta_1d, ..., rho v_Dim v_d + p delta_Dim,d, v_d (E + p)),
//   p = (gamma - 1) (E - rho |v|^2 / 2),   c = sqrt(gamma p / rho).
// Written once for both dimensions and both precisions: every literal is Real(...), so the float
// instantiation does no double arithmetic. Everything runs per quadrature point inside kernels:
// fixed-size values, no heap, no throw (variable_name, host only, is the exception).
#include <cmath>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler/vector.hpp"

namespace flowdg::physics {

template <int Dim, class Real = double>
struct Euler {
  static_assert(Dim == 2 || Dim == 3, "Euler<Dim>: Dim is 2 or 3");

  static constexpr int dim = Dim;
  static constexpr int n_variables = Dim + 2;  ///< rho, rho v[Dim], E
  static constexpr int energy = Dim + 1;        ///< index of E in a state
  static constexpr bool has_viscous_flux = false;
  using real = Real;
  using State = Vector<Real, Dim + 2>;     ///< conserved (rho, rho v, E) or primitive (rho, v, p)
  using Direction = Vector<Real, Dim>;     ///< normals, velocities and positions

  Real gamma = Real(1.4);

  /// The velocity m / rho of a conserved state.
  FLOWDG_HD static Direction velocity(const State& u) {
    Direction velocity;
    for (int d = 0; d < Dim; ++d) velocity[d] = u[1 + d] / u[0];
    return velocity;
  }

  /// The momentum (rho v_1, ..., rho v_Dim) of a conserved state.
  FLOWDG_HD static Direction momentum(const State& u) {
    Direction momentum;
    for (int d = 0; d < Dim; ++d) momentum[d] = u[1 + d];
    return momentum;
  }

  FLOWDG_HD Real pressure(const State& u) const {
    const Direction m = momentum(u);
    return (gamma - Real(1)) * (u[energy] - Real(0.5) * dot(m, m) / u[0]);
  }
  /// The same from 1 / rho, computed once by a caller that needs it several times (a double
  /// division is a subroutine of dependent steps on the GPU).
  FLOWDG_HD Real pressure(const State& u, Real inverse_rho) const {
    const Direction m = momentum(u);
    return (gamma - Real(1)) * (u[energy] - Real(0.5) * dot(m, m) * inverse_rho);
  }

  FLOWDG_HD Real sound_speed(const State& u) const { return std::sqrt(gamma * pressure(u) / u[0]); }
  FLOWDG_HD Real sound_speed(const State& u, Real inverse_rho) const { return std::sqrt(gamma * pressure(u, inverse_rho) * inverse_rho); }

  /// f[d] = F_d(u), the flux along the d-th coordinate.
  FLOWDG_HD void flux(const State& u, State (&f)[Dim]) const {
    const Real inverse_rho = Real(1) / u[0];  // one division instead of Dim + 1
    const Real p = pressure(u, inverse_rho);
    for (int d = 0; d < Dim; ++d) {
      const Real velocity_d = u[1 + d] * inverse_rho;
      f[d][0] = u[1 + d];
      for (int k = 0; k < Dim; ++k) f[d][1 + k] = u[1 + k] * velocity_d;
      f[d][1 + d] += p;
      f[d][energy] = (u[energy] + p) * velocity_d;
    }
  }

  /// sum_d F_d(u) n_d.
  FLOWDG_HD State normal_flux(const State& u, const Direction& n) const {
    const Real inverse_rho = Real(1) / u[0];
    const Real p = pressure(u, inverse_rho);
    const Real normal_velocity = dot(momentum(u), n) * inverse_rho;
    State f;
    f[0] = u[0] * normal_velocity;
    for (int d = 0; d < Dim; ++d) f[1 + d] = u[1 + d] * normal_velocity + p * n[d];
    f[energy] = (u[energy] + p) * normal_velocity;
    return f;
  }

  /// Largest |eigenvalue| of the flux Jacobian along the unit normal n: |v.n| + c.
  FLOWDG_HD Real max_wave_speed(const State& u, const Direction& n) const {
    const Real inverse_rho = Real(1) / u[0];
    return std::abs(dot(momentum(u), n) * inverse_rho) + sound_speed(u, inverse_rho);
  }

  /// Largest wave speed over all directions: |v| + c.
  FLOWDG_HD Real max_wave_speed(const State& u) const {
    const Direction m = momentum(u);
    return std::sqrt(dot(m, m)) / u[0] + sound_speed(u);
  }

  /// A state the fluxes can be evaluated at: finite, positive density and pressure.
  FLOWDG_HD bool is_admissible(const State& u) const {
    for (int i = 0; i < n_variables; ++i)
      if (!std::isfinite(u[i])) return false;
    // A NaN pressure (overflow in the kinetic energy) fails the comparison too.
    return u[0] > Real(0) && pressure(u) > Real(0);
  }

  /// (rho, v, p) -> (rho, rho v, p / (gamma - 1) + rho |v|^2 / 2).
  FLOWDG_HD State to_conservative(const State& primitive) const {
    State u;
    u[0] = primitive[0];
    Direction velocity;
    for (int d = 0; d < Dim; ++d) {
      velocity[d] = primitive[1 + d];
      u[1 + d] = primitive[0] * primitive[1 + d];
    }
    u[energy] = primitive[energy] / (gamma - Real(1)) + Real(0.5) * primitive[0] * dot(velocity, velocity);
    return u;
  }

  /// (rho, rho v, E) -> (rho, v, p).
  FLOWDG_HD State to_primitive(const State& u) const {
    State primitive;
    primitive[0] = u[0];
    for (int d = 0; d < Dim; ++d) primitive[1 + d] = u[1 + d] / u[0];
    primitive[energy] = pressure(u);
    return primitive;
  }

  static constexpr const char* name() { return Dim == 2 ? "euler2d" : "euler3d"; }

  /// "density", "momentum_x", "momentum_y"[, "momentum_z"], "energy"; nullptr out of range.
  static const char* variable_name(int i) {
    static constexpr const char* momentum_names[3] = {"momentum_x", "momentum_y", "momentum_z"};
    if (i == 0) return "density";
    if (i >= 1 && i <= Dim) return momentum_names[i - 1];
    if (i == energy) return "energy";
    return nullptr;
  }
};

}  // namespace flowdg::physics
