// Host-side helpers of the generic Euler physics: configuration names and the set-up checks that
// refuse, with one clear line, what the kernels cannot evaluate in a given dimension.
#include <cmath>
#include <numbers>
#include <string>

#include "flowdg/core/error.hpp"
#include "flowdg/physics/euler/boundary.hpp"
#include "flowdg/physics/euler/flows.hpp"
#include "flowdg/physics/euler/riemann.hpp"

namespace flowdg::physics {

RiemannKind parse_riemann_kind(const std::string& name) {
  if (name == "rusanov" || name == "llf" || name == "lax-friedrichs") return RiemannKind::rusanov;
  if (name == "hllc") return RiemannKind::hllc;
  if (name == "roe") return RiemannKind::roe;
  throw InputError(cat("unknown Riemann solver '", name,
                       "'; valid names are rusanov (or llf, lax-friedrichs), hllc, roe"));
}

const char* riemann_kind_name(RiemannKind kind) {
  switch (kind) {
    case RiemannKind::rusanov: return "rusanov";
    case RiemannKind::hllc: return "hllc";
    case RiemannKind::roe: return "roe";
  }
  return "unknown";
}

const char* boundary_kind_name(BoundaryKind kind) {
  switch (kind) {
    case BoundaryKind::slip_wall: return "slip-wall";
    case BoundaryKind::curvature_wall: return "curvature-wall";
    case BoundaryKind::symmetry: return "symmetry";
    case BoundaryKind::inflow: return "inflow";
    case BoundaryKind::outflow: return "outflow";
    case BoundaryKind::farfield: return "farfield";
    case BoundaryKind::prescribed: return "prescribed";
    case BoundaryKind::subsonic_inflow: return "subsonic-inflow";
    case BoundaryKind::subsonic_outflow: return "subsonic-outflow";
    case BoundaryKind::no_slip_wall: return "no-slip-wall";
    case BoundaryKind::isothermal_wall: return "isothermal-wall";
  }
  return "unknown";
}

BoundaryKind parse_boundary_kind(const std::string& name) {
  for (const BoundaryKind kind : {BoundaryKind::slip_wall, BoundaryKind::curvature_wall, BoundaryKind::symmetry,
                                  BoundaryKind::inflow, BoundaryKind::outflow, BoundaryKind::farfield,
                                  BoundaryKind::prescribed, BoundaryKind::subsonic_inflow, BoundaryKind::subsonic_outflow,
                                  BoundaryKind::no_slip_wall, BoundaryKind::isothermal_wall})
    if (name == boundary_kind_name(kind)) return kind;
  throw InputError(cat("unknown boundary condition '", name,
                       "' (valid: slip-wall, curvature-wall, symmetry, inflow, outflow, farfield, prescribed, subsonic-inflow, "
                       "subsonic-outflow, no-slip-wall, isothermal-wall)"));
}

void check_supported(BoundaryKind kind, int dim, bool viscous) {
  if (is_viscous_only(kind) && !viscous)
    throw InputError(cat("boundary condition '", boundary_kind_name(kind),
                         "' is a viscous wall: it needs [physics] equations = \"navier-stokes\" (an inviscid wall is 'slip-wall')"));
  if (dim != 2 && dim != 3) throw InputError(cat("boundary conditions are defined in 2 or 3 dimensions, not ", dim));
  if (kind == BoundaryKind::curvature_wall && dim != 2)
    throw InputError(cat("boundary condition 'curvature-wall' is 2D only (it reflects about a circle's tangent); "
                         "in ", dim, "D use a curved mesh with 'slip-wall'"));
}

const char* flow_kind_name(FlowKind kind) {
  switch (kind) {
    case FlowKind::uniform: return "uniform";
    case FlowKind::isentropic_vortex: return "isentropic-vortex";
    case FlowKind::supersonic_vortex: return "supersonic-vortex";
    case FlowKind::double_mach: return "double-mach";
    case FlowKind::couette: return "couette";
  }
  return "unknown";
}

FlowKind parse_flow_kind(const std::string& name) {
  for (const FlowKind kind :
       {FlowKind::uniform, FlowKind::isentropic_vortex, FlowKind::supersonic_vortex, FlowKind::double_mach, FlowKind::couette})
    if (name == flow_kind_name(kind)) return kind;
  throw InputError(cat("unknown flow '", name, "' (valid: uniform, isentropic-vortex, supersonic-vortex, double-mach, couette)"));
}

void check_supported(const FlowSpec& spec, int dim, double gamma) {
  const char* name = flow_kind_name(spec.kind);
  if (dim != 2 && dim != 3) throw InputError(cat("flow '", name, "': flows are defined in 2 or 3 dimensions, not ", dim));
  if (spec.kind == FlowKind::double_mach && dim != 2)
    throw InputError(cat("flow 'double-mach' is a 2D problem; it cannot be used in ", dim, "D"));
  if (!(gamma > 1.0) || !std::isfinite(gamma))
    throw InputError(cat("flow '", name, "': gamma must be greater than 1, not ", gamma));
  if (spec.kind == FlowKind::uniform && !(spec.density > 0.0 && spec.pressure > 0.0))
    throw InputError(cat("flow 'uniform': density and pressure must be positive (density ", spec.density,
                         ", pressure ", spec.pressure, ")"));
  if (!(spec.period.x >= 0.0 && spec.period.y >= 0.0 && spec.period.z >= 0.0))
    throw InputError(cat("flow '", name, "': periods must be 0 (not periodic) or positive"));
  if (spec.kind == FlowKind::isentropic_vortex) {
    // The vortex core's temperature 1 - (gamma-1) beta^2 / (8 gamma pi^2) e must stay positive.
    const double pi = std::numbers::pi;
    const double core_temperature =
        1.0 - (gamma - 1.0) * spec.strength * spec.strength / (8.0 * gamma * pi * pi) * std::exp(1.0);
    if (!(core_temperature > 0.0))
      throw InputError(cat("flow 'isentropic-vortex': strength ", spec.strength,
                           " makes the core temperature non-positive (", core_temperature, ")"));
  }
  if (spec.kind == FlowKind::couette &&
      !(spec.mach > 0.0 && spec.height > 0.0 && spec.wall_temperature[0] > 0.0 && spec.wall_temperature[1] > 0.0 && spec.prandtl >= 0.0))
    throw InputError(cat("flow 'couette': mach, height and the wall temperatures must be positive, prandtl not negative"));
  if (spec.kind == FlowKind::supersonic_vortex && !(spec.r_inner > 0.0 && spec.mach_inner > 0.0))
    throw InputError(cat("flow 'supersonic-vortex': r_inner and mach_inner must be positive"));
}

}  // namespace flowdg::physics
