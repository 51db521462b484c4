#include "flowdg/io/vtu.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <optional>
#include <string_view>
#include <type_traits>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/io/vtk_lagrange.hpp"

namespace flowdg {
namespace {

// The appended data is the host's memory as is; VTK and meshio are told it is little-endian.
static_assert(std::endian::native == std::endian::little, "the VTU writer assumes a little-endian host");
// Points are written as they lie in memory: x, y, z of each in turn.
static_assert(sizeof(Point3) == 3 * sizeof(double) && std::is_standard_layout_v<Point3>);

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
    written_ += size;
    if (size >= flush_size) {
      // A whole array: straight to the file rather than through (and as large as) the buffer.
      flush();
      if (std::fwrite(data, 1, size, file_) != size) failed_ = true;
      return;
    }
    const char* begin = static_cast<const char*>(data);
    buffer_.insert(buffer_.end(), begin, begin + size);
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

/// One appended array: its XML attributes and the function that writes its values.
struct AppendedArray {
  std::string_view section;  ///< PointData, CellData, Points or Cells
  std::string name;          ///< XML-escaped
  std::string_view type;     ///< Float64, Int64 or UInt8
  int components;
  std::uint64_t bytes;
  std::function<void(BufferedFile&)> write;
};

std::size_t n_values(const VtuField& field) {
  return std::visit([](const auto& values) { return values.size(); }, field.values);
}

std::string_view vtk_type(const VtuField& field) {
  return std::holds_alternative<std::vector<double>>(field.values) ? "Float64" : "Int64";
}

void check_fields(const std::vector<VtuField>& fields, index_t n_entries, std::string_view kind) {
  for (const VtuField& field : fields) {
    FLOWDG_ASSERT(!field.name.empty(), kind, " field without a name");
    FLOWDG_ASSERT(field.components == 1 || field.components == 3, kind, " field ", field.name, " has ",
                  field.components, " components");
    FLOWDG_ASSERT(n_values(field) == static_cast<std::size_t>(field.components * n_entries), kind, " field ",
                  field.name, " has ", n_values(field), " values for ", n_entries, " ", kind, "s");
  }
}

/// ` Scalars="a" Vectors="b"`: the first scalar and the first vector field, which ParaView shows
/// first.
std::string active_fields(const std::vector<VtuField>& fields) {
  std::string attributes;
  for (const auto& [attribute, components] : {std::pair{"Scalars", 1}, {"Vectors", 3}}) {
    const auto field = std::ranges::find(fields, components, &VtuField::components);
    if (field != fields.end()) attributes += cat(" ", attribute, "=\"", xml_escape(field->name), "\"");
  }
  return attributes;
}

/// The node (index into VTK's order) in each connectivity slot of a Lagrange cell in the file.
/// The file says version 1.0, and VTK >= 9.1 reads Lagrange hexahedra of files older than 2.1 in
/// VTK 8's order (vtkXMLUnstructuredDataReader calls vtkUpdateCellsV8toV9), in which the inner
/// nodes of the vertical edges 2-6 and 3-7 come in the other order. Their slots are swapped here,
/// so VTK 8 and VTK 9 readers alike see VTK 9's cell; every other cell is written as it is.
std::vector<int> lagrange_connectivity(Shape shape, int order) {
  std::vector<int> slots(static_cast<std::size_t>(n_vtk_lagrange_nodes(shape, order)));
  std::iota(slots.begin(), slots.end(), 0);
  if (shape == Shape::hexahedron) {
    // Edges 0-7 along i and j, then 0-4, 1-5: edge 2-6 starts after ten edges of order - 1 nodes.
    const int edge_nodes = order - 1, edge_2_6 = 8 + 10 * edge_nodes;
    std::swap_ranges(slots.begin() + edge_2_6, slots.begin() + edge_2_6 + edge_nodes,
                     slots.begin() + edge_2_6 + edge_nodes);
  }
  return slots;
}

/// How a block's cells become the file's cells.
struct BlockLayout {
  index_t first_point;     ///< the block's first point in the file
  index_t nodes_per_cell;  ///< of the block's (Lagrange) cells
  /// The connectivity of one cell, as indices into its nodes: subdivided, its linear pieces in
  /// turn; lagrange, the one Lagrange cell (lagrange_connectivity).
  std::vector<int> cell_connectivity;
  index_t pieces_per_cell;
  index_t vertices_per_piece;
  std::uint8_t type;
};

}  // namespace

void write_vtu(const std::string& path, const std::vector<VtuCellBlock>& blocks,
               const std::vector<VtuField>& point_fields, const std::vector<VtuField>& cell_fields, double time,
               VtuCells cells) {
  const bool lagrange = cells == VtuCells::lagrange;
  std::vector<BlockLayout> layouts;
  index_t n_points = 0, n_block_cells = 0, n_cells = 0, n_connectivity = 0;
  for (const VtuCellBlock& block : blocks) {
    BlockLayout layout;
    layout.first_point = n_points;
    layout.nodes_per_cell = n_vtk_lagrange_nodes(block.shape, block.order);
    FLOWDG_ASSERT(block.points.size() == static_cast<std::size_t>(block.n_cells * layout.nodes_per_cell),
                  shape_name(block.shape), " block of ", block.n_cells, " cells of order ", block.order, " has ",
                  block.points.size(), " points");
    if (lagrange) {
      layout.cell_connectivity = lagrange_connectivity(block.shape, block.order);
      layout.vertices_per_piece = layout.nodes_per_cell;
      layout.type = vtk_lagrange_cell_type(block.shape);
    } else {
      layout.cell_connectivity = vtk_subdivision_cells(block.shape, block.order);
      layout.vertices_per_piece = n_vertices(block.shape);
      layout.type = vtk_linear_cell_type(block.shape);
    }
    layout.pieces_per_cell = std::ssize(layout.cell_connectivity) / layout.vertices_per_piece;
    n_points += block.n_cells * layout.nodes_per_cell;
    n_block_cells += block.n_cells;
    n_cells += block.n_cells * layout.pieces_per_cell;
    n_connectivity += block.n_cells * std::ssize(layout.cell_connectivity);
    layouts.push_back(std::move(layout));
  }
  check_fields(point_fields, n_points, "point");
  check_fields(cell_fields, n_block_cells, "cell");

  // Float64 and Int64 values alike take 8 bytes; a point takes three Float64.
  constexpr std::uint64_t value_bytes = 8, point_bytes = 3 * value_bytes;
  static_assert(sizeof(double) == value_bytes && sizeof(std::int64_t) == value_bytes);
  // Calls visit(its block's layout, its index in the block) for every cell of every block in turn.
  const auto for_each_cell = [&](const auto& visit) {
    for (std::size_t b = 0; b < blocks.size(); ++b)
      for (index_t c = 0; c < blocks[b].n_cells; ++c) visit(layouts[b], c);
  };
  std::vector<AppendedArray> arrays;
  for (const VtuField& field : point_fields)
    arrays.push_back({"PointData", xml_escape(field.name), vtk_type(field), field.components,
                      value_bytes * n_values(field), [&field](BufferedFile& out) {
                        std::visit([&](const auto& values) { out.bytes(values.data(), value_bytes * values.size()); },
                                   field.values);
                      }});
  for (const VtuField& field : cell_fields)
    arrays.push_back({"CellData", xml_escape(field.name), vtk_type(field), field.components,
                      value_bytes * static_cast<std::uint64_t>(n_cells * field.components),
                      [&field, &for_each_cell](BufferedFile& out) {
                        std::visit(
                            [&](const auto& values) {
                              // Each cell's value once per linear piece of it.
                              const auto* value = values.data();
                              for_each_cell([&](const BlockLayout& layout, index_t) {
                                for (index_t piece = 0; piece < layout.pieces_per_cell; ++piece)
                                  out.bytes(value, value_bytes * field.components);
                                value += field.components;
                              });
                            },
                            field.values);
                      }});
  arrays.push_back({"Points", "Points", "Float64", 3, point_bytes * n_points, [&](BufferedFile& out) {
                      for (const VtuCellBlock& block : blocks)
                        out.bytes(block.points.data(), point_bytes * block.points.size());
                    }});
  arrays.push_back({"Cells", "connectivity", "Int64", 1, value_bytes * n_connectivity, [&](BufferedFile& out) {
                      for_each_cell([&](const BlockLayout& layout, index_t c) {
                        const std::int64_t first = layout.first_point + c * layout.nodes_per_cell;
                        for (const int q : layout.cell_connectivity) out.value(first + q);
                      });
                    }});
  arrays.push_back({"Cells", "offsets", "Int64", 1, value_bytes * n_cells, [&](BufferedFile& out) {
                      std::int64_t end = 0;
                      for_each_cell([&](const BlockLayout& layout, index_t) {
                        for (index_t piece = 0; piece < layout.pieces_per_cell; ++piece)
                          out.value(end += layout.vertices_per_piece);
                      });
                    }});
  arrays.push_back({"Cells", "types", "UInt8", 1, static_cast<std::uint64_t>(n_cells), [&](BufferedFile& out) {
                      for_each_cell([&](const BlockLayout& layout, index_t) {
                        for (index_t piece = 0; piece < layout.pieces_per_cell; ++piece) out.value(layout.type);
                      });
                    }});

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
                  section == "PointData"  ? active_fields(point_fields)
                  : section == "CellData" ? active_fields(cell_fields)
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

}  // namespace flowdg

namespace flowdg::euler2d {

void write_vtu(const std::string& path, const SolutionView& solution, double time,
               const VtuOptions& options) {
  if (options.subdivisions < 0)
    throw InputError(cat("VTU subdivisions must be >= 0, got ", options.subdivisions));
  FLOWDG_ASSERT(solution.order >= 0 && solution.order <= max_basis_order, "order ", solution.order);
  const index_t n_elements = solution.n_elements;
  const int n = options.subdivisions > 0 ? options.subdivisions : std::max(1, solution.order);
  const int n_basis_functions = n_basis(Shape::triangle, solution.order);
  FLOWDG_ASSERT(solution.vertices->size() == static_cast<std::size_t>(3 * n_elements), "vertex count");
  FLOWDG_ASSERT(solution.coefficients->size() == static_cast<std::size_t>(n_variables * n_basis_functions * n_elements),
                "coefficient count");

  // The basis at the reference nodes of the order-n Lagrange triangle; the nodes' lattice indices
  // (i, j) give the affine map's weights i / n, j / n of the edges from vertex 0.
  const std::vector<std::array<int, 3>> lattice = vtk_lagrange_lattice(Shape::triangle, n);
  const std::vector<Point3> nodes = vtk_lagrange_nodes(Shape::triangle, n);
  const index_t n_nodes = std::ssize(nodes);
  std::vector<double> basis_table(nodes.size() * static_cast<std::size_t>(n_basis_functions));
  for (index_t q = 0; q < n_nodes; ++q)
    basis_values(Shape::triangle, solution.order, nodes[q], basis_table.data() + q * n_basis_functions);

  const index_t n_points = n_elements * n_nodes;
  VtuCellBlock block{Shape::triangle, n, n_elements, std::vector<Point3>(static_cast<std::size_t>(n_points))};
  std::vector<double> density(n_points), velocity(3 * n_points), pressure_values(n_points), mach(n_points),
      energy(n_points);
  const std::vector<Point3>& vertices = *solution.vertices;
  const double* coefficients = solution.coefficients->data();
  const Gas gas = solution.gas;
#pragma omp parallel for
  for (index_t e = 0; e < n_elements; ++e) {
    const Point3 v0 = vertices[3 * e], edge01 = vertices[3 * e + 1] - v0, edge02 = vertices[3 * e + 2] - v0;
    for (index_t q = 0; q < n_nodes; ++q) {
      const index_t point = e * n_nodes + q;
      block.points[point] =
          v0 + (static_cast<double>(lattice[q][0]) / n) * edge01 + (static_cast<double>(lattice[q][1]) / n) * edge02;
      State state{};
      for (int variable = 0; variable < n_variables; ++variable)
        for (int j = 0; j < n_basis_functions; ++j)
          state[variable] += coefficients[(variable * n_basis_functions + j) * n_elements + e] *
                             basis_table[q * n_basis_functions + j];
      density[point] = state[0];
      velocity[3 * point] = state[1] / state[0];
      velocity[3 * point + 1] = state[2] / state[0];
      velocity[3 * point + 2] = 0.0;
      pressure_values[point] = pressure(state, gas);
      mach[point] = std::hypot(state[1], state[2]) / state[0] / sound_speed(state, gas);
      energy[point] = state[3];
    }
  }
  std::vector<std::int64_t> element(static_cast<std::size_t>(n_elements));
  for (index_t e = 0; e < n_elements; ++e) element[e] = e;

  // Moved in one by one: a braced list would copy every array.
  std::vector<VtuCellBlock> blocks;
  blocks.push_back(std::move(block));
  std::vector<VtuField> point_fields, cell_fields;
  point_fields.push_back({"density", 1, std::move(density)});
  point_fields.push_back({"velocity", 3, std::move(velocity)});
  point_fields.push_back({"pressure", 1, std::move(pressure_values)});
  point_fields.push_back({"mach", 1, std::move(mach)});
  point_fields.push_back({"energy", 1, std::move(energy)});
  cell_fields.push_back({"element", 1, std::move(element)});
  flowdg::write_vtu(path, blocks, point_fields, cell_fields, time, options.cells);
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
