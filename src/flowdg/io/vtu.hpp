#pragma once
// ParaView output: VTK XML UnstructuredGrid files (.vtu) with appended raw little-endian binary
// data (header_type UInt64), and a .pvd collection that lists them by time.
//
// The generic writer takes blocks of cells, each block one shape (triangle, quadrilateral,
// tetrahedron, hexahedron) and one order, with every cell's own nodes (DG solutions are
// discontinuous): the equispaced nodes of the VTK Lagrange cell in VTK's order
// (io/vtk_lagrange.hpp), mapped by the caller to physical space, so curved elements are drawn
// curved. Several blocks go into one file (a mixed triangle/quadrilateral mesh). Cells are
//   lagrange:   one VTK Lagrange cell (types 69-72) of the block's order per cell (the file says
//               version 1.0, so a hexahedron's connectivity lists its vertical edges in VTK 8's
//               order, which VTK >= 9.1 turns back into VTK 9's on reading);
//   subdivided: each cell's node lattice split into linear cells (VTK types 5, 9, 10, 12;
//               vtk_subdivision_cells), for readers without higher-order cells.
// Named point fields (per node) and cell fields (per cell; repeated over a cell's linear pieces
// when subdivided), scalars or 3-vectors, Float64 or Int64; field data: TimeValue. Files are
// written to PATH.tmp and renamed, so a reader never sees a half-written file under the real
// name.
//
// The 2D Euler output is an adapter on top: point data density, velocity (x, y, 0), pressure,
// mach, energy (E per volume); cell data element (the element id).
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/element/reference_element.hpp"
#include "flowdg/physics/euler.hpp"

namespace flowdg {

enum class VtuCells { lagrange, subdivided };

/// Cells of one shape and order.
struct VtuCellBlock {
  Shape shape = Shape::triangle;
  int order = 1;  ///< nodes per edge minus one, >= 1
  index_t n_cells = 0;
  /// n_cells * n_vtk_lagrange_nodes(shape, order) physical points, cell after cell, each cell's
  /// in VTK's node order (the images of vtk_lagrange_nodes(shape, order) under its map).
  std::vector<Point3> points;
};

/// A named array with one value (or 3-vector) per point, or per cell, of all blocks in turn.
struct VtuField {
  std::string name;
  int components = 1;  ///< 1 (a scalar) or 3 (a vector, components interleaved)
  std::variant<std::vector<double>, std::vector<std::int64_t>> values;  ///< written as Float64 or Int64
};

/// Writes the blocks and fields at `time` to `path` (see above). ParaView takes the first scalar
/// and the first 3-vector field of each kind as the active ones. An unwritable path throws
/// InputError naming it.
void write_vtu(const std::string& path, const std::vector<VtuCellBlock>& blocks,
               const std::vector<VtuField>& point_fields, const std::vector<VtuField>& cell_fields, double time,
               VtuCells cells);

}  // namespace flowdg

namespace flowdg::euler2d {

/// A modal solution on affine triangles: coefficients[(variable * Np + j) * K + e] with
/// Np = (order + 1)(order + 2) / 2 and K = n_elements.
struct SolutionView {
  const std::vector<Point3>* vertices = nullptr;  ///< 3 per element, counter-clockwise: [3 e + k]
  index_t n_elements = 0;
  int order = 0;
  const std::vector<double>* coefficients = nullptr;
  Gas gas;
};

struct VtuOptions {
  VtuCells cells = VtuCells::lagrange;
  int subdivisions = 0;  ///< nodes per edge minus one; 0: max(1, order)
};

/// Writes the solution at `time` to `path`: one block of triangles whose order is the number of
/// subdivisions, the solution evaluated at their nodes. An unwritable path throws InputError
/// naming it.
void write_vtu(const std::string& path, const SolutionView& solution, double time,
               const VtuOptions& options = {});

/// A ParaView time series: each add() appends a (time, file) entry and rewrites the .pvd
/// (through a temporary file and a rename), so the series on disk is complete after every step.
class PvdSeries {
 public:
  explicit PvdSeries(std::string pvd_path);
  /// Takes over the entries up to `up_to_time` of an existing .pvd at the path (a restarted run
  /// continues its series instead of starting a new one); nothing happens if there is none.
  void resume(double up_to_time);
  /// `vtu_file` is relative to the .pvd's directory, as ParaView resolves it.
  void add(double time, const std::string& vtu_file);

 private:
  std::string path_;
  std::vector<std::pair<double, std::string>> entries_;
};

}  // namespace flowdg::euler2d
