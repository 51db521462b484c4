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
#include <cstdlib>
#include <filesystem>
#include <map>
#include <fstream>
#include <iterator>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/io/vtk_lagrange.hpp"
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

Point3 lattice_point(const std::vector<Point3>& vertices, index_t e, int n, std::array<int, 3> node) {
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

// VTK's node order as lattice indices (i, j, k) of parametric point (i, j, k) / order, printed
// from VTK 9.7.2's own vtkLagrange* cells by tools/check_vtk_lagrange.py --print SHAPE ORDER:
// vertices, then edges, faces and interior, each in VTK's direction. Orders 2 and 3 of every
// shape, the tetrahedron's order 4 (its faces' orientation) and the triangle's orders 1 and 4.
const std::vector<std::array<int, 3>>& vtk_table(Shape shape, int order) {
  // clang-format off
  static const std::vector<std::array<int, 3>> triangle[] = {
      {},
      {{0, 0}, {1, 0}, {0, 1}},
      {{0, 0}, {2, 0}, {0, 2}, {1, 0}, {1, 1}, {0, 1}},
      {{0, 0}, {3, 0}, {0, 3}, {1, 0}, {2, 0}, {2, 1}, {1, 2}, {0, 2}, {0, 1}, {1, 1}},
      {{0, 0}, {4, 0}, {0, 4}, {1, 0}, {2, 0}, {3, 0}, {3, 1}, {2, 2}, {1, 3}, {0, 3}, {0, 2}, {0, 1},
       {1, 1}, {2, 1}, {1, 2}},
  };
  static const std::vector<std::array<int, 3>> quadrilateral[] = {
      {}, {},
      {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 0}, {2, 1}, {1, 2}, {0, 1}, {1, 1}},
      // Edges 0-1, 1-2, 3-2, 0-3: all along +i or +j, not around the cell.
      {{0, 0}, {3, 0}, {3, 3}, {0, 3}, {1, 0}, {2, 0}, {3, 1}, {3, 2}, {1, 3}, {2, 3}, {0, 1}, {0, 2},
       {1, 1}, {2, 1}, {1, 2}, {2, 2}},
  };
  static const std::vector<std::array<int, 3>> tetrahedron[] = {
      {}, {},
      {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1},
       {0, 1, 1}},
      // Face nodes: faces (0,1,3) y = 0, (1,2,3) x + y + z = 3, (0,2,3) x = 0, (0,1,2) z = 0.
      {{0, 0, 0}, {3, 0, 0}, {0, 3, 0}, {0, 0, 3}, {1, 0, 0}, {2, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 2, 0},
       {0, 1, 0}, {0, 0, 1}, {0, 0, 2}, {2, 0, 1}, {1, 0, 2}, {0, 2, 1}, {0, 1, 2}, {1, 0, 1}, {1, 1, 1},
       {0, 1, 1}, {1, 1, 0}},
      // Three nodes per face: each face's orientation shows.
      {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}, {0, 0, 4}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {3, 1, 0}, {2, 2, 0},
       {1, 3, 0}, {0, 3, 0}, {0, 2, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 2}, {0, 0, 3}, {3, 0, 1}, {2, 0, 2},
       {1, 0, 3}, {0, 3, 1}, {0, 2, 2}, {0, 1, 3}, {1, 0, 1}, {2, 0, 1}, {1, 0, 2}, {1, 2, 1}, {1, 1, 2},
       {2, 1, 1}, {0, 1, 1}, {0, 1, 2}, {0, 2, 1}, {1, 1, 0}, {1, 2, 0}, {2, 1, 0}, {1, 1, 1}},
  };
  static const std::vector<std::array<int, 3>> hexahedron[] = {
      {}, {},
      {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2}, {0, 2, 2}, {1, 0, 0},
       {2, 1, 0}, {1, 2, 0}, {0, 1, 0}, {1, 0, 2}, {2, 1, 2}, {1, 2, 2}, {0, 1, 2}, {0, 0, 1}, {2, 0, 1},
       {2, 2, 1}, {0, 2, 1}, {0, 1, 1}, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}, {1, 1, 1}},
      // Vertical edges 0-4, 1-5, 2-6, 3-7; faces x = 0, x = 1, y = 0, y = 1, z = 0, z = 1.
      {{0, 0, 0}, {3, 0, 0}, {3, 3, 0}, {0, 3, 0}, {0, 0, 3}, {3, 0, 3}, {3, 3, 3}, {0, 3, 3}, {1, 0, 0},
       {2, 0, 0}, {3, 1, 0}, {3, 2, 0}, {1, 3, 0}, {2, 3, 0}, {0, 1, 0}, {0, 2, 0}, {1, 0, 3}, {2, 0, 3},
       {3, 1, 3}, {3, 2, 3}, {1, 3, 3}, {2, 3, 3}, {0, 1, 3}, {0, 2, 3}, {0, 0, 1}, {0, 0, 2}, {3, 0, 1},
       {3, 0, 2}, {3, 3, 1}, {3, 3, 2}, {0, 3, 1}, {0, 3, 2}, {0, 1, 1}, {0, 2, 1}, {0, 1, 2}, {0, 2, 2},
       {3, 1, 1}, {3, 2, 1}, {3, 1, 2}, {3, 2, 2}, {1, 0, 1}, {2, 0, 1}, {1, 0, 2}, {2, 0, 2}, {1, 3, 1},
       {2, 3, 1}, {1, 3, 2}, {2, 3, 2}, {1, 1, 0}, {2, 1, 0}, {1, 2, 0}, {2, 2, 0}, {1, 1, 3}, {2, 1, 3},
       {1, 2, 3}, {2, 2, 3}, {1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1}, {1, 1, 2}, {2, 1, 2}, {1, 2, 2},
       {2, 2, 2}},
  };
  // clang-format on
  switch (shape) {
    case Shape::triangle: return triangle[order];
    case Shape::quadrilateral: return quadrilateral[order];
    case Shape::tetrahedron: return tetrahedron[order];
    default: return hexahedron[order];
  }
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
  const auto& lattice = vtk_table(Shape::triangle, n);
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
      std::set<std::array<std::array<int, 3>, 3>> expected, written;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i + j < n; ++i) {
          std::array<std::array<int, 3>, 3> up{{{i, j, 0}, {i + 1, j, 0}, {i, j + 1, 0}}};
          std::ranges::sort(up);
          expected.insert(up);
          if (i + j + 1 < n) {
            std::array<std::array<int, 3>, 3> down{{{i + 1, j, 0}, {i + 1, j + 1, 0}, {i, j + 1, 0}}};
            std::ranges::sort(down);
            expected.insert(down);
          }
        }
      for (index_t t = 0; t < cells_per_element; ++t) {
        const std::int64_t* corner = &connectivity[3 * (e * cells_per_element + t)];
        std::array<std::array<int, 3>, 3> triangle;
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

constexpr Shape vtk_shapes[] = {Shape::triangle, Shape::quadrilateral, Shape::tetrahedron, Shape::hexahedron};

/// The number of equispaced nodes of an order-n cell, counted independently of the library.
int lattice_size(Shape shape, int n) {
  int count = 0;
  const int n_k = dimension(shape) == 3 ? n : 0;
  for (int k = 0; k <= n_k; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i)
        count += shape == Shape::triangle || shape == Shape::tetrahedron ? i + j + k <= n : 1;
  return count;
}

/// Lattice point (i, j, k) of an order-n cell lies on how many of the reference element's
/// facets (edges in 2D, faces in 3D).
int facets_through(Shape shape, const std::array<int, 3>& node, int n) {
  const auto [i, j, k] = node;
  const auto on_ends = [n](int x) { return x == 0 || x == n ? 1 : 0; };
  switch (shape) {
    case Shape::triangle: return (i == 0) + (j == 0) + (i + j == n);
    case Shape::quadrilateral: return on_ends(i) + on_ends(j);
    case Shape::tetrahedron: return (i == 0) + (j == 0) + (k == 0) + (i + j + k == n);
    default: return on_ends(i) + on_ends(j) + on_ends(k);
  }
}

/// A block of `n_cells` cells whose node q of cell c is map(c, reference node q).
template <class Map>
VtuCellBlock mapped_block(Shape shape, int order, index_t n_cells, Map map) {
  VtuCellBlock block{shape, order, n_cells, {}};
  const std::vector<Point3> nodes = vtk_lagrange_nodes(shape, order);
  for (index_t c = 0; c < n_cells; ++c)
    for (const Point3& xi : nodes) block.points.push_back(map(c, xi));
  return block;
}

/// Cell c of a block: the reference element sheared, scaled and moved to (3 c + s, 2 s, -s) for
/// the s-th shape: an affine map in general position.
Point3 affine_map(Shape shape, index_t c, Point3 xi) {
  const double s = static_cast<double>(static_cast<int>(shape));
  return {3.0 * c + s + 0.8 * xi.x + 0.3 * xi.y - 0.1 * xi.z, 2.0 * s + 0.1 * xi.x + 0.7 * xi.y + 0.2 * xi.z,
          -s + 0.05 * xi.x - 0.1 * xi.y + 0.9 * xi.z};
}

/// A block of affinely mapped cells, cell c placed as cell first_cell + c of affine_map.
VtuCellBlock affine_block(Shape shape, int order, index_t n_cells, index_t first_cell = 0) {
  return mapped_block(shape, order, n_cells,
                      [shape, first_cell](index_t c, Point3 xi) { return affine_map(shape, first_cell + c, xi); });
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The fixed input of the golden files: three affine triangles (coordinates written out, so no
/// mesh generator can change them) and coefficients from a closed formula, every node's state
/// admissible (density near 1, pressure near 1).
struct GoldenSolution {
  std::vector<Point3> vertices{{0.0, 0.0, 0.0}, {1.0, 0.1, 0.0},  {0.2, 0.9, 0.0},  {1.0, 0.1, 0.0}, {1.3, 1.2, 0.0},
                               {0.2, 0.9, 0.0}, {-0.5, 0.25, 0.0}, {0.0, 0.0, 0.0}, {0.2, 0.9, 0.0}};
  index_t n_elements = 3;
  int order;
  std::vector<double> coefficients;
  explicit GoldenSolution(int polynomial_order) : order(polynomial_order) {
    const int n_basis_functions = n_basis(Shape::triangle, order);
    const double means[n_variables] = {1.0, 0.3, -0.2, 2.6};
    for (int variable = 0; variable < n_variables; ++variable)
      for (int j = 0; j < n_basis_functions; ++j)
        for (index_t e = 0; e < n_elements; ++e)
          // phi_0 = 1 / sqrt(2) on the reference triangle of area 2.
          coefficients.push_back(j == 0 ? std::sqrt(2.0) * means[variable] * (1.0 + 0.1 * e)
                                        : 0.01 * std::sin(1.0 + variable + 0.7 * j + 1.3 * e));
  }
  SolutionView view() const { return {&vertices, n_elements, order, &coefficients, Gas{}}; }
};

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
    EXPECT_NEAR(density, exact_state(lattice_point(solution.vertices, 1, 2, {1, 1, 0}), 2)[0], 1e-12);
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
            "Collection\n0 run_0000.vtu\n0.125 run_0001.vtu\n0.3333333333333333 fields/a&b \"2\".vtu\n");
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
    // With the velocity's streamlines over it (the discontinuous output's repeated points merged).
    fs::remove(png);
    const CommandResult streamlines =
        run_command(cat(tool, vtu.string(), " --field mach --output ", png.string(), " --streamlines 1.5"));
    ASSERT_EQ(streamlines.exit_code, 0) << streamlines.output;
    EXPECT_TRUE(fs::exists(png));
  }
  // The tool splits Lagrange cells through its own copy of VTK's node order: it must match, or
  // the picture is scrambled.
  std::string expected;
  for (int n = 1; n <= 4; ++n) {
    std::string nodes;
    for (const auto& node : vtk_table(Shape::triangle, n))
      nodes += cat(nodes.empty() ? "" : ", ", "(", node[0], ", ", node[1], ")");
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

TEST(VtkLagrange, NodesAreTheWholeLatticeVerticesFirstThenEdgesFacesInterior) {
  for (const Shape shape : vtk_shapes)
    for (int order = 1; order <= max_checked_vtk_lagrange_order; ++order) {
      SCOPED_TRACE(cat(shape_name(shape), " of order ", order));
      const auto lattice = vtk_lagrange_lattice(shape, order);
      const std::vector<Point3> nodes = vtk_lagrange_nodes(shape, order);
      const int count = lattice_size(shape, order);
      ASSERT_EQ(n_vtk_lagrange_nodes(shape, order), count);
      ASSERT_EQ(std::ssize(lattice), count);
      ASSERT_EQ(std::ssize(nodes), count);
      for (int v = 0; v < n_vertices(shape); ++v) {
        EXPECT_EQ(nodes[v].x, reference_vertex(shape, v).x) << "vertex " << v;
        EXPECT_EQ(nodes[v].y, reference_vertex(shape, v).y) << "vertex " << v;
        EXPECT_EQ(nodes[v].z, reference_vertex(shape, v).z) << "vertex " << v;
      }
      const bool simplex = shape == Shape::triangle || shape == Shape::tetrahedron;
      const bool three_dimensional = dimension(shape) == 3;
      int previous_dimension = 0;
      for (int q = 0; q < count; ++q) {
        const auto [i, j, k] = lattice[q];
        // On the lattice, inside the element; with `count` distinct nodes that is all of it.
        EXPECT_TRUE(i >= 0 && j >= 0 && k >= 0 && i <= order && j <= order && k <= order) << "node " << q;
        EXPECT_TRUE(!simplex || i + j + k <= order) << "node " << q;
        EXPECT_TRUE(three_dimensional || k == 0) << "node " << q;
        EXPECT_EQ(nodes[q].x, 2.0 * i / order - 1.0) << "node " << q;
        EXPECT_EQ(nodes[q].y, 2.0 * j / order - 1.0) << "node " << q;
        EXPECT_EQ(nodes[q].z, three_dimensional ? 2.0 * k / order - 1.0 : 0.0) << "node " << q;
        // The node's place: a vertex (dimension 0), on an edge, on a face, or inside.
        const int node_dimension = dimension(shape) - facets_through(shape, lattice[q], order);
        EXPECT_GE(node_dimension, previous_dimension) << "node " << q << " comes too late";
        previous_dimension = node_dimension;
      }
      EXPECT_EQ(std::set(lattice.begin(), lattice.end()).size(), lattice.size()) << "repeated nodes";
    }
}

TEST(VtkLagrange, OrderIsVtksOwnAtOrdersTwoAndThreeAndTheTetrahedronsFour) {
  for (const Shape shape : vtk_shapes)
    for (const int order : {2, 3}) {
      SCOPED_TRACE(cat(shape_name(shape), " of order ", order));
      EXPECT_EQ(vtk_lagrange_lattice(shape, order), vtk_table(shape, order));
    }
  for (const int order : {1, 4})
    EXPECT_EQ(vtk_lagrange_lattice(Shape::triangle, order), vtk_table(Shape::triangle, order));
  EXPECT_EQ(vtk_lagrange_lattice(Shape::tetrahedron, 4), vtk_table(Shape::tetrahedron, 4));
  EXPECT_EQ(vtk_lagrange_cell_type(Shape::triangle), 69);
  EXPECT_EQ(vtk_lagrange_cell_type(Shape::quadrilateral), 70);
  EXPECT_EQ(vtk_lagrange_cell_type(Shape::tetrahedron), 71);
  EXPECT_EQ(vtk_lagrange_cell_type(Shape::hexahedron), 72);
  EXPECT_EQ(vtk_linear_cell_type(Shape::triangle), 5);
  EXPECT_EQ(vtk_linear_cell_type(Shape::quadrilateral), 9);
  EXPECT_EQ(vtk_linear_cell_type(Shape::tetrahedron), 10);
  EXPECT_EQ(vtk_linear_cell_type(Shape::hexahedron), 12);
}

TEST(VtkLagrange, SubdivisionTilesTheLatticeWithPositiveCellsMeetingFaceToFace) {
  for (const Shape shape : vtk_shapes)
    for (int order = 1; order <= 6; ++order) {
      SCOPED_TRACE(cat(shape_name(shape), " of order ", order));
      const auto lattice = vtk_lagrange_lattice(shape, order);
      const std::vector<int> cells = vtk_subdivision_cells(shape, order);
      const int nv = n_vertices(shape), d = dimension(shape);
      ASSERT_EQ(cells.size() % nv, 0u);
      const std::size_t n_cells = cells.size() / nv;
      ASSERT_EQ(n_cells, static_cast<std::size_t>(d == 2 ? order * order : order * order * order));
      for (const int q : cells) ASSERT_TRUE(q >= 0 && q < std::ssize(lattice)) << q;

      // Measures in lattice units, times d! for simplices so that they are integers.
      const bool simplex = shape == Shape::triangle || shape == Shape::tetrahedron;
      const auto corner = [&](std::size_t c, int v) {
        const auto& node = lattice[cells[c * nv + v]];
        return Point3{static_cast<double>(node[0]), static_cast<double>(node[1]), static_cast<double>(node[2])};
      };
      double total = 0;
      for (std::size_t c = 0; c < n_cells; ++c) {
        const Point3 a = corner(c, 0);
        if (simplex) {
          const double measure = d == 2 ? cross(corner(c, 1) - a, corner(c, 2) - a).z
                                        : dot(cross(corner(c, 1) - a, corner(c, 2) - a), corner(c, 3) - a);
          EXPECT_EQ(measure, 1.0) << "cell " << c << ": a lattice simplex, positively oriented";
          total += measure;
        } else {
          // A unit square or cube with its corners in the reference element's vertex order.
          for (int v = 0; v < nv; ++v) {
            const Point3 offset = 0.5 * (reference_vertex(shape, v) - reference_vertex(shape, 0));
            EXPECT_EQ(corner(c, v).x - a.x, offset.x) << "cell " << c << " corner " << v;
            EXPECT_EQ(corner(c, v).y - a.y, offset.y) << "cell " << c << " corner " << v;
            EXPECT_EQ(corner(c, v).z - a.z, offset.z) << "cell " << c << " corner " << v;
          }
          total += 1.0;
        }
      }
      // Positive cells that fill the reference measure (order^d, over d! for a simplex)...
      EXPECT_EQ(total, d == 2 ? order * order : order * order * order);
      // ...and meet face to face: every facet (sorted node ids) is shared by two cells, or lies
      // on the element's boundary and belongs to one.
      std::map<std::vector<int>, int> facets;
      for (std::size_t c = 0; c < n_cells; ++c)
        for (int f = 0; f < n_faces(shape); ++f) {
          std::vector<int> facet;
          for (int k = 0; k < n_face_vertices(shape); ++k) facet.push_back(cells[c * nv + face_vertex(shape, f, k)]);
          std::ranges::sort(facet);
          ++facets[facet];
        }
      for (const auto& [facet, count] : facets) {
        // A facet lies on the boundary when all its nodes lie on one facet of the element.
        bool on_boundary = false;
        for (int axis = 0; axis < d; ++axis)
          for (const int end : {0, order})
            on_boundary |= (end == 0 || !simplex) &&
                           std::ranges::all_of(facet, [&](int q) { return lattice[q][axis] == end; });
        if (simplex)
          on_boundary |= std::ranges::all_of(
              facet, [&](int q) { return lattice[q][0] + lattice[q][1] + lattice[q][2] == order; });
        EXPECT_EQ(count, on_boundary ? 1 : 2) << "facet of nodes " << facet[0] << ", " << facet[1] << "...";
      }
    }
}

TEST(Vtu, TwoBlockMixedFileHasTheRightCountsOffsetsTypesAndFields) {
  const ScratchDirectory scratch;
  // Two order-2 triangles and three order-3 quadrilaterals: 2 * 6 + 3 * 16 = 60 points.
  std::vector<VtuCellBlock> blocks;
  blocks.push_back(affine_block(Shape::triangle, 2, 2));
  blocks.push_back(affine_block(Shape::quadrilateral, 3, 3));
  const index_t n_points = 60;
  std::vector<Point3> points = blocks[0].points;
  points.insert(points.end(), blocks[1].points.begin(), blocks[1].points.end());
  std::vector<double> height, velocity, volume{1.5, 2.5, 3.5, 4.5, 5.5};
  std::vector<std::int64_t> node(n_points), element{10, 11, 20, 21, 22};
  std::iota(node.begin(), node.end(), std::int64_t{100});
  for (const Point3& x : points) {
    height.push_back(x.y);
    velocity.insert(velocity.end(), {x.x, -x.y, 0.5});
  }
  const std::vector<VtuField> point_fields = {{"node", 1, node}, {"velocity", 3, velocity}, {"height", 1, height}};
  const std::vector<VtuField> cell_fields = {{"element", 1, element}, {"volume", 1, volume}};
  const fs::path path = scratch.path / "mixed.vtu";

  for (const VtuCells cells : {VtuCells::lagrange, VtuCells::subdivided}) {
    const bool lagrange = cells == VtuCells::lagrange;
    SCOPED_TRACE(lagrange ? "lagrange" : "subdivided");
    write_vtu(path.string(), blocks, point_fields, cell_fields, 2.5, cells);
    const VtuFile file(path);
    // Each block cell's pieces: itself, or its lattice's linear cells (4 triangles, 9 quads).
    const int pieces[2] = {lagrange ? 1 : 4, lagrange ? 1 : 9};
    const int piece_nodes[2] = {lagrange ? 6 : 3, lagrange ? 16 : 4};
    const index_t n_cells = 2 * pieces[0] + 3 * pieces[1];
    ASSERT_EQ(file.count("NumberOfPoints"), n_points);
    ASSERT_EQ(file.count("NumberOfCells"), n_cells);
    EXPECT_EQ(std::stod(file.header_match("Name=\"TimeValue\"[^>]*>([^<]*)<")), 2.5);
    EXPECT_EQ(file.header_match("<PointData([^>]*)>"), " Scalars=\"node\" Vectors=\"velocity\"");
    EXPECT_EQ(file.header_match("<CellData([^>]*)>"), " Scalars=\"element\"");

    EXPECT_EQ(file.array<std::int64_t>("node", "Int64"), node);
    EXPECT_EQ(file.array<double>("velocity", "Float64", 3), velocity);
    EXPECT_EQ(file.array<double>("height", "Float64"), height);
    const auto written_element = file.array<std::int64_t>("element", "Int64");
    const auto written_volume = file.array<double>("volume", "Float64");
    const auto written_points = file.array<double>("Points", "Float64", 3);
    const auto connectivity = file.array<std::int64_t>("connectivity", "Int64");
    const auto offsets = file.array<std::int64_t>("offsets", "Int64");
    const auto types = file.array<std::uint8_t>("types", "UInt8");
    EXPECT_EQ(file.tail(), "\n  </AppendedData>\n</VTKFile>\n");
    ASSERT_EQ(std::ssize(written_points), 3 * n_points);
    for (index_t p = 0; p < n_points; ++p) {
      EXPECT_EQ(written_points[3 * p], points[p].x);
      EXPECT_EQ(written_points[3 * p + 1], points[p].y);
      EXPECT_EQ(written_points[3 * p + 2], points[p].z);
    }

    // Expected cells: block by block, cell by cell, piece by piece.
    std::vector<std::int64_t> expected_connectivity, expected_offsets, expected_element;
    std::vector<double> expected_volume;
    std::vector<std::uint8_t> expected_types;
    std::int64_t first_point = 0;
    for (int b = 0; b < 2; ++b) {
      const VtuCellBlock& block = blocks[b];
      const int n_nodes = n_vtk_lagrange_nodes(block.shape, block.order);
      std::vector<int> local(static_cast<std::size_t>(n_nodes));
      std::iota(local.begin(), local.end(), 0);
      if (!lagrange) local = vtk_subdivision_cells(block.shape, block.order);
      for (index_t c = 0; c < block.n_cells; ++c, first_point += n_nodes) {
        for (const int q : local) expected_connectivity.push_back(first_point + q);
        for (int piece = 0; piece < pieces[b]; ++piece) {
          expected_offsets.push_back((expected_offsets.empty() ? 0 : expected_offsets.back()) + piece_nodes[b]);
          expected_types.push_back(lagrange ? 69 + b : (b == 0 ? 5 : 9));
          const index_t block_cell = (b == 0 ? 0 : 2) + c;
          expected_element.push_back(element[block_cell]);
          expected_volume.push_back(volume[block_cell]);
        }
      }
    }
    EXPECT_EQ(connectivity, expected_connectivity);
    EXPECT_EQ(offsets, expected_offsets);
    EXPECT_EQ(types, expected_types);
    EXPECT_EQ(written_element, expected_element);
    EXPECT_EQ(written_volume, expected_volume);
  }
}

TEST(Vtu, MeshioReadsAMixedFile) {
  if (const std::string reason = python_lacks("meshio"); !reason.empty()) GTEST_SKIP() << reason;
  const ScratchDirectory scratch;
  std::vector<VtuCellBlock> blocks;
  for (const Shape shape : {Shape::triangle, Shape::quadrilateral})
    blocks.push_back(affine_block(shape, 2, 2));
  std::vector<double> x;
  for (const VtuCellBlock& block : blocks)
    for (const Point3& point : block.points) x.push_back(point.x);
  const fs::path path = scratch.path / "mixed.vtu";
  write_vtu(path.string(), blocks, {{"x", 1, x}}, {}, 0.0, VtuCells::lagrange);
  const CommandResult result = run_command(
      cat(system_python, " -c \"import meshio; m = meshio.read('", path.string(),
          "'); print(len(m.points), [(c.type, len(c.data), c.data.shape[1]) for c in m.cells], "
          "float(m.point_data['x'][13]))\""));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output,
            cat("30 [('VTK_LAGRANGE_TRIANGLE', 2, 6), ('VTK_LAGRANGE_QUADRILATERAL', 2, 9)] ", x[13], "\n"));
}

TEST(Vtu, CurvedBlocksRoundTripTheirPointsExactly) {
  const ScratchDirectory scratch;
  // A quadratic map: straight reference edges become parabolas.
  const auto curved = [](index_t c, Point3 xi) {
    return Point3{c + xi.x + 0.15 * xi.y * xi.y, xi.y + 0.1 * xi.x * xi.x - 0.05 * xi.x * xi.z,
                  xi.z + 0.2 * xi.x * xi.y};
  };
  for (const Shape shape : vtk_shapes)
    for (const int order : {2, 3}) {
      SCOPED_TRACE(cat(shape_name(shape), " of order ", order));
      std::vector<VtuCellBlock> blocks;
      blocks.push_back(mapped_block(shape, order, 2, curved));
      // The mid-edge node of edge 0-1 is off the chord between its vertices: the map is curved.
      const Point3 middle = blocks[0].points[n_vertices(shape)], v0 = blocks[0].points[0], v1 = blocks[0].points[1];
      const Point3 off_chord = cross(v1 - v0, middle - v0);
      EXPECT_GT(dot(off_chord, off_chord), 1e-6);
      for (const VtuCells cells : {VtuCells::lagrange, VtuCells::subdivided}) {
        const fs::path path = scratch.path / "curved.vtu";
        write_vtu(path.string(), blocks, {}, {}, 0.0, cells);
        const auto points = VtuFile(path).array<double>("Points", "Float64", 3);
        ASSERT_EQ(points.size(), 3 * blocks[0].points.size());
        for (std::size_t p = 0; p < blocks[0].points.size(); ++p) {
          EXPECT_EQ(points[3 * p], blocks[0].points[p].x) << p;
          EXPECT_EQ(points[3 * p + 1], blocks[0].points[p].y) << p;
          EXPECT_EQ(points[3 * p + 2], blocks[0].points[p].z) << p;
        }
      }
    }
}

TEST(Vtu, SubdividedCellCountsPerShape) {
  const ScratchDirectory scratch;
  for (const Shape shape : vtk_shapes)
    for (int order = 1; order <= 4; ++order) {
      SCOPED_TRACE(cat(shape_name(shape), " of order ", order));
      std::vector<VtuCellBlock> blocks;
      blocks.push_back(affine_block(shape, order, 2));
      const fs::path path = scratch.path / "subdivided.vtu";
      const std::vector<VtuField> cell_fields = {{"element", 1, std::vector<std::int64_t>{7, 8}}};
      write_vtu(path.string(), blocks, {}, cell_fields, 0.0, VtuCells::subdivided);
      const VtuFile file(path);
      const index_t per_cell = dimension(shape) == 2 ? order * order : order * order * order;
      ASSERT_EQ(file.count("NumberOfCells"), 2 * per_cell);
      EXPECT_EQ(file.count("NumberOfPoints"), 2 * lattice_size(shape, order));
      const auto types = file.array<std::uint8_t>("types", "UInt8");
      const auto offsets = file.array<std::int64_t>("offsets", "Int64");
      const auto element = file.array<std::int64_t>("element", "Int64");
      ASSERT_EQ(std::ssize(types), 2 * per_cell);
      for (index_t c = 0; c < 2 * per_cell; ++c) {
        EXPECT_EQ(types[c], vtk_linear_cell_type(shape)) << c;
        EXPECT_EQ(offsets[c], (c + 1) * n_vertices(shape)) << c;
        EXPECT_EQ(element[c], c < per_cell ? 7 : 8) << c;
      }
    }
}

TEST(Vtu, EulerOutputIsByteIdenticalToTheWriterItReplaced) {
  // Files written by the triangle-only writer before the generic one (tests/data/README.md): the
  // adapter must reproduce them byte for byte.
  const ScratchDirectory scratch;
  const double time = 0.1 + 1.0 / 3.0;
  const struct {
    const char* file;
    int order;
    VtuOptions options;
  } cases[] = {{"vtu_golden_euler2d_p2_lagrange.vtu", 2, {VtuCells::lagrange, 0}},
               {"vtu_golden_euler2d_p3_subdivided4.vtu", 3, {VtuCells::subdivided, 4}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const fs::path path = scratch.path / c.file;
    write_vtu(path.string(), GoldenSolution(c.order).view(), time, c.options);
    const std::string written = read_bytes(path), golden = read_bytes(fs::path(FLOWDG_TEST_DATA_DIR) / c.file);
    ASSERT_FALSE(golden.empty()) << "missing golden file";
    const auto [differs, _] = std::ranges::mismatch(written, golden);
    EXPECT_TRUE(written == golden) << "sizes " << written.size() << " and " << golden.size()
                                   << ", first difference at byte " << differs - written.begin();
  }
}

TEST(Vtu, VtkPlacesEveryLagrangeNodeWhereFlowdgDoes) {
  // VTK itself reads a file of affinely mapped cells of every shape and order and compares each
  // node with its own parametric point (tools/check_vtk_lagrange.py). VTK is an optional, large
  // Python package: $FLOWDG_VTK_PYTHON names a Python that has it.
  const char* vtk_python = std::getenv("FLOWDG_VTK_PYTHON");
  const std::string python = vtk_python ? vtk_python : system_python;
  if (run_command(cat(python, " -c 'import vtk'")).exit_code != 0)
    GTEST_SKIP() << python << " cannot import vtk (set FLOWDG_VTK_PYTHON)";
  const ScratchDirectory scratch;
  std::vector<VtuCellBlock> blocks;
  for (const Shape shape : vtk_shapes)
    for (int order = 1; order <= max_checked_vtk_lagrange_order; ++order)
      blocks.push_back(affine_block(shape, order, 2, 3 * order));
  const fs::path path = scratch.path / "reference_cells.vtu";
  write_vtu(path.string(), blocks, {}, {}, 0.0, VtuCells::lagrange);
  const CommandResult result =
      run_command(cat(python, " ", FLOWDG_SOURCE_DIR, "/tools/check_vtk_lagrange.py ", path.string()));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find(": 80 Lagrange cells of 40 kinds (type, nodes) checked, 0 misplaced nodes"),
            std::string::npos)
      << result.output;
}

TEST(Vtu, GenericWriterNamesAnUnwritablePath) {
  const ScratchDirectory scratch;
  const std::string path = (scratch.path / "no_such_directory" / "cells.vtu").string();
  std::vector<VtuCellBlock> blocks;
  blocks.push_back(affine_block(Shape::hexahedron, 1, 1));
  expect_input_error_naming([&] { write_vtu(path, blocks, {}, {}, 0.0, VtuCells::lagrange); }, path);
}

TEST(Vtu, LagrangeHexahedraAreWrittenInTheOrderVersionOneFilesAreReadIn) {
  // The file says version 1.0, for which VTK >= 9.1 renumbers Lagrange hexahedra from VTK 8's
  // order: the slots of vertical edges 2-6 and 3-7 (nodes 28-29 and 30-31 at order 3) trade
  // places in the connectivity, and nothing else moves.
  const ScratchDirectory scratch;
  std::vector<VtuCellBlock> blocks;
  blocks.push_back(affine_block(Shape::hexahedron, 3, 2));
  const fs::path path = scratch.path / "hexahedra.vtu";
  write_vtu(path.string(), blocks, {}, {}, 0.0, VtuCells::lagrange);
  const VtuFile file(path);
  EXPECT_EQ(file.header_match("<VTKFile[^>]* version=\"([^\"]*)\""), "1.0");
  std::vector<std::int64_t> expected;
  for (int c = 0; c < 2; ++c)
    for (int q = 0; q < 64; ++q) expected.push_back(64 * c + (q >= 28 && q < 32 ? (q < 30 ? q + 2 : q - 2) : q));
  EXPECT_EQ(file.array<std::int64_t>("connectivity", "Int64"), expected);
}
