#pragma once
// ParaView output of the 2D Euler modal DG solution: VTK XML UnstructuredGrid files (.vtu) with
// appended raw little-endian binary data (header_type UInt64), and a .pvd collection that lists
// them by time. The solution is discontinuous, so every element gets its own nodes.
//   lagrange:   one VTK_LAGRANGE_TRIANGLE (type 69) of order n per element, equispaced nodes in
//               VTK's order (vertices, edges 0-1, 1-2, 2-0, then the interior recursively);
//   subdivided: the same nodes joined into n^2 linear VTK_TRIANGLE (type 5) cells, for readers
//               without higher-order cells.
// Point data: density, velocity (x, y, 0), pressure, mach, energy (E per volume); cell data:
// element (the element id); field data: TimeValue. Files are written to PATH.tmp and renamed, so
// a reader never sees a half-written file under the real name.
#include <string>
#include <utility>
#include <vector>

#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/physics/euler.hpp"

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

enum class VtuCells { lagrange, subdivided };

struct VtuOptions {
  VtuCells cells = VtuCells::lagrange;
  int subdivisions = 0;  ///< nodes per edge minus one; 0: max(1, order)
};

/// Writes the solution at `time` to `path`. An unwritable path throws InputError naming it.
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
