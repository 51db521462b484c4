// VTU/PVD output: a polynomial state of degree <= p is projected exactly onto the modal basis,
// written, and read back byte by byte (and by meshio and the plot tool where Python has them).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/io/vtu.hpp"
#include "flowdg/mesh/generators.hpp"

using namespace flowdg;
using namespace flowdg::euler2d;
namespace fs = std::filesystem;

namespace {

/// A smooth state whose conserved variables are polynomials of total degree `degree` (<= 2), so
/// their L2 projection at order >= degree reproduces them to rounding.
State exact_state(Point3 x, int degree) {
  const double linear = degree >= 1 ? 1.0 : 0.0, quadratic = degree >= 2 ? 1.0 : 0.0;
  return {{1.0 + linear * 0.1 * x.x + quadratic * 0.2 * x.y * x.y, 0.3 + linear * 0.1 * x.y,
           -0.2 + quadratic * 0.05 * x.x * x.y, 2.5 + quadratic * 0.1 * x.x * x.x}};
}

Point3 lattice_point(const std::vector<Point3>& vertices, index_t e, int n, std::array<int, 2> node) {
  const Point3 v0 = vertices[3 * e];
  return v0 + (static_cast<double>(node[0]) / n) * (vertices[3 * e + 1] - v0) +
         (static_cast<double>(node[1]) / n) * (vertices[3 * e + 2] - v0);
}

/// An affine triangle mesh with coefficients of exact_state(degree = min(order, 2)).
struct Solution {
  std::vector<Point3> vertices;
  std::vector<double> coefficients;
  int order = 0;
  index_t n_elements = 0;
  SolutionView view() const { return {&vertices, n_elements, order, &coefficients, Gas{}}; }
};

Solution project_exact_state(int order) {
  // Perturbed, so the elements are not all right triangles and the map is tested in general.
  const Mesh mesh = rectangle_triangles(0.0, 2.0, -1.0, 1.0, 3, 2, TriangleLayout::perturbed, 0.2, 7);
  Solution solution;
  solution.order = order;
  solution.n_elements = mesh.n_elements();
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    for (int k = 0; k < 3; ++k) solution.vertices.push_back(mesh.nodes[mesh.element_node_ids(e)[k]]);
  const index_t K = solution.n_elements;
  const int n_basis_functions = n_basis(Shape::triangle, order);
  solution.coefficients.assign(static_cast<std::size_t>(n_variables * n_basis_functions * K), 0.0);
  // The basis is orthonormal on the reference triangle: c_j = integral of u phi_j, exact with a
  // degree-2p rule because u is of degree <= p.
  const QuadratureRule rule = triangle_rule(2 * order);
  std::vector<double> phi(static_cast<std::size_t>(n_basis_functions));
  for (index_t e = 0; e < K; ++e)
    for (int q = 0; q < rule.size(); ++q) {
      const Point3 xi = rule.points[q];
      const Point3 x = solution.vertices[3 * e] +
                       (0.5 * (1 + xi.x)) * (solution.vertices[3 * e + 1] - solution.vertices[3 * e]) +
                       (0.5 * (1 + xi.y)) * (solution.vertices[3 * e + 2] - solution.vertices[3 * e]);
      const State u = exact_state(x, std::min(order, 2));
      basis_values(Shape::triangle, order, xi, phi.data());
      for (int v = 0; v < n_variables; ++v)
        for (int j = 0; j < n_basis_functions; ++j)
          solution.coefficients[(v * n_basis_functions + j) * K + e] += rule.weights[q] * u[v] * phi[j];
    }
  return solution;
}

// VTK's Lagrange triangle node order as (i, j) with parametric point (i / n, j / n): vertices,
// edges 0-1, 1-2, 2-0 each in its own direction, then the interior as an order n - 3 triangle.
const std::vector<std::array<int, 2>>& vtk_lattice(int n) {
  // clang-format off
  static const std::vector<std::vector<std::array<int, 2>>> tables = {
      {},
      {{0, 0}, {1, 0}, {0, 1}},
      {{0, 0}, {2, 0}, {0, 2}, {1, 0}, {1, 1}, {0, 1}},
      {{0, 0}, {3, 0}, {0, 3}, {1, 0}, {2, 0}, {2, 1}, {1, 2}, {0, 2}, {0, 1}, {1, 1}},
      {{0, 0}, {4, 0}, {0, 4}, {1, 0}, {2, 0}, {3, 0}, {3, 1}, {2, 2}, {1, 3}, {0, 3}, {0, 2}, {0, 1},
       {1, 1}, {2, 1}, {1, 2}},
  };
  // clang-format on
  return tables.at(static_cast<std::size_t>(n));
}

/// A .vtu as written by write_vtu: the XML header and the raw appended arrays behind it.
class VtuFile {
 public:
  explicit VtuFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    contents_.assign(std::istreambuf_iterator<char>(in), {});
    const std::string marker = "<AppendedData encoding=\"raw\">\n_";
    const std::size_t at = contents_.find(marker);
    if (at == std::string::npos) throw std::runtime_error("no raw appended data in " + path.string());
    header_ = contents_.substr(0, at);
    data_begin_ = at + marker.size();
  }

