#pragma once
// Compressible laminar Navier-Stokes equations on top of Euler<Dim, Real> (Gao, Chen et al. 2022,
// Eq. (1)-(4)), non-dimensional:
//   d/dt U + sum_d d/dx_d (F_d(U) - Fv_d(U, grad U)) = 0,
//   Fv_d = (0, tau_1d, ..., tau_Dim,d, sum_i v_i tau_id - q_d),
//   tau_ij = mu (d_j v_i + d_i v_j - 2/3 delta_ij div v),   q_d = -kappa d_d T,   kappa = mu cp / Pr.
// With cp T = gamma e (e = p / ((gamma - 1) rho), the internal energy per unit mass),
//   q_d = -(mu gamma / Pr) d_d e,
// which needs no gas constant. The viscosity is constant or follows Sutherland's law (Eq. 4),
//   mu / mu0 = (T / T0)^(3/2) (T0 + S) / (T + S),   T0 = 288.15 K, mu0 = 1.716e-5 Pa s, S = 110.4 K,
// made non-dimensional with the free stream: mu / mu_inf = theta^(3/2) (1 + s) / (theta + s), with
// theta = T / T_inf = (p / rho) / (p_inf / rho_inf) and s = S / T_inf (T0 and mu0 cancel in the ratio).
// The scales (NavierStokesScales): rho_inf = 1, |v_inf| = 1, the reference length L = 1, so
// p_inf = 1 / (gamma M^2), T = theta, and mu_inf = 1 / Re (Re = rho_inf |v_inf| L / mu_inf).
// Gradients are of the conserved variables, grad[d][k] = dU_k / dx_d (what BR2's Theta = grad U + R
// gives); the primitive gradients follow by the chain rule.
#include <cmath>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler/boundary.hpp"
#include "flowdg/physics/euler/euler.hpp"

namespace flowdg::physics {

enum class ViscosityLaw : int { constant, sutherland };

/// Sutherland's law in SI units (Eq. 4): the dimensional reference the non-dimensional law is
/// scaled from (tests; a case's free-stream viscosity).
struct SutherlandConstants {
  static constexpr double T0 = 288.15;     ///< K
  static constexpr double mu0 = 1.716e-5;  ///< Pa s
  static constexpr double S = 110.4;       ///< K
  static double viscosity(double T) { return mu0 * std::pow(T / T0, 1.5) * (T0 + S) / (T + S); }
};

template <int Dim, class Real = double>
struct NavierStokes : Euler<Dim, Real> {
  using Base = Euler<Dim, Real>;
  using State = typename Base::State;
  using Direction = typename Base::Direction;
  using Base::dim;
  using Base::energy;
  using Base::gamma;
  using Base::n_variables;
  static constexpr bool has_viscous_flux = true;

  Real mu_inf = Real(0.01);            ///< the free-stream viscosity, 1 / Re
  Real prandtl = Real(0.72);
  ViscosityLaw law = ViscosityLaw::constant;
  Real sutherland_ratio = Real(0);     ///< s = S / T_inf (the law's S = 110.4 K over the free-stream temperature)
  Real inverse_temperature_scale = Real(1);  ///< rho_inf / p_inf = gamma M^2: theta = (p / rho) rho_inf / p_inf

  /// theta = T / T_inf of a conserved state.
  FLOWDG_HD Real temperature(const State& u) const {
    const Real inverse_rho = Real(1) / u[0];  // one division for p and p / rho
    return this->pressure(u, inverse_rho) * inverse_rho * inverse_temperature_scale;
  }

  /// mu(theta) in units of mu_inf times mu_inf: mu_inf for the constant law.
  FLOWDG_HD Real viscosity_at(Real theta) const {
    if (law == ViscosityLaw::constant) return mu_inf;
    const Real s = sutherland_ratio;
    return mu_inf * theta * std::sqrt(theta) * (Real(1) + s) / (theta + s);
  }
  FLOWDG_HD Real viscosity(const State& u) const { return viscosity_at(temperature(u)); }

  /// Largest diffusivity of the system at u, max(4/3, gamma / Pr) mu / rho: the viscous time-step
  /// limit's coefficient (momentum diffuses at 4/3 mu / rho at most, heat at gamma mu / (Pr rho)).
  FLOWDG_HD Real max_diffusivity(const State& u) const {
    const Real ratio = gamma / prandtl > Real(4) / Real(3) ? gamma / prandtl : Real(4) / Real(3);
    return ratio * viscosity(u) / u[0];
  }

  /// The primitive gradients from the conserved ones: dv[d][i] = d v_i / dx_d and de[d] = d e / dx_d.
  FLOWDG_HD void primitive_gradients(const State& u, const State (&grad)[Dim], Real (&dv)[Dim][Dim], Real (&de)[Dim]) const {
    const Real inverse_rho = Real(1) / u[0];
    Direction v;
    for (int i = 0; i < Dim; ++i) v[i] = u[1 + i] * inverse_rho;
    const Real total = u[energy] * inverse_rho;  // E / rho = e + |v|^2 / 2
    for (int d = 0; d < Dim; ++d) {
      const Real drho = grad[d][0];
      Real v_dv = 0;
      for (int i = 0; i < Dim; ++i) {
        dv[d][i] = (grad[d][1 + i] - v[i] * drho) * inverse_rho;
        v_dv += v[i] * dv[d][i];
      }
      de[d] = (grad[d][energy] - total * drho) * inverse_rho - v_dv;
    }
  }

