#pragma once
// Boundary conditions as ghost states: given the interior state U_m at a boundary quadrature point
// and the outward unit normal n, each returns the exterior state U_p that the numerical flux then
// sees as its plus side. One flux code path for interior and boundary faces.
#include <cmath>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler.hpp"

namespace flowdg::euler2d {

/// Reflecting wall: the mirror image of U_m (normal velocity reversed, all else kept), so every
/// Riemann solver sees zero normal velocity at the face.
FLOWDG_HD inline State slip_wall(const State& Um, double nx, double ny) {
  const double normal_momentum = Um[1] * nx + Um[2] * ny;
  return {{Um[0], Um[1] - 2.0 * normal_momentum * nx, Um[2] - 2.0 * normal_momentum * ny, Um[3]}};
}

/// Krivodonova & Berger's curvature wall (J. Comput. Phys. 211, 2006): the mesh edge stays straight,
/// but the velocity is reflected about the unit tangent t of the true curved boundary at this
/// quadrature point, v_p = 2 (v.t) t - v, so the flow is tangent to the real wall. With t along the
/// straight edge this is slip_wall.
FLOWDG_HD inline State curvature_wall(const State& Um, double tx, double ty) {
  const double tangential_momentum = Um[1] * tx + Um[2] * ty;
  return {{Um[0], 2.0 * tangential_momentum * tx - Um[1], 2.0 * tangential_momentum * ty - Um[2], Um[3]}};
}

/// Every characteristic enters the domain: the exterior state is the given one.
FLOWDG_HD inline State supersonic_inflow(const State& U_given) { return U_given; }

/// Every characteristic leaves the domain: the exterior state is the interior one (extrapolation).
FLOWDG_HD inline State supersonic_outflow(const State& Um) { return Um; }

/// Far field from the Riemann invariants of the 1D flow normal to the boundary,
///   R+ = v.n + 2c/(gamma-1) (speed v.n + c),   R- = v.n - 2c/(gamma-1) (speed v.n - c),
/// judged by the interior normal Mach number:
///   v_m.n >= c_m  (supersonic outflow): all from the interior, U_p = U_m;
///   v_m.n <= -c_m (supersonic inflow):  all from the far field, U_p = U_inf;
///   otherwise R+ from U_m, R- from U_inf, which give v.n = (R+ + R-)/2 and c = (gamma-1)(R+ - R-)/4;
///   the entropy p/rho^gamma and the tangential velocity ride with the flow, so they come from U_m
///   where v.n > 0 (outflow) and from U_inf otherwise.
FLOWDG_HD inline State characteristic_farfield(const State& Um, const State& U_inf, double nx, double ny,
                                               const Gas& gas) {
  const double normal_velocity_m = (Um[1] * nx + Um[2] * ny) / Um[0];
  const double c_m = sound_speed(Um, gas);
  if (normal_velocity_m >= c_m) return Um;
  if (normal_velocity_m <= -c_m) return U_inf;

  const double riemann_factor = 2.0 / (gas.gamma - 1.0);
  const double outgoing = normal_velocity_m + riemann_factor * c_m;
  const double incoming = (U_inf[1] * nx + U_inf[2] * ny) / U_inf[0] - riemann_factor * sound_speed(U_inf, gas);
  const double normal_velocity = 0.5 * (outgoing + incoming);
  const double c = 0.25 * (gas.gamma - 1.0) * (outgoing - incoming);

  const State& upwind = normal_velocity > 0.0 ? Um : U_inf;
  const Primitive upwind_primitive = to_primitive(upwind, gas);
  const double entropy = upwind_primitive.p / std::pow(upwind_primitive.rho, gas.gamma);
  const double upwind_normal_velocity = upwind_primitive.u * nx + upwind_primitive.v * ny;
  const double rho = std::pow(c * c / (gas.gamma * entropy), 1.0 / (gas.gamma - 1.0));
  return to_conservative({rho, upwind_primitive.u + (normal_velocity - upwind_normal_velocity) * nx,
                          upwind_primitive.v + (normal_velocity - upwind_normal_velocity) * ny,
                          rho * c * c / gas.gamma},
                         gas);
}

/// Unit tangent (tx, ty) at the point (x, y) of the circle centred at (cx, cy), taken at the
/// point's angle (the point need not lie on the circle), oriented along the edge direction (ex, ey).
FLOWDG_HD inline void circle_tangent(double cx, double cy, double x, double y, double ex, double ey,
                                     double& tx, double& ty) {
  const double radius = std::hypot(x - cx, y - cy);
  const double sign = (-(y - cy) * ex + (x - cx) * ey) >= 0.0 ? 1.0 : -1.0;
  tx = -sign * (y - cy) / radius;
  ty = sign * (x - cx) / radius;
}

}  // namespace flowdg::euler2d