  /// The first capture of `pattern` in the XML header.
  std::string header_match(const std::string& pattern) const {
    std::smatch match;
    if (!std::regex_search(header_, match, std::regex(pattern)))
      throw std::runtime_error("no match: " + pattern);
    return match[1];
  }
  index_t count(const std::string& attribute) const {
    return std::stoll(header_match(attribute + "=\"(\\d+)\""));
  }

  template <class T>
  std::vector<T> array(const std::string& name, const std::string& type, int components = 1) const {
    const std::string tag =
        "<DataArray type=\"" + type + "\" Name=\"" + name + "\"" +
        (components > 1 ? " NumberOfComponents=\"" + std::to_string(components) + "\"" : "") +
        " format=\"appended\" offset=\"(\\d+)\"/>";
    const std::size_t begin = data_begin_ + std::stoull(header_match(tag));
    std::uint64_t bytes = 0;
    if (begin + sizeof bytes > contents_.size()) throw std::runtime_error(name + " starts past the end");
    std::memcpy(&bytes, contents_.data() + begin, sizeof bytes);
    if (bytes % sizeof(T) != 0 || begin + sizeof bytes + bytes > contents_.size())
      throw std::runtime_error(name + " has a bad size");
    std::vector<T> values(bytes / sizeof(T));
    std::memcpy(values.data(), contents_.data() + begin + sizeof bytes, bytes);
    data_end_ = std::max(data_end_, begin + sizeof bytes + bytes);
    return values;
  }
  /// What follows the last array read.
  std::string tail() const { return contents_.substr(data_end_); }

 private:
  std::string contents_, header_;
  std::size_t data_begin_ = 0;
  mutable std::size_t data_end_ = 0;
};

/// A fresh directory per test, removed afterwards.
struct ScratchDirectory {
  fs::path path;
  ScratchDirectory() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           cat("flowdg_", test->test_suite_name(), "_", test->name(), "_", ::getpid());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDirectory() { fs::remove_all(path); }
};

struct CommandResult {
  int exit_code;
  std::string output;
};