  /// fv[d] = Fv_d(u, grad u), the viscous flux along the d-th coordinate (subtracted from F_d).
  FLOWDG_HD void viscous_flux(const State& u, const State (&grad)[Dim], State (&fv)[Dim]) const {
    Real dv[Dim][Dim], de[Dim];
    primitive_gradients(u, grad, dv, de);
    const Real inverse_rho = Real(1) / u[0];  // (primitive_gradients' own: the compiler keeps one division)
    const Real mu = viscosity(u);
    const Real conductivity = mu * gamma / prandtl;  // times d e, the heat flux -q
    Real divergence = 0;
    for (int i = 0; i < Dim; ++i) divergence += dv[i][i];
    for (int d = 0; d < Dim; ++d) {
      fv[d][0] = Real(0);
      Real work = 0;
      for (int i = 0; i < Dim; ++i) {
        // tau_id = mu (d_d v_i + d_i v_d - 2/3 delta_id div v)
        Real tau = mu * (dv[d][i] + dv[i][d]);
        if (i == d) tau -= mu * Real(2) / Real(3) * divergence;
        fv[d][1 + i] = tau;
        work += u[1 + i] * inverse_rho * tau;
      }
      fv[d][energy] = work + conductivity * de[d];
    }
  }

  /// sum_d Fv_d n_d.
  FLOWDG_HD State normal_viscous_flux(const State& u, const State (&grad)[Dim], const Direction& n) const {
    State fv[Dim];
    viscous_flux(u, grad, fv);
    State sum;
    for (int k = 0; k < n_variables; ++k) {
      sum[k] = Real(0);
      for (int d = 0; d < Dim; ++d) sum[k] += fv[d][k] * n[d];
    }
    return sum;
  }

  /// -q . n = (mu gamma / Pr) grad e . n: the heat flux's part of the normal viscous flux's energy
  /// component (into the domain along -n).
  FLOWDG_HD Real normal_heat_flux(const State& u, const State (&grad)[Dim], const Direction& n) const {
    Real dv[Dim][Dim], de[Dim];
    primitive_gradients(u, grad, dv, de);
    Real sum = 0;
    for (int d = 0; d < Dim; ++d) sum += de[d] * n[d];
    return viscosity(u) * gamma / prandtl * sum;
  }

  /// The viscous flux through a boundary face, Fv(u_b, grad) . n at the condition's boundary state
  /// u_b (BoundaryCondition::boundary_state) and the interior's BR2 gradient:
  ///   adiabatic no-slip wall: the heat flux removed (q . n = 0), the stress's work at the wall's velocity kept;
  ///   slip wall, symmetry: only the normal stress (n . tau n) n, no work, no heat flux;
  ///   isothermal wall and every other kind: Fv(u_b, grad) . n (an isothermal wall conducts heat).
  FLOWDG_HD State boundary_viscous_flux(BoundaryKind kind, const State& ub, const State (&grad)[Dim], const Direction& n) const {
    State flux = normal_viscous_flux(ub, grad, n);
    switch (kind) {
      case BoundaryKind::no_slip_wall: flux[energy] -= normal_heat_flux(ub, grad, n); break;
      case BoundaryKind::slip_wall:
      case BoundaryKind::symmetry:
      case BoundaryKind::curvature_wall: {
        Real normal_stress = 0;
        for (int d = 0; d < Dim; ++d) normal_stress += flux[1 + d] * n[d];
        for (int d = 0; d < Dim; ++d) flux[1 + d] = normal_stress * n[d];
        flux[energy] = Real(0);
        break;
      }
      default: break;
    }
    return flux;
  }

  /// The internal energy per unit mass e = c_v T at theta = T / T_inf (an isothermal wall's e_w):
  /// p / rho = theta / inverse_temperature_scale, e = p / ((gamma - 1) rho).
  FLOWDG_HD Real internal_energy_at(Real theta) const { return theta / (inverse_temperature_scale * (gamma - Real(1))); }

  static constexpr const char* name() { return Dim == 2 ? "navier_stokes2d" : "navier_stokes3d"; }
};

/// A viscous case's non-dimensional numbers (the case file's [physics]): Mach and Reynolds of the
/// free stream (Reynolds on the reference length L, in mesh units), Prandtl, the free-stream
/// temperature in K (Sutherland's law only), the viscosity law. `make` sets the physics' scales
/// (see the header): mu_inf = rho_inf |v_inf| L / Re = L / Re.
struct NavierStokesScales {
  double mach = 0.2;
  double reynolds = 100.0;
  double reference_length = 1.0;
  double prandtl = 0.72;
  double gamma = 1.4;
  double free_stream_temperature = 288.15;  ///< K
  ViscosityLaw law = ViscosityLaw::sutherland;

  /// p_inf with rho_inf = |v_inf| = 1.
  double free_stream_pressure() const { return 1.0 / (gamma * mach * mach); }

  template <int Dim, class Real = double>
  NavierStokes<Dim, Real> make() const {
    NavierStokes<Dim, Real> physics;
    physics.gamma = static_cast<Real>(gamma);
    physics.mu_inf = static_cast<Real>(reference_length / reynolds);
    physics.prandtl = static_cast<Real>(prandtl);
    physics.law = law;
    physics.sutherland_ratio = static_cast<Real>(SutherlandConstants::S / free_stream_temperature);
    physics.inverse_temperature_scale = static_cast<Real>(1.0 / free_stream_pressure());
    return physics;
  }
};

}  // namespace flowdg::physics
