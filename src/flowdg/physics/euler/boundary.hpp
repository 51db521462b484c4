#pragma once
// Boundary conditions of the Euler equations as ghost states, for any dimension: given the
// interior state u_m at a boundary face point x and the outward unit normal n, a condition returns
// the exterior state u_p that the numerical flux then sees as its plus side, so interior and
// boundary faces share one flux code path. The formulas are those of the 2D conditions
// (physics/boundary/euler_boundary.hpp) with a Dim-sized velocity.
//
// A BoundaryCondition is a small struct a kernel takes by value; the flow a condition prescribes
// (inflow, far field, prescribed) is a separate callable flow_at(x, t) -> State, evaluated only by
// the kinds that need it.
#include <cmath>
#include <string>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler/euler.hpp"

namespace flowdg::physics {

enum class BoundaryKind : int {
  slip_wall,       ///< reflect the normal velocity about the face
  curvature_wall,  ///< 2D only: Krivodonova-Berger, reflect about the tangent of the true circle
  symmetry,        ///< mirror plane: for the inviscid equations the same ghost state as slip_wall
  inflow,          ///< supersonic inflow: the prescribed flow's state
  outflow,         ///< supersonic outflow: extrapolate the interior state
  farfield,        ///< characteristic (Riemann invariant) far field towards the prescribed flow
  prescribed,      ///< the prescribed flow's state as the outer state of the numerical flux
  subsonic_inflow, ///< density and velocity of the prescribed flow, pressure from the interior
  subsonic_outflow,///< pressure of the prescribed flow, density and velocity from the interior
  // Viscous cases only (check_supported refuses them for inviscid physics):
  no_slip_wall,    ///< adiabatic no-slip wall moving at wall_velocity (0: at rest)
  isothermal_wall, ///< no-slip wall at the temperature wall_energy encodes, moving at wall_velocity
};

/// Whether a kind needs a viscous physics (no-slip walls).
constexpr bool is_viscous_only(BoundaryKind kind) {
  return kind == BoundaryKind::no_slip_wall || kind == BoundaryKind::isothermal_wall;
}

/// The case files' name of a kind ("slip-wall", "curvature-wall", "symmetry", "inflow", "outflow",
/// "farfield", "prescribed", "subsonic-inflow", "subsonic-outflow", "no-slip-wall",
/// "isothermal-wall"), and back; an unknown name throws InputError.
const char* boundary_kind_name(BoundaryKind kind);
BoundaryKind parse_boundary_kind(const std::string& name);

/// Throws InputError when a kind is not available in `dim` dimensions (curvature_wall needs the
/// 2D circle construction; a 3D curved wall is a curved mesh instead) or, for an inviscid physics
/// (`viscous` false), when it is a no-slip wall.
void check_supported(BoundaryKind kind, int dim, bool viscous = false);

/// A no-slip wall's ghost state for the inviscid flux: the interior state with its velocity
/// mirrored about the wall's, v_p = 2 v_w - v_m, at the interior density and internal energy, so
/// every Riemann solver sees the wall's velocity at the face.
template <class Physics>
FLOWDG_HD inline typename Physics::State no_slip_ghost(const Physics& physics, const typename Physics::State& um,
                                                       const typename Physics::Direction& wall_velocity) {
  using Real = typename Physics::real;
  typename Physics::State primitive = physics.to_primitive(um);
  for (int d = 0; d < Physics::dim; ++d) primitive[1 + d] = Real(2) * wall_velocity[d] - primitive[1 + d];
  return physics.to_conservative(primitive);
}

/// Reflecting wall: the mirror image of u_m (normal momentum reversed, all else kept), so every
/// Riemann solver sees zero normal velocity at the face.
template <class Physics>
FLOWDG_HD inline typename Physics::State slip_wall(const typename Physics::State& um,
                                                   const typename Physics::Direction& n) {
  using Real = typename Physics::real;
  const Real normal_momentum = dot(Physics::momentum(um), n);
  typename Physics::State up = um;
  for (int d = 0; d < Physics::dim; ++d) up[1 + d] = um[1 + d] - Real(2) * normal_momentum * n[d];
  return up;
}

/// Krivodonova & Berger's curvature wall (J. Comput. Phys. 211, 2006), 2D: the mesh edge stays
/// straight, but the velocity is reflected about the unit tangent t of the true curved boundary at
/// this point, v_p = 2 (v.t) t - v, so the flow is tangent to the real wall. With t along the
/// straight edge this is slip_wall.
template <class Physics>
FLOWDG_HD inline typename Physics::State curvature_wall(const typename Physics::State& um,
                                                        const typename Physics::Direction& tangent) {
  using Real = typename Physics::real;
  const Real tangential_momentum = dot(Physics::momentum(um), tangent);
  typename Physics::State up = um;
  for (int d = 0; d < Physics::dim; ++d) up[1 + d] = Real(2) * tangential_momentum * tangent[d] - um[1 + d];
  return up;
}

/// Unit tangent at the point x of the circle centred at `center`, taken at the point's angle (the
/// point need not lie on the circle), oriented along the edge direction `edge` (2D).
template <class Real>
FLOWDG_HD inline Vector<Real, 2> circle_tangent(const Vector<Real, 2>& center, const Vector<Real, 2>& x,
                                                const Vector<Real, 2>& edge) {
  const Real dx = x[0] - center[0], dy = x[1] - center[1];
  const Real radius = std::hypot(dx, dy);
  const Real sign = (-dy * edge[0] + dx * edge[1]) >= Real(0) ? Real(1) : Real(-1);
  return {{-sign * dy / radius, sign * dx / radius}};
}

/// Far field from the Riemann invariants of the 1D flow normal to the boundary,
///   R+ = v.n + 2c/(gamma-1) (speed v.n + c),   R- = v.n - 2c/(gamma-1) (speed v.n - c),
/// judged by the interior normal Mach number:
///   v_m.n >= c_m  (supersonic outflow): all from the interior, u_p = u_m;
///   v_m.n <= -c_m (supersonic inflow):  all from the far field, u_p = u_inf;
///   otherwise R+ from u_m, R- from u_inf, which give v.n = (R+ + R-)/2 and c = (gamma-1)(R+ - R-)/4;
///   the entropy p/rho^gamma and the tangential velocity (the whole vector v - (v.n) n) ride with
///   the flow, so they come from u_m where v.n > 0 (outflow) and from u_inf otherwise.
template <class Physics>
FLOWDG_HD inline typename Physics::State characteristic_farfield(const Physics& physics,
                                                                 const typename Physics::State& um,
                                                                 const typename Physics::State& u_inf,
                                                                 const typename Physics::Direction& n) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int energy = Physics::energy;
  const Real gamma = physics.gamma;
  const Real normal_velocity_m = dot(Physics::momentum(um), n) / um[0];
  const Real c_m = physics.sound_speed(um);
  if (normal_velocity_m >= c_m) return um;
  if (normal_velocity_m <= -c_m) return u_inf;

