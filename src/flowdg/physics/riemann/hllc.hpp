#pragma once
// HLLC flux (Toro, Spruce & Speares 1994; Toro's book, Sec. 10.4), written for an arbitrary unit
// normal. The outer wave speeds are Einfeldt's (1988) estimates with Roe's average,
//   s_m = min(v_m.n - c_m, v~.n - c~),   s_p = max(v_p.n + c_p, v~.n + c~),
// which are never narrower than the one-sided characteristic speeds and equal an isolated shock's
// speed exactly (Roe's average satisfies its jump condition). The contact speed s* follows from equal
// pressure and normal velocity on both sides of the contact.
#include <cmath>

#include "flowdg/core/hd.hpp"
#include "flowdg/physics/euler.hpp"
#include "flowdg/physics/riemann/roe.hpp"

namespace flowdg::euler2d {

struct HllcFlux {
  /// f(U).n + s (U* - U): the flux in the star region next to the outer wave of speed s.
  FLOWDG_HD static State star_flux(const State& U, double normal_velocity, double p, double s,
                                   double contact_speed, double nx, double ny, const Gas& gas) {
    // The ratio first and a shift that is exactly 0 when s* = v.n keep U* = U bit for bit then:
    // a stationary contact is kept to rounding.
    const double ratio = (s - normal_velocity) / (s - contact_speed);
    const double shift = contact_speed - normal_velocity;
    const State star = ratio * State{{U[0], U[1] + U[0] * shift * nx, U[2] + U[0] * shift * ny,
                                      U[3] + shift * (U[0] * contact_speed + p / (s - normal_velocity))}};
    return normal_flux(U, nx, ny, gas) + s * (star - U);
  }

  /// Flux through the face along the unit normal n pointing from the minus to the plus side.
  FLOWDG_HD State operator()(const State& Um, const State& Up, double nx, double ny,
                             const Gas& gas) const {
    const double normal_velocity_m = (Um[1] * nx + Um[2] * ny) / Um[0];
    const double normal_velocity_p = (Up[1] * nx + Up[2] * ny) / Up[0];
    const double p_m = pressure(Um, gas);
    const double p_p = pressure(Up, gas);
    const RoeAverage average = roe_average(Um, Up, gas);
    const double normal_velocity_average = average.u * nx + average.v * ny;
    const double s_m = std::fmin(normal_velocity_m - std::sqrt(gas.gamma * p_m / Um[0]),
                                 normal_velocity_average - average.c);
    const double s_p = std::fmax(normal_velocity_p + std::sqrt(gas.gamma * p_p / Up[0]),
                                 normal_velocity_average + average.c);
    if (s_m >= 0.0) return normal_flux(Um, nx, ny, gas);
    if (s_p <= 0.0) return normal_flux(Up, nx, ny, gas);

    const double mass_m = Um[0] * (s_m - normal_velocity_m);
    const double mass_p = Up[0] * (s_p - normal_velocity_p);
    const double contact_speed =
        (p_p - p_m + mass_m * normal_velocity_m - mass_p * normal_velocity_p) / (mass_m - mass_p);
    if (contact_speed >= 0.0)
      return star_flux(Um, normal_velocity_m, p_m, s_m, contact_speed, nx, ny, gas);
    return star_flux(Up, normal_velocity_p, p_p, s_p, contact_speed, nx, ny, gas);
  }
};

}  // namespace flowdg::euler2d