/// Runs a shell command, capturing stdout and stderr together.
CommandResult run_command(const std::string& command) {
  std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

const char* const system_python = "/usr/bin/python3";

/// Empty when /usr/bin/python3 imports every module, else why not.
std::string python_lacks(const std::string& modules) {
  if (!fs::exists(system_python)) return cat(system_python, " is absent");
  if (run_command(cat(system_python, " -c 'import ", modules, "'")).exit_code != 0)
    return cat(system_python, " cannot import ", modules);
  return "";
}

// Signed area of (a, b, c): positive when counter-clockwise.
double signed_area(Point3 a, Point3 b, Point3 c) { return 0.5 * cross(b - a, c - a).z; }

struct Case {
  int order;
  VtuCells cells;
  int subdivisions;
  int n;  ///< expected nodes per edge minus one
};

/// Reads back every array of a written file and checks it against the exact state and the mesh.
void check_file(const fs::path& path, const Solution& solution, const Case& c, double time) {
  SCOPED_TRACE(cat("order ", c.order, ", subdivisions ", c.subdivisions,
                   c.cells == VtuCells::lagrange ? ", lagrange" : ", subdivided"));
  const VtuFile file(path);
  const index_t K = solution.n_elements;
  const int n = c.n;
  const auto& lattice = vtk_lattice(n);
  const index_t n_nodes = static_cast<index_t>(lattice.size());
  const bool lagrange = c.cells == VtuCells::lagrange;
  const index_t cells_per_element = lagrange ? 1 : n * n;
  const index_t nodes_per_cell = lagrange ? n_nodes : 3;
  ASSERT_EQ(file.count("NumberOfPoints"), K * n_nodes);
  ASSERT_EQ(file.count("NumberOfCells"), K * cells_per_element);
  EXPECT_EQ(std::stod(file.header_match("Name=\"TimeValue\"[^>]*>([^<]*)<")), time);

  const auto density = file.array<double>("density", "Float64");
  const auto velocity = file.array<double>("velocity", "Float64", 3);
  const auto pressure_values = file.array<double>("pressure", "Float64");
  const auto mach = file.array<double>("mach", "Float64");
  const auto energy = file.array<double>("energy", "Float64");
  const auto element = file.array<std::int64_t>("element", "Int64");
  const auto points = file.array<double>("Points", "Float64", 3);
  const auto connectivity = file.array<std::int64_t>("connectivity", "Int64");
  const auto offsets = file.array<std::int64_t>("offsets", "Int64");
  const auto types = file.array<std::uint8_t>("types", "UInt8");
  EXPECT_EQ(file.tail(), "\n  </AppendedData>\n</VTKFile>\n");

  const index_t n_points = K * n_nodes, n_cells = K * cells_per_element;
  ASSERT_EQ(std::ssize(density), n_points);
  ASSERT_EQ(std::ssize(velocity), 3 * n_points);
  ASSERT_EQ(std::ssize(pressure_values), n_points);
  ASSERT_EQ(std::ssize(mach), n_points);
  ASSERT_EQ(std::ssize(energy), n_points);
  ASSERT_EQ(std::ssize(points), 3 * n_points);
  ASSERT_EQ(std::ssize(element), n_cells);
  ASSERT_EQ(std::ssize(offsets), n_cells);
  ASSERT_EQ(std::ssize(types), n_cells);
  ASSERT_EQ(std::ssize(connectivity), n_cells * nodes_per_cell);
  for (index_t cell = 0; cell < n_cells; ++cell) {
    EXPECT_EQ(offsets[cell], (cell + 1) * nodes_per_cell) << cell;
    EXPECT_EQ(types[cell], lagrange ? 69 : 5) << cell;
    EXPECT_EQ(element[cell], cell / cells_per_element) << cell;
  }
  for (const std::int64_t id : connectivity) ASSERT_TRUE(id >= 0 && id < n_points) << id;

  const auto point = [&](std::int64_t id) {
    return Point3{points[3 * id], points[3 * id + 1], points[3 * id + 2]};
  };
  const Gas gas;
  for (index_t e = 0; e < K; ++e) {
    // The nodes of element e, in cell order: the Lagrange cell's connectivity, or the element's
    // block of points (the sub-triangles index into that same block).
    std::vector<std::int64_t> ids(static_cast<std::size_t>(n_nodes));
    for (index_t q = 0; q < n_nodes; ++q) ids[q] = lagrange ? connectivity[e * n_nodes + q] : e * n_nodes + q;
    for (index_t q = 0; q < n_nodes; ++q) {
      const std::int64_t id = ids[q];
      const Point3 expected = lattice_point(solution.vertices, e, n, lattice[q]);
      const Point3 x = point(id);
      EXPECT_NEAR(x.x, expected.x, 1e-14) << "element " << e << " node " << q;
      EXPECT_NEAR(x.y, expected.y, 1e-14) << "element " << e << " node " << q;
      EXPECT_EQ(x.z, 0.0);
      const State u = exact_state(expected, std::min(c.order, 2));
      EXPECT_NEAR(density[id], u[0], 1e-12) << "element " << e << " node " << q;
      EXPECT_NEAR(velocity[3 * id], u[1] / u[0], 1e-12);
      EXPECT_NEAR(velocity[3 * id + 1], u[2] / u[0], 1e-12);
      EXPECT_EQ(velocity[3 * id + 2], 0.0);
      EXPECT_NEAR(pressure_values[id], pressure(u, gas), 1e-12);
      EXPECT_NEAR(mach[id], std::hypot(u[1], u[2]) / u[0] / sound_speed(u, gas), 1e-12);
      EXPECT_NEAR(energy[id], u[3], 1e-12);
    }
    // VTK's convention seen in the positions themselves: vertices, then the edge nodes on edges
    // 0-1, 1-2, 2-0 running from the edge's first vertex to its second, then interior nodes.
    const Point3 v[3] = {solution.vertices[3 * e], solution.vertices[3 * e + 1],
                         solution.vertices[3 * e + 2]};
    const double area = signed_area(v[0], v[1], v[2]);
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(point(ids[k]).x, v[k].x, 1e-14);
      EXPECT_NEAR(point(ids[k]).y, v[k].y, 1e-14);
      double previous = 0.0;
      for (int t = 0; t < n - 1; ++t) {
        const Point3 x = point(ids[3 + k * (n - 1) + t]);
        const Point3 a = v[k], b = v[(k + 1) % 3];
        EXPECT_NEAR(signed_area(a, b, x), 0.0, 1e-14) << "edge " << k << " node " << t;
        const double along = dot(x - a, b - a) / dot(b - a, b - a);
        EXPECT_GT(along, previous) << "edge " << k << " node " << t;
        EXPECT_LT(along, 1.0) << "edge " << k << " node " << t;
        previous = along;
      }
    }
    for (index_t q = 3 * n; q < n_nodes; ++q)
      for (int k = 0; k < 3; ++k)
        EXPECT_GT(signed_area(v[k], v[(k + 1) % 3], point(ids[q])), 1e-3 * area) << "interior node " << q;

    if (!lagrange) {
      // The sub-triangles are exactly the lattice's n^2 counter-clockwise triangles.
      std::set<std::array<std::array<int, 2>, 3>> expected, written;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i + j < n; ++i) {
          std::array<std::array<int, 2>, 3> up{{{i, j}, {i + 1, j}, {i, j + 1}}};
          std::ranges::sort(up);
          expected.insert(up);
          if (i + j + 1 < n) {
            std::array<std::array<int, 2>, 3> down{{{i + 1, j}, {i + 1, j + 1}, {i, j + 1}}};
            std::ranges::sort(down);
            expected.insert(down);
          }
        }
      for (index_t t = 0; t < cells_per_element; ++t) {
        const std::int64_t* corner = &connectivity[3 * (e * cells_per_element + t)];
        std::array<std::array<int, 2>, 3> triangle;
        for (int k = 0; k < 3; ++k) {
          ASSERT_TRUE(corner[k] >= e * n_nodes && corner[k] < (e + 1) * n_nodes) << "foreign node";
          triangle[k] = lattice[corner[k] - e * n_nodes];
        }
        EXPECT_NEAR(signed_area(point(corner[0]), point(corner[1]), point(corner[2])), area / (n * n), 1e-14);
        std::ranges::sort(triangle);
        written.insert(triangle);
      }
      EXPECT_EQ(written, expected) << "element " << e;
    }
  }
}