  const Real riemann_factor = Real(2) / (gamma - Real(1));
  const Real outgoing = normal_velocity_m + riemann_factor * c_m;
  const Real incoming = dot(Physics::momentum(u_inf), n) / u_inf[0] - riemann_factor * physics.sound_speed(u_inf);
  const Real normal_velocity = Real(0.5) * (outgoing + incoming);
  const Real c = Real(0.25) * (gamma - Real(1)) * (outgoing - incoming);

  const State& upwind = normal_velocity > Real(0) ? um : u_inf;
  const State upwind_primitive = physics.to_primitive(upwind);
  const Real entropy = upwind_primitive[energy] / std::pow(upwind_primitive[0], gamma);
  Real upwind_normal_velocity = upwind_primitive[1] * n[0];
  for (int d = 1; d < Physics::dim; ++d) upwind_normal_velocity += upwind_primitive[1 + d] * n[d];
  const Real rho = std::pow(c * c / (gamma * entropy), Real(1) / (gamma - Real(1)));
  State primitive;
  primitive[0] = rho;
  for (int d = 0; d < Physics::dim; ++d)
    primitive[1 + d] = upwind_primitive[1 + d] + (normal_velocity - upwind_normal_velocity) * n[d];
  primitive[energy] = rho * c * c / gamma;
  return physics.to_conservative(primitive);
}

/// The condition of one boundary tag, passed to a face kernel by value.
template <int Dim, class Real = double>
struct BoundaryCondition {
  using Direction = Vector<Real, Dim>;

