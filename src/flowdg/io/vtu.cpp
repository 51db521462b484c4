#include "flowdg/io/vtu.hpp"

#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string_view>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"

namespace flowdg::euler2d {
namespace {

// The appended data is the host's memory as is; VTK and meshio are told it is little-endian.
static_assert(std::endian::native == std::endian::little, "the VTU writer assumes a little-endian host");

constexpr std::uint8_t vtk_triangle = 5;
constexpr std::uint8_t vtk_lagrange_triangle = 69;

/// Equispaced node (i, j) of an order-n triangle: reference point (2 i / n - 1, 2 j / n - 1).
struct LatticeNode {
  int i, j;
};

// VTK's Lagrange triangle order (vtkHigherOrderTriangle::BarycentricIndex, parametric point
// (b0 / n, b1 / n)): the vertices, then each edge's inner nodes in the edge's direction (0-1, 1-2,
// 2-0), then the interior nodes as a triangle of order n - 3 inset by one layer, recursively.
std::vector<LatticeNode> vtk_lagrange_triangle_nodes(int n) {
  std::vector<LatticeNode> nodes;
  // Layer m (k = n - 3 m) has vertices (m, m), (m + k, m), (m, m + k).
  for (int m = 0, k = n; k >= 0; ++m, k -= 3) {
    if (k == 0) {
      nodes.push_back({m, m});
      break;
    }
    nodes.insert(nodes.end(), {{m, m}, {m + k, m}, {m, m + k}});
    for (int t = 1; t < k; ++t) nodes.push_back({m + t, m});
    for (int t = 1; t < k; ++t) nodes.push_back({m + k - t, m + t});
    for (int t = 1; t < k; ++t) nodes.push_back({m, m + k - t});
  }
  return nodes;
}

/// The n^2 counter-clockwise linear triangles on the lattice, as indices into `nodes`.
std::vector<std::array<int, 3>> sub_triangles(int n, const std::vector<LatticeNode>& nodes) {
  std::vector<int> local(static_cast<std::size_t>((n + 1) * (n + 1)), -1);
  for (std::size_t q = 0; q < nodes.size(); ++q)
    local[nodes[q].i * (n + 1) + nodes[q].j] = static_cast<int>(q);
  const auto at = [&](int i, int j) { return local[i * (n + 1) + j]; };
  std::vector<std::array<int, 3>> triangles;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i + j < n; ++i) {
      triangles.push_back({at(i, j), at(i + 1, j), at(i, j + 1)});
      if (i + j + 1 < n) triangles.push_back({at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  return triangles;
}

/// A file written through a 1 MiB buffer: one fwrite per MiB whatever the value sizes.
class BufferedFile {
 public:
  explicit BufferedFile(const std::string& path) : file_(std::fopen(path.c_str(), "wb")), open_errno_(errno) {
    buffer_.reserve(flush_size + 4096);
  }
  ~BufferedFile() {
    if (file_) std::fclose(file_);
  }
  BufferedFile(const BufferedFile&) = delete;
  BufferedFile& operator=(const BufferedFile&) = delete;

  bool is_open() const { return file_ != nullptr; }
  int open_errno() const { return open_errno_; }
  std::uint64_t written() const { return written_; }

  void bytes(const void* data, std::size_t size) {
    const char* begin = static_cast<const char*>(data);
    buffer_.insert(buffer_.end(), begin, begin + size);
    written_ += size;
    if (buffer_.size() >= flush_size) flush();
  }
  void text(std::string_view text) { bytes(text.data(), text.size()); }
  template <class T>
  void value(T number) {
    bytes(&number, sizeof number);
  }
  /// Flushes and closes; false when any write failed (disk full, I/O error).
  bool close() {
    flush();
    const bool ok = !failed_ && std::fclose(file_) == 0;
    file_ = nullptr;
    return ok;
  }

 private:
  static constexpr std::size_t flush_size = std::size_t{1} << 20;
  void flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
      failed_ = true;
    buffer_.clear();
  }
  std::FILE* file_;
  int open_errno_;
  std::vector<char> buffer_;
  std::uint64_t written_ = 0;
  bool failed_ = false;
};

/// Writes `path` as PATH.tmp and renames it over `path` only once complete.
void write_atomically(const std::string& path, std::string_view what,
                      const std::function<void(BufferedFile&)>& write) {
  const std::string temporary = path + ".tmp";
  {
    BufferedFile file(temporary);
    if (!file.is_open())
      throw InputError(cat("cannot write ", what, " file '", path, "' (", temporary, ": ",
                           std::strerror(file.open_errno()), ")"));
    try {
      write(file);
    } catch (...) {
      std::remove(temporary.c_str());
      throw;
    }
    if (!file.close()) {
      std::remove(temporary.c_str());
      throw Error(cat("writing ", what, " file '", path, "' failed: ", std::strerror(errno)));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(temporary.c_str());
    throw InputError(cat("cannot write ", what, " file '", path, "': ", std::strerror(rename_errno)));
  }
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

double density(const State& state, const Gas&) { return state[0]; }
double energy(const State& state, const Gas&) { return state[3]; }
double mach_number(const State& state, const Gas& gas) {
  return std::hypot(state[1], state[2]) / state[0] / sound_speed(state, gas);
}

/// One appended array: its XML attributes and the function that writes its values.
struct AppendedArray {
  std::string_view section;  ///< PointData, CellData, Points or Cells
  std::string_view name;
  std::string_view type;  ///< Float64, Int64 or UInt8
  int components;
  std::uint64_t bytes;
  std::function<void(BufferedFile&)> write;
};

/// Evaluates the modal solution at the lattice nodes of elements in chunks, so a point array is
/// one pass over the coefficients with a bounded buffer, and the evaluation runs in parallel.
class NodeEvaluator {
 public:
  NodeEvaluator(const SolutionView& solution, const std::vector<LatticeNode>& nodes, int n)
      : solution_(solution),
        n_nodes_(static_cast<int>(nodes.size())),
        n_basis_(n_basis(Shape::triangle, solution.order)) {
    basis_table_.resize(nodes.size() * static_cast<std::size_t>(n_basis_));
    for (std::size_t q = 0; q < nodes.size(); ++q) {
      const Point3 xi{2.0 * nodes[q].i / n - 1.0, 2.0 * nodes[q].j / n - 1.0, 0.0};
      basis_values(Shape::triangle, solution.order, xi, basis_table_.data() + q * n_basis_);
    }
  }

  /// Calls visit(State) for every node of every element, element by element.
  template <class Visit>
  void for_each_state(Visit visit) {
    constexpr index_t chunk = 16384;
    const index_t n_elements = solution_.n_elements;
    const double* coefficients = solution_.coefficients->data();
    const double* table = basis_table_.data();
    const int n_nodes = n_nodes_, n_basis_functions = n_basis_;
    states_.resize(static_cast<std::size_t>(std::min(chunk, n_elements) * n_nodes));
    State* states = states_.data();
    for (index_t begin = 0; begin < n_elements; begin += chunk) {
      const index_t end = std::min(begin + chunk, n_elements);
#pragma omp parallel for
      for (index_t e = begin; e < end; ++e)
        for (int q = 0; q < n_nodes; ++q) {
          State state{};
          for (int variable = 0; variable < n_variables; ++variable)
            for (int j = 0; j < n_basis_functions; ++j)
              state[variable] += coefficients[(variable * n_basis_functions + j) * n_elements + e] *
                                 table[q * n_basis_functions + j];
          states[(e - begin) * n_nodes + q] = state;
        }
      for (index_t k = 0; k < (end - begin) * n_nodes; ++k) visit(states[k]);
    }
  }

 private:
  const SolutionView& solution_;
  int n_nodes_, n_basis_;
  std::vector<double> basis_table_;
  std::vector<State> states_;
};

}  // namespace

void write_vtu(const std::string& path, const SolutionView& solution, double time,
               const VtuOptions& options) {
  if (options.subdivisions < 0)
    throw InputError(cat("VTU subdivisions must be >= 0, got ", options.subdivisions));
  FLOWDG_ASSERT(solution.order >= 0 && solution.order <= max_basis_order, "order ", solution.order);
  const index_t n_elements = solution.n_elements;
  const int n = options.subdivisions > 0 ? options.subdivisions : std::max(1, solution.order);
  FLOWDG_ASSERT(solution.vertices->size() == static_cast<std::size_t>(3 * n_elements), "vertex count");
  FLOWDG_ASSERT(
      solution.coefficients->size() ==
          static_cast<std::size_t>(n_variables * n_basis(Shape::triangle, solution.order) * n_elements),
      "coefficient count");

  const std::vector<LatticeNode> nodes = vtk_lagrange_triangle_nodes(n);
  const std::vector<std::array<int, 3>> triangles = sub_triangles(n, nodes);
  const bool lagrange = options.cells == VtuCells::lagrange;
  const index_t n_nodes = static_cast<index_t>(nodes.size());
  const index_t n_points = n_elements * n_nodes;
  const index_t cells_per_element = lagrange ? 1 : static_cast<index_t>(triangles.size());
  const index_t n_cells = n_elements * cells_per_element;
  const index_t nodes_per_cell = lagrange ? n_nodes : 3;
  const std::vector<Point3>& vertices = *solution.vertices;
  const Gas gas = solution.gas;
  NodeEvaluator evaluator(solution, nodes, n);

  const auto scalar_field = [&](double (*field)(const State&, const Gas&)) {
    return [&evaluator, &gas, field](BufferedFile& out) {
      evaluator.for_each_state([&](const State& state) { out.value(field(state, gas)); });
    };
  };
  const std::uint64_t point_bytes = static_cast<std::uint64_t>(n_points) * 8;
  const std::uint64_t cell_bytes = static_cast<std::uint64_t>(n_cells) * 8;
  const std::vector<AppendedArray> arrays = {
      {"PointData", "density", "Float64", 1, point_bytes, scalar_field(density)},
      {"PointData", "velocity", "Float64", 3, 3 * point_bytes,
       [&](BufferedFile& out) {
         evaluator.for_each_state([&](const State& state) {
           out.value(state[1] / state[0]);
           out.value(state[2] / state[0]);
           out.value(0.0);
         });
       }},
      {"PointData", "pressure", "Float64", 1, point_bytes, scalar_field(pressure)},
      {"PointData", "mach", "Float64", 1, point_bytes, scalar_field(mach_number)},
      {"PointData", "energy", "Float64", 1, point_bytes, scalar_field(energy)},
      {"CellData", "element", "Int64", 1, cell_bytes,
       [&](BufferedFile& out) {
         for (index_t e = 0; e < n_elements; ++e)
           for (index_t k = 0; k < cells_per_element; ++k) out.value(std::int64_t{e});
       }},
      {"Points", "Points", "Float64", 3, 3 * point_bytes,
       [&](BufferedFile& out) {
         for (index_t e = 0; e < n_elements; ++e) {
           const Point3 v0 = vertices[3 * e], edge01 = vertices[3 * e + 1] - v0,
                        edge02 = vertices[3 * e + 2] - v0;
           for (const LatticeNode& node : nodes) {
             const Point3 x =
                 v0 + (static_cast<double>(node.i) / n) * edge01 + (static_cast<double>(node.j) / n) * edge02;
             out.value(x.x);
             out.value(x.y);
             out.value(x.z);
           }
         }
       }},
      {"Cells", "connectivity", "Int64", 1, static_cast<std::uint64_t>(n_cells * nodes_per_cell) * 8,
       [&](BufferedFile& out) {
         for (index_t e = 0; e < n_elements; ++e) {
           const std::int64_t first = e * n_nodes;
           if (lagrange)
             for (index_t q = 0; q < n_nodes; ++q) out.value(first + q);
           else
             for (const auto& triangle : triangles)
               for (const int q : triangle) out.value(first + q);
         }
       }},
      {"Cells", "offsets", "Int64", 1, cell_bytes,
       [&](BufferedFile& out) {
         for (index_t c = 1; c <= n_cells; ++c) out.value(std::int64_t{c * nodes_per_cell});
       }},
      {"Cells", "types", "UInt8", 1, static_cast<std::uint64_t>(n_cells),
       [&](BufferedFile& out) {
         const std::uint8_t type = lagrange ? vtk_lagrange_triangle : vtk_triangle;
         for (index_t c = 0; c < n_cells; ++c) out.value(type);
       }},
  };

  // The header holds every array's offset, so it is written first and the data streams after it.
  std::string header = cat("<?xml version=\"1.0\"?>\n",
                           "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
                           "header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <FieldData>\n",
                           "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
                           "format=\"ascii\">",
                           time, "</DataArray>\n    </FieldData>\n", "    <Piece NumberOfPoints=\"", n_points,
                           "\" NumberOfCells=\"", n_cells, "\">\n");
  std::uint64_t offset = 0;
  for (const std::string_view section : {"PointData", "CellData", "Points", "Cells"}) {
    header += cat("      <", section,
                  section == "PointData"  ? " Scalars=\"density\" Vectors=\"velocity\""
                  : section == "CellData" ? " Scalars=\"element\""
                                          : "",
                  ">\n");
    for (const AppendedArray& array : arrays) {
      if (array.section != section) continue;
      header += cat("        <DataArray type=\"", array.type, "\" Name=\"", array.name, "\"",
                    array.components > 1 ? cat(" NumberOfComponents=\"", array.components, "\"") : "",
                    " format=\"appended\" offset=\"", offset, "\"/>\n");
      offset += sizeof(std::uint64_t) + array.bytes;
    }
    header += cat("      </", section, ">\n");
  }
  header += "    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n_";

  write_atomically(path, "VTU", [&](BufferedFile& out) {
    out.text(header);
    for (const std::string_view section : {"PointData", "CellData", "Points", "Cells"})
      for (const AppendedArray& array : arrays) {
        if (array.section != section) continue;
        out.value(array.bytes);
        const std::uint64_t start = out.written();
        array.write(out);
        FLOWDG_ASSERT(out.written() - start == array.bytes, "array ", array.name, " size");
      }
    // meshio finds the end of the raw data at the last newline before </AppendedData>.
    out.text("\n  </AppendedData>\n</VTKFile>\n");
  });
}

PvdSeries::PvdSeries(std::string pvd_path) : path_(std::move(pvd_path)) {}

namespace {
/// The value of attribute `name` in a line like <DataSet timestep="0.1" ... file="a.vtu"/>.
std::optional<std::string> xml_attribute(const std::string& line, const std::string& name) {
  const auto start = line.find(" " + name + "=\"");
  if (start == std::string::npos) return std::nullopt;
  const auto begin = start + name.size() + 3;
  const auto end = line.find('"', begin);
  if (end == std::string::npos) return std::nullopt;
  std::string value = line.substr(begin, end - begin);
  const std::pair<const char*, char> entities[] = {{"&quot;", '"'}, {"&apos;", '\''}, {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}};
  for (const auto& [entity, character] : entities)
    for (auto at = value.find(entity); at != std::string::npos; at = value.find(entity, at + 1))
      value.replace(at, std::strlen(entity), 1, character);
  return value;
}
}  // namespace

void PvdSeries::resume(double up_to_time) {
  std::ifstream in(path_);
  if (!in) return;
  std::string line;
  while (std::getline(in, line)) {
    const auto time = xml_attribute(line, "timestep"), file = xml_attribute(line, "file");
    if (!time || !file) continue;
    double value = 0;
    const auto [end, status] = std::from_chars(time->data(), time->data() + time->size(), value);
    if (status != std::errc() || end != time->data() + time->size())
      throw InputError(cat("cannot continue the series ", path_, ": timestep \"", *time, "\" is not a number"));
    if (value <= up_to_time) entries_.emplace_back(value, *file);
  }
}

void PvdSeries::add(double time, const std::string& vtu_file) {
  entries_.emplace_back(time, vtu_file);
  std::string text =
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n";
  for (const auto& [entry_time, file] : entries_)
    text += cat("    <DataSet timestep=\"", entry_time, "\" group=\"\" part=\"0\" file=\"", xml_escape(file),
                "\"/>\n");
  text += "  </Collection>\n</VTKFile>\n";
  write_atomically(path_, "PVD", [&](BufferedFile& out) { out.text(text); });
}

}  // namespace flowdg::euler2d