template <class Function>
void expect_input_error_naming(Function function, const std::string& text) {
  try {
    function();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << "one line";
  }
}

}  // namespace

TEST(Vtu, LagrangeAndSubdividedCellsReproduceTheExactStateAtVtkOrderedNodes) {
  const ScratchDirectory scratch;
  const std::vector<Case> cases = {
      {0, VtuCells::lagrange, 0, 1},   {1, VtuCells::lagrange, 0, 1},   {2, VtuCells::lagrange, 0, 2},
      {3, VtuCells::lagrange, 0, 3},   {2, VtuCells::lagrange, 4, 4},   {1, VtuCells::subdivided, 0, 1},
      {2, VtuCells::subdivided, 0, 2}, {3, VtuCells::subdivided, 0, 3}, {2, VtuCells::subdivided, 4, 4},
  };
  for (const Case& c : cases) {
    const Solution solution = project_exact_state(c.order);
    const fs::path path = scratch.path / "solution.vtu";
    const double time = 0.1 * c.order + 1.0 / 3.0;
    write_vtu(path.string(), solution.view(), time, {c.cells, c.subdivisions});
    check_file(path, solution, c, time);
  }
}

TEST(Vtu, MeshioReadsPointsCellsAndDensity) {
  if (const std::string reason = python_lacks("meshio"); !reason.empty()) GTEST_SKIP() << reason;
  const ScratchDirectory scratch;
  const Solution solution = project_exact_state(2);
  for (const VtuCells cells : {VtuCells::lagrange, VtuCells::subdivided}) {
    const fs::path path = scratch.path / "solution.vtu";
    write_vtu(path.string(), solution.view(), 0.75, {cells, 0});
    // Point 10 is node 4 of element 1: lattice (1, 1) of the order-2 cell, the middle of edge 1-2.
    const CommandResult result = run_command(
        cat(system_python, " -c \"import meshio; m = meshio.read('", path.string(),
            "'); print(len(m.points), m.cells[0].type, len(m.cells[0].data), m.cells[0].data.shape[1], "
            "repr(float(m.point_data['density'][10])), float(m.field_data['TimeValue'][0]))\""));
    ASSERT_EQ(result.exit_code, 0) << result.output;
    std::istringstream words(result.output);
    std::string type;
    index_t n_points = 0, n_cells = 0, nodes_per_cell = 0;
    double density = 0, time = 0;
    words >> n_points >> type >> n_cells >> nodes_per_cell >> density >> time;
    const bool lagrange = cells == VtuCells::lagrange;
    EXPECT_EQ(n_points, 6 * solution.n_elements);
    EXPECT_EQ(type, lagrange ? "VTK_LAGRANGE_TRIANGLE" : "triangle");
    EXPECT_EQ(n_cells, (lagrange ? 1 : 4) * solution.n_elements);
    EXPECT_EQ(nodes_per_cell, lagrange ? 6 : 3);
    EXPECT_NEAR(density, exact_state(lattice_point(solution.vertices, 1, 2, {1, 1}), 2)[0], 1e-12);
    EXPECT_EQ(time, 0.75);
  }
}

