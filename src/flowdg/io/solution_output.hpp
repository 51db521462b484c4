#pragma once
// Output of any DG core operator: ParaView files (every group as a block of VTK Lagrange cells of
// the solution's order, mapped through the element's own, possibly curved, geometry) and the
// fields every Euler solution has: density, velocity (3 components), pressure, Mach number, energy
// per volume, and the element's mesh id per cell.
#include <string>
#include <vector>

#include "flowdg/dg/operator.hpp"
#include "flowdg/io/vtu.hpp"

namespace flowdg {

/// Writes the operator's current solution at `time` to `path` (through PATH.tmp and a rename).
/// element_numbers (a distributed run's part: per element its number in the whole mesh) renumbers
/// the cells' "element" field; empty: the mesh's own numbers.
void write_solution_vtu(const std::string& path, const dg::Operator& op, double gamma, double time, VtuCells cells,
                        const std::vector<index_t>& element_numbers = {});

/// A distributed run's parallel file: `path` (.pvtu) lists the pieces (paths relative to its
/// directory) that write_solution_vtu wrote on each rank, with their fields (artificial viscosity
/// where the physics has it).
void write_solution_pvtu(const std::string& path, const std::vector<std::string>& pieces, bool artificial_viscosity, double time);

}  // namespace flowdg
