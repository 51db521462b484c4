#pragma once
// Built-in Euler flows in any dimension: initial data, exact solutions and prescribed boundary
// states, as one small struct that kernels evaluate point-wise (no virtual calls on the device).
// In 3D the two vortices are the 2D ones in the (x, y) plane, extruded along z: a line vortex is
// an exact solution of the 3D equations when nothing depends on z and the z-velocity is constant.
//
// FlowSpec is the host-side, dimension-free description (double, as read from a case file);
// to_flow<Dim, Real>(spec, gamma) makes the kernel's EulerFlow<Dim, Real> from it.
#include <cmath>
#include <string>

#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/physics/euler/euler.hpp"

namespace flowdg::physics {

enum class FlowKind : int {
  uniform,            ///< constant state (free stream)
  isentropic_vortex,  ///< Shu's isentropic vortex advected by a uniform flow (exact at all t)
  supersonic_vortex,  ///< steady supersonic flow between two circular arcs (exact, steady)
  double_mach,        ///< 2D only: Woodward-Colella, a Mach 10 shock at 60 degrees along a wall
  couette,            ///< viscous: compressible Couette flow between plates y = 0 (at rest) and y = H (exact, steady)
};

/// The case files' name of a kind ("uniform", "isentropic-vortex", "supersonic-vortex",
/// "double-mach", "couette"), and back; an unknown name throws InputError.
const char* flow_kind_name(FlowKind kind);
FlowKind parse_flow_kind(const std::string& name);

/// A flow field U(x, t) in Dim dimensions. Parameters not used by a kind are ignored.
template <int Dim, class Real = double>
struct EulerFlow {
  using Physics = Euler<Dim, Real>;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;

  FlowKind kind = FlowKind::uniform;
  Real gamma = Real(1.4);
  /// uniform: the state; isentropic vortex: the background flow (its density and pressure are 1,
  /// as Shu's vortex is defined, only the velocity is used). Primitive: (rho, velocity, p).
  State state = default_state();
  // isentropic vortex
  Real strength = Real(5);   ///< beta
  Direction center{};        ///< the vortex centre at t = 0 (its z is irrelevant in 3D)
  Direction period{};        ///< periodic domain lengths per direction (0: not periodic)
  // supersonic vortex
  Real mach_inner = Real(2.25);  ///< M_i at r = r_inner
  Real r_inner = Real(1);
  // double Mach reflection
  Real shock_x0 = Real(1) / Real(6);  ///< where the shock meets the wall at t = 0
  // Couette flow (the plate speed U is state[1]; the rest in the viscous scales' units)
  Real mach = Real(0.1);          ///< Mach number of U at theta = 1
  Real height = Real(2);          ///< H
  Real wall_temperature[2] = {Real(0.8), Real(0.85)};  ///< theta at y = 0 and y = H
  Real prandtl = Real(0.72);

  FLOWDG_HD static constexpr State default_state() {
    State primitive{};
    primitive[0] = Real(1);
    primitive[Physics::energy] = Real(1);
    return primitive;
  }

  FLOWDG_HD Physics physics() const { return Physics{gamma}; }

  FLOWDG_HD State operator()(const Direction& x, Real t) const {
    switch (kind) {
      case FlowKind::isentropic_vortex: return isentropic_vortex(x, t);
      case FlowKind::supersonic_vortex: return supersonic_vortex(x);
      case FlowKind::double_mach: return double_mach(x, t);
      case FlowKind::couette: return couette(x);
      default: return physics().to_conservative(state);
    }
  }

