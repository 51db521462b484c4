#pragma once
// Output of any DG core operator: ParaView files (every group as a block of VTK Lagrange cells of
// the solution's order, mapped through the element's own, possibly curved, geometry) and the
// fields every Euler solution has: density, velocity (3 components), pressure, Mach number, energy
// per volume, and the element's mesh id per cell.
#include <string>

#include "flowdg/dg/operator.hpp"
#include "flowdg/io/vtu.hpp"

namespace flowdg {

/// Writes the operator's current solution at `time` to `path` (through PATH.tmp and a rename).
void write_solution_vtu(const std::string& path, const dg::Operator& op, double gamma, double time, VtuCells cells);

}  // namespace flowdg
