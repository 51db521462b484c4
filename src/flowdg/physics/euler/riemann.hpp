#pragma once
// Numerical fluxes for the Euler equations in any dimension: F*(u_m, u_p, n), the flux through a
// face along its unit normal n pointing from the minus to the plus side. Each is a stateless
// struct templated on the physics (Euler<Dim, Real>), so one launch takes the solver as a
// compile-time choice. The formulas are those of the 2D solvers (physics/riemann/*.hpp) with a
// Dim-sized velocity: the tangential velocity (one component in 2D, two in 3D) is carried as the
// vector v - (v.n) n, so nothing depends on a choice of tangent basis.
#include <cmath>
#include <string>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler/euler.hpp"

namespace flowdg::physics {

/// Run-time choice of the numerical flux; the DG operator dispatches it to a kernel branch.
enum class RiemannKind : int { rusanov, hllc, roe };

/// "rusanov" (aliases "llf", "lax-friedrichs"), "hllc" or "roe" (the case files' names); anything
/// else throws InputError.
RiemannKind parse_riemann_kind(const std::string& name);
const char* riemann_kind_name(RiemannKind kind);

/// Roe's density-weighted average: f(u_p).n - f(u_m).n = A(u~) (u_p - u_m) holds exactly.
template <class Physics>
struct RoeAverage {
  using Real = typename Physics::real;
  Real rho;
  typename Physics::Direction velocity;
  Real enthalpy, c;
};

template <class Physics>
FLOWDG_HD inline RoeAverage<Physics> roe_average(const Physics& physics, const typename Physics::State& um,
                                                 const typename Physics::State& up) {
  using Real = typename Physics::real;
  constexpr int energy = Physics::energy;
  const Real root_m = std::sqrt(um[0]);
  const Real root_p = std::sqrt(up[0]);
  const Real weight = Real(1) / (root_m + root_p);
  typename Physics::Direction velocity;
  for (int d = 0; d < Physics::dim; ++d) velocity[d] = (um[1 + d] / root_m + up[1 + d] / root_p) * weight;
  const Real enthalpy =
      ((um[energy] + physics.pressure(um)) / root_m + (up[energy] + physics.pressure(up)) / root_p) * weight;
  const Real c = std::sqrt((physics.gamma - Real(1)) * (enthalpy - Real(0.5) * dot(velocity, velocity)));
  return {root_m * root_p, velocity, enthalpy, c};
}

/// Rusanov (local Lax-Friedrichs) flux:
///   F = (f(u_m).n + f(u_p).n) / 2 - s (u_p - u_m) / 2,   s = max(|v_m.n| + c_m, |v_p.n| + c_p).
/// The most dissipative of the three solvers, and the most robust: it needs no averaged state.
struct Rusanov {
  template <class Physics>
  FLOWDG_HD typename Physics::State operator()(const Physics& physics, const typename Physics::State& um,
                                               const typename Physics::State& up,
                                               const typename Physics::Direction& n) const {
    using Real = typename Physics::real;
    const Real speed = std::fmax(physics.max_wave_speed(um, n), physics.max_wave_speed(up, n));
    return Real(0.5) * (physics.normal_flux(um, n) + physics.normal_flux(up, n)) - (Real(0.5) * speed) * (up - um);
  }
};

/// HLLC flux (Toro, Spruce & Speares 1994; Toro's book, Sec. 10.4), for an arbitrary unit normal.
/// The outer wave speeds are Einfeldt's (1988) estimates with Roe's average,
///   s_m = min(v_m.n - c_m, v~.n - c~),   s_p = max(v_p.n + c_p, v~.n + c~),
/// which are never narrower than the one-sided characteristic speeds and equal an isolated shock's
/// speed exactly. The contact speed s* follows from equal pressure and normal velocity on both
/// sides of the contact; across it the tangential velocity of the upwind side carries through.
struct Hllc {
  /// f(u).n + s (u* - u): the flux in the star region next to the outer wave of speed s, with
  ///   u* = (s - v.n)/(s - s*) (rho, rho (v + (s* - v.n) n), E + (s* - v.n)(rho s* + p/(s - v.n))).
  template <class Physics>
  FLOWDG_HD static typename Physics::State star_flux(const Physics& physics, const typename Physics::State& u,
                                                     typename Physics::real normal_velocity,
                                                     typename Physics::real p, typename Physics::real s,
                                                     typename Physics::real contact_speed,
                                                     const typename Physics::Direction& n) {
    using Real = typename Physics::real;
    constexpr int energy = Physics::energy;
    // The ratio first and a shift that is exactly 0 when s* = v.n keep u* = u bit for bit then:
    // a stationary contact is kept to rounding.
    const Real ratio = (s - normal_velocity) / (s - contact_speed);
    const Real shift = contact_speed - normal_velocity;
    typename Physics::State star;
    star[0] = u[0];
    for (int d = 0; d < Physics::dim; ++d) star[1 + d] = u[1 + d] + u[0] * shift * n[d];
    star[energy] = u[energy] + shift * (u[0] * contact_speed + p / (s - normal_velocity));
    return physics.normal_flux(u, n) + s * (ratio * star - u);
  }