  /// Shu's vortex: velocity perturbation beta/(2 pi) exp((1 - r^2)/2) (-dy, dx) in the (x, y)
  /// plane, temperature T = 1 - (gamma-1) beta^2 / (8 gamma pi^2) exp(1 - r^2), rho = T^(1/(gamma-1)),
  /// p = rho^gamma, on top of the background velocity (any vector; its z-component is carried
  /// unchanged in 3D), with r the distance from the centre moving with the background in (x, y).
  /// On a periodic domain the centre is wrapped to the nearest image in x and y, which is exact
  /// while the domain is large enough for exp(-r^2/2) to vanish at its edges (1e-21 for a half-width
  /// of 10); along z the extruded vortex is constant, so a z period needs no wrap.
  FLOWDG_HD State isentropic_vortex(const Direction& x, Real t) const {
    const Real pi = Real(3.14159265358979323846);
    const Real g = gamma;
    Real dx = x[0] - center[0] - state[1] * t;
    Real dy = x[1] - center[1] - state[2] * t;
    if (period[0] > Real(0)) dx -= period[0] * std::floor(dx / period[0] + Real(0.5));
    if (period[1] > Real(0)) dy -= period[1] * std::floor(dy / period[1] + Real(0.5));
    const Real r2 = dx * dx + dy * dy;
    const Real amplitude = strength / (Real(2) * pi) * std::exp(Real(0.5) * (Real(1) - r2));
    const Real temperature =
        Real(1) - (g - Real(1)) * strength * strength / (Real(8) * g * pi * pi) * std::exp(Real(1) - r2);
    const Real rho = std::pow(temperature, Real(1) / (g - Real(1)));
    State primitive = state;
    primitive[0] = rho;
    primitive[1] = state[1] - amplitude * dy;
    primitive[2] = state[2] + amplitude * dx;
    primitive[Physics::energy] = rho * temperature;
    return physics().to_conservative(primitive);
  }

  /// Supersonic vortex (2015 paper, section 5.1), centred on the z-axis:
  /// rho = (1 + (g-1)/2 M_i^2 (1 - r_i^2/r^2))^(1/(g-1)), speed M_i r_i / r counter-clockwise in
  /// (x, y), p = rho^g / g (so the sound speed is 1 at r_i); no z-velocity.
  FLOWDG_HD State supersonic_vortex(const Direction& x) const {
    const Real g = gamma;
    const Real r2 = x[0] * x[0] + x[1] * x[1];
    const Real ratio = r_inner * r_inner / r2;
    const Real rho =
        std::pow(Real(1) + Real(0.5) * (g - Real(1)) * mach_inner * mach_inner * (Real(1) - ratio), Real(1) / (g - Real(1)));
    const Real speed_over_r = mach_inner * r_inner / r2;  // |v| / r
    State primitive{};
    primitive[0] = rho;
    primitive[1] = -speed_over_r * x[1];
    primitive[2] = speed_over_r * x[0];
    primitive[Physics::energy] = std::pow(rho, g) / g;
    return physics().to_conservative(primitive);
  }

  /// Compressible Couette flow with constant viscosity and conductivity (Gao, Chen et al. 2022,
  /// section 3.1.1), in the Navier-Stokes scales (NavierStokesScales: rho = 1 and p = 1 / (gamma M^2)
  /// at theta = 1, so R = 1 / (gamma M^2) and c_p = 1 / ((gamma - 1) M^2)): with eta = y / H,
  ///   u = U eta, v = 0, p = 1 / (gamma M^2),
  ///   theta = theta_0 + eta (theta_1 - theta_0) + Pr U^2 / (2 c_p) eta (1 - eta),   rho = 1 / theta,
  /// the steady solution between a plate at rest at y = 0 and one moving at U at y = H, both
  /// isothermal. In 3D the same, independent of z.
  FLOWDG_HD State couette(const Direction& x) const {
    const Real g = gamma, speed = state[1];
    const Real eta = x[1] / height;
    const Real cp = Real(1) / ((g - Real(1)) * mach * mach);
    const Real theta = wall_temperature[0] + eta * (wall_temperature[1] - wall_temperature[0]) +
                       prandtl * speed * speed / (Real(2) * cp) * eta * (Real(1) - eta);
    State primitive{};
    primitive[0] = Real(1) / theta;
    primitive[1] = speed * eta;
    primitive[Physics::energy] = Real(1) / (g * mach * mach);
    return physics().to_conservative(primitive);
  }

