#pragma once
// Persson & Peraire's artificial viscosity (2006; Siebenborn & Schulz 2012, section 2) for the Euler
// equations: shocks are captured inside elements by adding
//   d/dt U + div F(U) = div (eps grad U)
// with eps constant per element and nonzero only where the solution is not smooth. The term runs
// through the core's BR2 lifting (dg/lifting.hpp), as the Navier-Stokes equations' viscous term does:
// this physics is Euler<Dim, Real> with a viscous flux Fv_d = eps dU/dx_d, eps the element's (the
// kernels set `epsilon` per element before they evaluate the flux: has_element_viscosity).
//
// The smoothness indicator (the paper's S_k) compares the indicator variable (density) with its
// truncation to degree p - 1. The basis is hierarchical and orthonormal on the reference element, so
//   S_k = sum_{j >= N(p-1)} c_j^2 / sum_j c_j^2,
// the energy of the modes of degree p over the whole (exact on affine elements; on curved ones the
// reference-space norms, a weighting by det J less). With s = log10 S_k,
//   eps_k = 0                                       s < s0 - kappa
//           eps_max / 2 (1 + sin(pi (s - s0) / (2 kappa)))   s0 - kappa <= s <= s0 + kappa
//           eps_max                                 s > s0 + kappa
// s0 = log10(1 / p^4) - 2 by default (the paper's log10(1 / p^4), the decay of a smooth function's
// modes, lowered by two decades: with it the sensor stayed below 1e-3 of eps_max in a shock tube's
// shock, docs/validation.md), and eps_max = epsilon0 lambda h / p, lambda = |v| + c of the element's
// mean, h its size: a viscosity that spreads a shock over about one p-th of an element whatever the
// flow's scales (epsilon0 dimensionless, default 1; kappa default 1).
//
// Boundaries: no artificial flux through any boundary (homogeneous Neumann), so a wall conserves
// mass exactly and the far field, where eps is 0 anyway, is untouched.
#include <cmath>
#include <type_traits>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler/boundary.hpp"
#include "flowdg/physics/euler/euler.hpp"

namespace flowdg::physics {

/// How the elements' eps become the field the viscous term uses: none keeps eps constant per
/// element; vertex_max and vertex_mean give each mesh vertex the largest (as PyFR does) or the mean
/// eps of the elements around it and interpolate those vertex values linearly (multilinearly on
/// quadrilaterals and hexahedra) over each element: a continuous field (dg/core_kernels.hpp:
/// ViscositySmoothingKernel).
enum class ViscositySmoothing : int { none, vertex_max, vertex_mean };

/// The sensor's parameters (case file [artificial_viscosity]).
struct ArtificialViscosityParameters {
  double epsilon0 = 1.0;  ///< eps_max = epsilon0 lambda h / p
  double kappa = 1.0;     ///< the ramp's half width in decades of S_k
  /// s0 (log10) at every order; NaN: log10(1 / p^4) + s0_offset at order p.
  double s0 = std::nan("");
  /// Decades from the paper's log10(1 / p^4) where s0 is not given: -2 by default, 0 the paper's own (a
  /// threshold that follows the order through p-continuation, which one fixed s0 cannot).
  double s0_offset = -2.0;
  ViscositySmoothing smoothing = ViscositySmoothing::none;
  /// The default s0 of an order: two decades below the paper's log10(1 / p^4) (docs/user-guide.md:
  /// with the paper's own s0 the sensor stays below 1e-3 of eps_max in a shock tube's shock).
  static double default_s0(int order) { return paper_s0(order) - 2.0; }
  /// The paper's s0 of an order, log10(1 / p^4).
  static double paper_s0(int order) { return -4.0 * std::log10(order > 0 ? static_cast<double>(order) : 1.0); }
  /// The s0 a run at this order uses: s0 where given, else the paper's plus s0_offset.
  double s0_for(int order) const { return std::isnan(s0) ? paper_s0(order) + s0_offset : s0; }
};

template <int Dim, class Real = double>
struct ArtificialViscosity : Euler<Dim, Real> {
  using Base = Euler<Dim, Real>;
  using State = typename Base::State;
  using Direction = typename Base::Direction;
  using Base::dim;
  using Base::n_variables;
  static constexpr bool has_viscous_flux = true;
  static constexpr bool has_element_viscosity = true;

  Real epsilon = Real(0);  ///< the current element's viscosity (set by the kernels per element)
  // The sensor (set up from ArtificialViscosityParameters by the operator).
  Real epsilon0 = Real(0.3), kappa = Real(4), s0 = Real(0);

  /// fv[d] = eps dU/dx_d.
  FLOWDG_HD void viscous_flux(const State&, const State (&grad)[Dim], State (&fv)[Dim]) const {
    for (int d = 0; d < Dim; ++d)
      for (int k = 0; k < n_variables; ++k) fv[d][k] = epsilon * grad[d][k];
  }

  /// sum_d Fv_d n_d.
  FLOWDG_HD State normal_viscous_flux(const State&, const State (&grad)[Dim], const Direction& n) const {
    State sum;
    for (int k = 0; k < n_variables; ++k) {
      sum[k] = Real(0);
      for (int d = 0; d < Dim; ++d) sum[k] += epsilon * grad[d][k] * n[d];
    }
    return sum;
  }

  /// No artificial flux through a boundary (see the header).
  FLOWDG_HD State boundary_viscous_flux(BoundaryKind, const State&, const State (&)[Dim], const Direction&) const {
    State zero;
    for (int k = 0; k < n_variables; ++k) zero[k] = Real(0);
    return zero;
  }

  /// The diffusivity the time step must respect: eps (the element's).
  FLOWDG_HD Real max_diffusivity(const State&) const { return epsilon; }

  /// eps_k of an element from the indicator's coefficients c[0..Np) (c[j] at stride `stride`), the
  /// first mode of degree p `low` (N(p - 1)), the element's size h and mean state, at order p >= 1.
  template <class Coefficients>
  FLOWDG_HD Real element_viscosity(const Coefficients& c, index_t stride, int Np, int low, Real h, int order, const State& mean) const {
    if (order < 1) return Real(0);
    Real high = 0, all = 0;
    for (int j = 0; j < Np; ++j) {
      const Real value = c[static_cast<index_t>(j) * stride];
      all += value * value;
      if (j >= low) high += value * value;
    }
    if (!(all > Real(0)) || !(high > Real(0))) return Real(0);
    const Real s = std::log10(high / all);
    if (s < s0 - kappa) return Real(0);
    const Real lambda = this->max_wave_speed(mean);
    const Real maximum = epsilon0 * lambda * h / static_cast<Real>(order);
    if (s > s0 + kappa) return maximum;
    const Real pi = Real(3.14159265358979323846);
    return Real(0.5) * maximum * (Real(1) + std::sin(pi * (s - s0) / (Real(2) * kappa)));
  }

  static constexpr const char* name() { return Dim == 2 ? "euler2d-artificial-viscosity" : "euler3d-artificial-viscosity"; }
};

/// Whether a physics sets a viscosity per element (ArtificialViscosity).
template <class Physics, class = void>
struct HasElementViscosity {
  static constexpr bool value = false;
};
template <class Physics>
struct HasElementViscosity<Physics, std::void_t<decltype(Physics::has_element_viscosity)>> {
  static constexpr bool value = Physics::has_element_viscosity;
};
template <class Physics>
inline constexpr bool has_element_viscosity = HasElementViscosity<Physics>::value;

}  // namespace flowdg::physics