  template <class Physics>
  FLOWDG_HD typename Physics::State operator()(const Physics& physics, const typename Physics::State& um,
                                               const typename Physics::State& up,
                                               const typename Physics::Direction& n) const {
    using Real = typename Physics::real;
    const Real normal_velocity_m = dot(Physics::momentum(um), n) / um[0];
    const Real normal_velocity_p = dot(Physics::momentum(up), n) / up[0];
    const Real p_m = physics.pressure(um);
    const Real p_p = physics.pressure(up);
    const RoeAverage<Physics> average = roe_average(physics, um, up);
    const Real normal_velocity_average = dot(average.velocity, n);
    const Real s_m = std::fmin(normal_velocity_m - std::sqrt(physics.gamma * p_m / um[0]),
                               normal_velocity_average - average.c);
    const Real s_p = std::fmax(normal_velocity_p + std::sqrt(physics.gamma * p_p / up[0]),
                               normal_velocity_average + average.c);
    if (s_m >= Real(0)) return physics.normal_flux(um, n);
    if (s_p <= Real(0)) return physics.normal_flux(up, n);

    const Real mass_m = um[0] * (s_m - normal_velocity_m);
    const Real mass_p = up[0] * (s_p - normal_velocity_p);
    const Real contact_speed =
        (p_p - p_m + mass_m * normal_velocity_m - mass_p * normal_velocity_p) / (mass_m - mass_p);
    if (contact_speed >= Real(0)) return star_flux(physics, um, normal_velocity_m, p_m, s_m, contact_speed, n);
    return star_flux(physics, up, normal_velocity_p, p_p, s_p, contact_speed, n);
  }
};

/// Roe flux with Harten's entropy fix.
///   F = (f(u_m).n + f(u_p).n) / 2 - |A(u~)| (u_p - u_m) / 2,
/// with A(u~) the flux Jacobian along n at Roe's average u~, decomposed into the acoustic waves
/// v~.n -+ c~, the entropy wave and the Dim - 1 shear waves v~.n (Toro, "Riemann Solvers and
/// Numerical Methods for Fluid Dynamics", Sec. 11.2, for an arbitrary unit normal; the shear waves
/// together carry the tangential velocity jump dv - (dv.n) n).
///
/// Harten's (1983) fix replaces |lambda| of the two acoustic waves, where |lambda| < delta, by
/// (lambda^2 + delta^2) / (2 delta), with delta = entropy_fix * (|v~.n| + c~): a C^1 modification that
/// keeps dissipation at a sonic point, so a stationary expansion shock breaks into a rarefaction.
/// The linear (entropy and shear) waves keep |v~.n|, so a stationary contact stays exact.
struct Roe {
  double entropy_fix = 0.1;  ///< converted to Real at use (a constant, not arithmetic in double)

  template <class Real>
  FLOWDG_HD static Real harten_absolute(Real lambda, Real delta) {
    const Real magnitude = std::abs(lambda);
    return magnitude >= delta ? magnitude : Real(0.5) * (lambda * lambda + delta * delta) / delta;
  }

  template <class Physics>
  FLOWDG_HD typename Physics::State operator()(const Physics& physics, const typename Physics::State& um,
                                               const typename Physics::State& up,
                                               const typename Physics::Direction& n) const {
    using Real = typename Physics::real;
    using Direction = typename Physics::Direction;
    constexpr int dim = Physics::dim, energy = Physics::energy;
    const RoeAverage<Physics> average = roe_average(physics, um, up);
    const Real c = average.c;
    const Direction& velocity = average.velocity;
    const Real normal_velocity = dot(velocity, n);

    const Real jump_rho = up[0] - um[0];
    const Real jump_p = physics.pressure(up) - physics.pressure(um);
    const Direction jump_velocity = physics.velocity(up) - physics.velocity(um);
    const Real jump_normal = dot(jump_velocity, n);
    const Direction jump_tangential = jump_velocity - jump_normal * n;

    const Real strength_minus = (jump_p - average.rho * c * jump_normal) / (Real(2) * c * c);
    const Real strength_plus = (jump_p + average.rho * c * jump_normal) / (Real(2) * c * c);
    const Real strength_entropy = jump_rho - jump_p / (c * c);

    const Real delta = static_cast<Real>(entropy_fix) * (std::abs(normal_velocity) + c);
    const Real speed_minus = harten_absolute(normal_velocity - c, delta) * strength_minus;
    const Real speed_plus = harten_absolute(normal_velocity + c, delta) * strength_plus;
    const Real speed_linear = std::abs(normal_velocity);

    typename Physics::State dissipation;
    dissipation[0] = speed_minus + speed_plus + speed_linear * strength_entropy;
    for (int d = 0; d < dim; ++d)
      dissipation[1 + d] = speed_minus * (velocity[d] - c * n[d]) + speed_plus * (velocity[d] + c * n[d]) +
                           speed_linear * (strength_entropy * velocity[d] + average.rho * jump_tangential[d]);
    dissipation[energy] = speed_minus * (average.enthalpy - normal_velocity * c) +
                          speed_plus * (average.enthalpy + normal_velocity * c) +
                          speed_linear * (strength_entropy * Real(0.5) * dot(velocity, velocity) +
                                          average.rho * dot(velocity, jump_tangential));
    return Real(0.5) * (physics.normal_flux(um, n) + physics.normal_flux(up, n) - dissipation);
  }
};

}  // namespace flowdg::physics