  /// Double Mach reflection (2015 paper, section 5.2): post-shock (8, 8.25 cos 30, -8.25 sin 30,
  /// 116.5) behind the exact shock x = x0 + (y + 20 t) / sqrt(3) (60 degrees to the wall, speed 10),
  /// pre-shock (1.4, 0, 0, 1) ahead of it. A 2D problem (check_supported refuses it in 3D, where the
  /// formula would give the planar shock extruded along z).
  FLOWDG_HD State double_mach(const Direction& x, Real t) const {
    const Real sqrt3 = Real(1.73205080756887729353);
    State primitive{};
    if (x[0] < shock_x0 + (x[1] + Real(20) * t) / sqrt3) {
      primitive[0] = Real(8);
      primitive[1] = Real(8.25) * Real(0.5) * sqrt3;
      primitive[2] = Real(-8.25) * Real(0.5);
      primitive[Physics::energy] = Real(116.5);
    } else {
      primitive[0] = Real(1.4);
      primitive[Physics::energy] = Real(1);
    }
    return physics().to_conservative(primitive);
  }
};

/// The dimension-free description of a flow (host, double): what a case file sets. Unused
/// coordinates of the points are ignored (z in 2D).
struct FlowSpec {
  FlowKind kind = FlowKind::uniform;
  double density = 1.0;   ///< uniform only: the vortex background has density and pressure 1
  Point3 velocity{};
  double pressure = 1.0;
  double strength = 5.0;
  Point3 center{};
  Point3 period{};        ///< 0: not periodic in that direction
  double mach_inner = 2.25;
  double r_inner = 1.0;
  double shock_x0 = 1.0 / 6.0;
  // couette (the plate speed is velocity.x)
  double mach = 0.1;
  double height = 2.0;
  double wall_temperature[2] = {0.8, 0.85};
  double prandtl = 0.72;
};

/// Throws InputError when the flow cannot be evaluated in `dim` dimensions (the double Mach
/// reflection is 2D only) or its parameters are not physical (density or pressure not positive,
/// gamma not above 1, a negative period).
void check_supported(const FlowSpec& spec, int dim, double gamma = 1.4);

/// The kernel's flow in Dim dimensions and precision Real.
template <int Dim, class Real>
EulerFlow<Dim, Real> to_flow(const FlowSpec& spec, double gamma) {
  const double velocity[3] = {spec.velocity.x, spec.velocity.y, spec.velocity.z};
  const double center[3] = {spec.center.x, spec.center.y, spec.center.z};
  const double period[3] = {spec.period.x, spec.period.y, spec.period.z};
  EulerFlow<Dim, Real> flow;
  flow.kind = spec.kind;
  flow.gamma = static_cast<Real>(gamma);
  flow.state[0] = static_cast<Real>(spec.density);
  for (int d = 0; d < Dim; ++d) {
    flow.state[1 + d] = static_cast<Real>(velocity[d]);
    flow.center[d] = static_cast<Real>(center[d]);
    flow.period[d] = static_cast<Real>(period[d]);
  }
  flow.state[Dim + 1] = static_cast<Real>(spec.pressure);
  flow.strength = static_cast<Real>(spec.strength);
  flow.mach_inner = static_cast<Real>(spec.mach_inner);
  flow.r_inner = static_cast<Real>(spec.r_inner);
  flow.shock_x0 = static_cast<Real>(spec.shock_x0);
  flow.mach = static_cast<Real>(spec.mach);
  flow.height = static_cast<Real>(spec.height);
  flow.wall_temperature[0] = static_cast<Real>(spec.wall_temperature[0]);
  flow.wall_temperature[1] = static_cast<Real>(spec.wall_temperature[1]);
  flow.prandtl = static_cast<Real>(spec.prandtl);
  return flow;
}

}  // namespace flowdg::physics