  BoundaryKind kind = BoundaryKind::slip_wall;
  Direction center{};  ///< curvature_wall: the true boundary circle's centre (2D)
  Direction wall_velocity{};  ///< no-slip walls: the wall's velocity (a moving wall: Couette's upper plate)
  Real wall_energy = Real(0); ///< isothermal walls: the internal energy per unit mass e_w = c_v T_w

  /// The ghost state at the face point x (outward unit normal n) at time t. flow_at(x, t) gives
  /// the prescribed state (an EulerFlow, or any callable); only inflow, farfield and prescribed
  /// call it.
  template <class Physics, class FlowAt>
  FLOWDG_HD typename Physics::State ghost_state(const Physics& physics, const typename Physics::State& um,
                                                const Direction& n, const Direction& x, Real t,
                                                FlowAt&& flow_at) const {
    static_assert(Physics::dim == Dim, "BoundaryCondition<Dim>: physics of another dimension");
    switch (kind) {
      case BoundaryKind::slip_wall:
      case BoundaryKind::symmetry: return slip_wall<Physics>(um, n);
      case BoundaryKind::curvature_wall:
        if constexpr (Dim == 2) {
          // The edge direction (-n_y, n_x) orients the tangent as the 2D solver does.
          const Direction edge{{-n[1], n[0]}};
          return curvature_wall<Physics>(um, circle_tangent(center, x, edge));
        } else {
          return slip_wall<Physics>(um, n);  // refused at set-up (check_supported)
        }
      case BoundaryKind::inflow: return flow_at(x, t);
      case BoundaryKind::outflow: return um;
      case BoundaryKind::farfield: return characteristic_farfield(physics, um, flow_at(x, t), n);
      case BoundaryKind::prescribed: return flow_at(x, t);
      case BoundaryKind::subsonic_inflow: {
        typename Physics::State outer = physics.to_primitive(flow_at(x, t));
        outer[Physics::energy] = physics.pressure(um);
        return physics.to_conservative(outer);
      }
      case BoundaryKind::subsonic_outflow: {
        typename Physics::State inner = physics.to_primitive(um);
        inner[Physics::energy] = physics.pressure(flow_at(x, t));
        return physics.to_conservative(inner);
      }
      case BoundaryKind::no_slip_wall:
      case BoundaryKind::isothermal_wall: return no_slip_ghost(physics, um, wall_velocity);
    }
    return um;
  }

  /// The boundary's own state U_b (viscous physics: BR2's auxiliary flux H_aux = U_b on a boundary
  /// face, and the state of the boundary's viscous flux), from the interior state and this
  /// condition's ghost state `ghost` (ghost_state's):
  ///   no-slip walls: the interior density, the wall's velocity, the interior internal energy
  ///     (adiabatic) or the wall's (isothermal);
  ///   slip walls, symmetry: the mean of the interior and mirror states (the normal velocity removed);
  ///   every other kind: the ghost state (the condition's outer state).
  template <class Physics>
  FLOWDG_HD typename Physics::State boundary_state(const Physics& physics, const typename Physics::State& um,
                                                   const typename Physics::State& ghost) const {
    using State = typename Physics::State;
    switch (kind) {
      case BoundaryKind::no_slip_wall:
      case BoundaryKind::isothermal_wall: {
        const Real rho = um[0];
        const Real e = kind == BoundaryKind::isothermal_wall ? wall_energy : physics.pressure(um) / ((physics.gamma - Real(1)) * rho);
        State ub;
        ub[0] = rho;
        Real kinetic = 0;
        for (int d = 0; d < Dim; ++d) {
          ub[1 + d] = rho * wall_velocity[d];
          kinetic += wall_velocity[d] * wall_velocity[d];
        }
        ub[Physics::energy] = rho * (e + Real(0.5) * kinetic);
        return ub;
      }
      case BoundaryKind::slip_wall:
      case BoundaryKind::symmetry:
      case BoundaryKind::curvature_wall: {
        State ub;
        for (int v = 0; v < Physics::n_variables; ++v) ub[v] = Real(0.5) * (um[v] + ghost[v]);
        return ub;
      }
      default: return ghost;
    }
  }
};

/// Throws InputError when the condition's kind is not available in `dim` dimensions.
template <int Dim, class Real>
void check_supported(const BoundaryCondition<Dim, Real>& condition, int dim = Dim, bool viscous = false) {
  check_supported(condition.kind, dim, viscous);
}

}  // namespace flowdg::physics