TEST(Vtu, WritesThroughATemporaryFileAndRenames) {
  const ScratchDirectory scratch;
  const Solution solution = project_exact_state(1);
  const fs::path path = scratch.path / "solution.vtu", temporary = scratch.path / "solution.vtu.tmp";
  write_vtu(path.string(), solution.view(), 0.0);
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(temporary));

  // When the temporary file cannot be made, the file under the real name is left as it was.
  std::ofstream(path) << "previous";
  fs::create_directory(temporary);
  expect_input_error_naming([&] { write_vtu(path.string(), solution.view(), 1.0); }, path.string());
  std::ifstream previous(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(previous), {}), "previous");
}

TEST(Vtu, UnwritablePathOrNegativeSubdivisionsIsAnInputError) {
  const ScratchDirectory scratch;
  const Solution solution = project_exact_state(1);
  const std::string path = (scratch.path / "no_such_directory" / "solution.vtu").string();
  expect_input_error_naming([&] { write_vtu(path, solution.view(), 0.0); }, path);
  expect_input_error_naming(
      [&] {
        write_vtu((scratch.path / "x.vtu").string(), solution.view(), 0.0, {VtuCells::lagrange, -1});
      },
      "subdivisions");
  expect_input_error_naming([&] { PvdSeries(path + ".pvd").add(0.0, "a.vtu"); }, path + ".pvd");
}

TEST(Vtu, PvdListsEveryStepInOrderAsValidXml) {
  const ScratchDirectory scratch;
  const fs::path pvd = scratch.path / "run.pvd";
  PvdSeries series(pvd.string());
  const std::vector<std::pair<double, std::string>> steps = {
      {0.0, "run_0000.vtu"}, {0.125, "run_0001.vtu"}, {1.0 / 3.0, "fields/a&b \"2\".vtu"}};
  for (std::size_t k = 0; k < steps.size(); ++k) {
    series.add(steps[k].first, steps[k].second);
    EXPECT_FALSE(fs::exists(pvd.string() + ".tmp"));
    // Rewritten on every add: the file on disk always lists every step so far, in order.
    std::ifstream in(pvd);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    const std::regex dataset("<DataSet timestep=\"([^\"]*)\"[^>]* file=\"([^\"]*)\"/>");
    std::vector<std::pair<double, std::string>> listed;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), dataset); it != std::sregex_iterator();
         ++it)
      listed.emplace_back(std::stod((*it)[1]), (*it)[2]);
    ASSERT_EQ(listed.size(), k + 1);
    for (std::size_t i = 0; i <= k; ++i) EXPECT_EQ(listed[i].first, steps[i].first);
    EXPECT_EQ(listed[k].second, k < 2 ? steps[k].second : "fields/a&amp;b &quot;2&quot;.vtu");
  }
  // A real XML parser agrees: well formed, times in order, names unescaped.
  if (const std::string reason = python_lacks("xml.etree.ElementTree"); !reason.empty())
    GTEST_SKIP() << reason;
  const CommandResult result =
      run_command(cat(system_python, " -c \"import xml.etree.ElementTree as ET; r = ET.parse('", pvd.string(),
                      "').getroot(); print(r.get('type')); [print(d.get('timestep'), d.get('file')) for d in "
                      "r.iter('DataSet')]\""));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output,
            "Collection\n0 run_0000.vtu\n0.125 run_0001.vtu\n0.33333333333333331 fields/a&b \"2\".vtu\n");
}

TEST(PlotTool, DrawsDensityContoursAndRejectsUnknownFieldsAndMissingFiles) {
  if (const std::string reason = python_lacks("meshio, matplotlib"); !reason.empty()) GTEST_SKIP() << reason;
  const ScratchDirectory scratch;
  const std::string tool = cat(system_python, " ", FLOWDG_SOURCE_DIR, "/tools/plot_field.py ");
  const Solution solution = project_exact_state(3);
  for (const VtuCells cells : {VtuCells::lagrange, VtuCells::subdivided}) {
    const fs::path vtu = scratch.path / "solution.vtu", png = scratch.path / "density.png";
    write_vtu(vtu.string(), solution.view(), 0.5, {cells, 0});
    fs::remove(png);
    const CommandResult drawn = run_command(
        cat(tool, vtu.string(), " --field density --output ", png.string(), " --contours 20 --title test"));
    ASSERT_EQ(drawn.exit_code, 0) << drawn.output;
    std::ifstream in(png, std::ios::binary);
    const std::string bytes(std::istreambuf_iterator<char>(in), {});
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    // At this size an empty figure with axes is about 20 kB and a one-colour field with its
    // colorbar about 40 kB; 20 filled levels with their contour lines take several times that.
    EXPECT_GT(bytes.size(), 80000u);
  }
  // The tool splits Lagrange cells through its own copy of VTK's node order: it must match, or
  // the picture is scrambled.
  std::string expected;
  for (int n = 1; n <= 4; ++n) {
    std::string nodes;
    for (const auto& [i, j] : vtk_lattice(n)) nodes += cat(nodes.empty() ? "" : ", ", "(", i, ", ", j, ")");
    expected += cat("[", nodes, "] ", n * n, "\n");
  }
  const CommandResult lattice = run_command(cat(
      system_python, " -B -c \"import sys; sys.path.insert(0, '", FLOWDG_SOURCE_DIR,
      "/tools'); import plot_field as p; [print(p.vtk_lagrange_lattice(n), len(p.sub_triangles(n))) for n in "
      "range(1, 5)]\""));
  EXPECT_EQ(lattice.output, expected);
  const CommandResult unknown =
      run_command(cat(tool, (scratch.path / "solution.vtu").string(), " --field vorticity --output ",
                      (scratch.path / "x.png").string()));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("density"), std::string::npos)
      << "lists the fields present: " << unknown.output;
  const CommandResult missing =
      run_command(cat(tool, (scratch.path / "absent.vtu").string(), " --field density --output x.png"));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("absent.vtu"), std::string::npos) << missing.output;
}
