#include "flowdg/io/vtk_lagrange.hpp"

#include <utility>

#include "flowdg/core/error.hpp"

namespace flowdg {
namespace {

using Lattice = std::vector<std::array<int, 3>>;

void check_shape_and_order(Shape shape, int order) {
  FLOWDG_ASSERT(shape == Shape::triangle || shape == Shape::quadrilateral || shape == Shape::tetrahedron ||
                    shape == Shape::hexahedron,
                "no VTK Lagrange cell for a ", shape_name(shape));
  FLOWDG_ASSERT(order >= 1, "VTK Lagrange cells have order >= 1, got ", order);
}

/// A simplex node as integer barycentric weights, one per vertex, summing to the order.
template <std::size_t n_simplex_vertices>
using Barycentric = std::array<int, n_simplex_vertices>;

/// Appends the vertices and then each edge's inner nodes from its first vertex to its second:
/// the start of both VTK simplex orders.
template <std::size_t n_simplex_vertices, std::size_t n_edges>
void append_vertices_and_edges(int order, const std::array<std::array<int, 2>, n_edges>& edges,
                               std::vector<Barycentric<n_simplex_vertices>>& nodes) {
  for (std::size_t vertex = 0; vertex < n_simplex_vertices; ++vertex) {
    Barycentric<n_simplex_vertices> node{};
    node[vertex] = order;
    nodes.push_back(node);
  }
  for (const auto& [first, second] : edges)
    for (int t = 1; t < order; ++t) {
      Barycentric<n_simplex_vertices> node{};
      node[first] = order - t;
      node[second] = t;
      nodes.push_back(node);
    }
}

/// Adds one to every weight: the nodes of an order-m simplex become the interior nodes of an
/// order m + n_simplex_vertices one, inset by one lattice layer.
template <std::size_t n_simplex_vertices>
void append_inset(const std::vector<Barycentric<n_simplex_vertices>>& inner,
                  std::vector<Barycentric<n_simplex_vertices>>& nodes) {
  for (Barycentric<n_simplex_vertices> node : inner) {
    for (int& weight : node) ++weight;
    nodes.push_back(node);
  }
}

/// vtkHigherOrderTriangle's order (its BarycentricIndex): vertices, edges 0-1, 1-2, 2-0, then
/// the interior as a triangle of order - 3. Order 0 is the one node of the innermost layer.
std::vector<Barycentric<3>> triangle_barycentric(int order) {
  if (order == 0) return {{0, 0, 0}};
  std::vector<Barycentric<3>> nodes;
  append_vertices_and_edges<3, 3>(order, {{{0, 1}, {1, 2}, {2, 0}}}, nodes);
  if (order >= 3) append_inset(triangle_barycentric(order - 3), nodes);
  return nodes;
}

/// vtkHigherOrderTetra's order (its BarycentricIndex, with vertex v's weight there at
/// VertexMaxCoords[v] = {3, 0, 1, 2}): vertices, edges, the four faces' interiors, then the
/// interior as a tetrahedron of order - 4. Face f of VTK (FaceMinCoord, FaceBCoords) holds the
/// triangle's weights (w0, w1, w2) on these tetrahedron vertices: 0: (0, 1, 3), 1: (2, 3, 1),
/// 2: (0, 3, 2), 3: (0, 2, 1).
std::vector<Barycentric<4>> tetrahedron_barycentric(int order) {
  if (order == 0) return {{0, 0, 0, 0}};
  std::vector<Barycentric<4>> nodes;
  append_vertices_and_edges<4, 6>(order, {{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}}}, nodes);
  if (order >= 3) {
    constexpr int faces[4][3] = {{0, 1, 3}, {2, 3, 1}, {0, 3, 2}, {0, 2, 1}};
    const std::vector<Barycentric<3>> face_interior = triangle_barycentric(order - 3);
    for (const auto& face : faces)
      for (const Barycentric<3>& weights : face_interior) {
        Barycentric<4> node{};
        for (int k = 0; k < 3; ++k) node[face[k]] = weights[k] + 1;
        nodes.push_back(node);
      }
  }
  if (order >= 4) append_inset(tetrahedron_barycentric(order - 4), nodes);
  return nodes;
}

/// vtkHigherOrderQuadrilateral::PointIndexFromIJK inverted.
Lattice quadrilateral_lattice(int n) {
  Lattice nodes = {{0, 0, 0}, {n, 0, 0}, {n, n, 0}, {0, n, 0}};
  for (int t = 1; t < n; ++t) nodes.push_back({t, 0, 0});
  for (int t = 1; t < n; ++t) nodes.push_back({n, t, 0});
  for (int t = 1; t < n; ++t) nodes.push_back({t, n, 0});
  for (int t = 1; t < n; ++t) nodes.push_back({0, t, 0});
  for (int j = 1; j < n; ++j)
    for (int i = 1; i < n; ++i) nodes.push_back({i, j, 0});
  return nodes;
}

/// vtkHigherOrderHexahedron::PointIndexFromIJK inverted.
Lattice hexahedron_lattice(int n) {
  Lattice nodes;
  for (const int k : {0, n}) nodes.insert(nodes.end(), {{0, 0, k}, {n, 0, k}, {n, n, k}, {0, n, k}});
  for (const int k : {0, n}) {
    for (int t = 1; t < n; ++t) nodes.push_back({t, 0, k});
    for (int t = 1; t < n; ++t) nodes.push_back({n, t, k});
    for (int t = 1; t < n; ++t) nodes.push_back({t, n, k});
    for (int t = 1; t < n; ++t) nodes.push_back({0, t, k});
  }
  for (const auto& [i, j] : {std::pair{0, 0}, {n, 0}, {n, n}, {0, n}})
    for (int t = 1; t < n; ++t) nodes.push_back({i, j, t});
  for (const int i : {0, n})
    for (int k = 1; k < n; ++k)
      for (int j = 1; j < n; ++j) nodes.push_back({i, j, k});
  for (const int j : {0, n})
    for (int k = 1; k < n; ++k)
      for (int i = 1; i < n; ++i) nodes.push_back({i, j, k});
  for (const int k : {0, n})
    for (int j = 1; j < n; ++j)
      for (int i = 1; i < n; ++i) nodes.push_back({i, j, k});
  for (int k = 1; k < n; ++k)
    for (int j = 1; j < n; ++j)
      for (int i = 1; i < n; ++i) nodes.push_back({i, j, k});
  return nodes;
}

/// Node index (in VTK's order) of every lattice point: at(i, j, k).
class LatticeIndex {
 public:
  LatticeIndex(const Lattice& lattice, int order) : order_(order) {
    index_.assign(static_cast<std::size_t>((order + 1) * (order + 1) * (order + 1)), -1);
    for (std::size_t q = 0; q < lattice.size(); ++q) {
      const auto& [i, j, k] = lattice[q];
      index_[position(i, j, k)] = static_cast<int>(q);
    }
  }
  int at(int i, int j, int k = 0) const { return index_[position(i, j, k)]; }
  int at(const std::array<int, 3>& node) const { return at(node[0], node[1], node[2]); }

 private:
  std::size_t position(int i, int j, int k) const {
    return static_cast<std::size_t>((k * (order_ + 1) + j) * (order_ + 1) + i);
  }
  int order_;
  std::vector<int> index_;
};

/// The tetrahedron's corners, two swapped if needed so that it is positively oriented.
std::array<std::array<int, 3>, 4> positively_oriented(std::array<std::array<int, 3>, 4> corners) {
  std::array<std::array<int, 3>, 3> edge;
  for (int e = 0; e < 3; ++e)
    for (int d = 0; d < 3; ++d) edge[e][d] = corners[e + 1][d] - corners[0][d];
  const int volume6 = edge[0][0] * (edge[1][1] * edge[2][2] - edge[1][2] * edge[2][1]) -
                      edge[0][1] * (edge[1][0] * edge[2][2] - edge[1][2] * edge[2][0]) +
                      edge[0][2] * (edge[1][0] * edge[2][1] - edge[1][1] * edge[2][0]);
  if (volume6 < 0) std::swap(corners[2], corners[3]);
  return corners;
}

}  // namespace

std::uint8_t vtk_lagrange_cell_type(Shape shape) {
  check_shape_and_order(shape, 1);
  constexpr std::uint8_t types[] = {0, 0, 69, 70, 71, 72};
  return types[static_cast<int>(shape)];
}

std::uint8_t vtk_linear_cell_type(Shape shape) {
  check_shape_and_order(shape, 1);
  constexpr std::uint8_t types[] = {0, 0, 5, 9, 10, 12};
  return types[static_cast<int>(shape)];
}

int n_vtk_lagrange_nodes(Shape shape, int order) {
  check_shape_and_order(shape, order);
  const int n = order;
  switch (shape) {
    case Shape::triangle: return (n + 1) * (n + 2) / 2;
    case Shape::quadrilateral: return (n + 1) * (n + 1);
    case Shape::tetrahedron: return (n + 1) * (n + 2) * (n + 3) / 6;
    default: return (n + 1) * (n + 1) * (n + 1);
  }
}

std::vector<std::array<int, 3>> vtk_lagrange_lattice(Shape shape, int order) {
  check_shape_and_order(shape, order);
  Lattice nodes;
  switch (shape) {
    // The lattice index is the weight of vertex 1, 2 (and 3): the vertices lie at the unit
    // points of their axes.
    case Shape::triangle:
      for (const Barycentric<3>& node : triangle_barycentric(order)) nodes.push_back({node[1], node[2], 0});
      break;
    case Shape::tetrahedron:
      for (const Barycentric<4>& node : tetrahedron_barycentric(order)) nodes.push_back({node[1], node[2], node[3]});
      break;
    case Shape::quadrilateral: nodes = quadrilateral_lattice(order); break;
    default: nodes = hexahedron_lattice(order); break;
  }
  FLOWDG_ASSERT(std::ssize(nodes) == n_vtk_lagrange_nodes(shape, order), "node count");
  return nodes;
}

std::vector<Point3> vtk_lagrange_nodes(Shape shape, int order) {
  const bool three_dimensional = dimension(shape) == 3;
  std::vector<Point3> nodes;
  for (const auto& [i, j, k] : vtk_lagrange_lattice(shape, order))
    nodes.push_back({2.0 * i / order - 1.0, 2.0 * j / order - 1.0, three_dimensional ? 2.0 * k / order - 1.0 : 0.0});
  return nodes;
}

std::vector<int> vtk_subdivision_cells(Shape shape, int order) {
  const int n = order;
  const LatticeIndex index(vtk_lagrange_lattice(shape, order), order);
  std::vector<int> cells;
  switch (shape) {
    case Shape::triangle:
      // Row by row: each lattice square's lower-left triangle, then its upper-right one where it
      // is inside.
      for (int j = 0; j < n; ++j)
        for (int i = 0; i + j < n; ++i) {
          cells.insert(cells.end(), {index.at(i, j), index.at(i + 1, j), index.at(i, j + 1)});
          if (i + j + 1 < n)
            cells.insert(cells.end(), {index.at(i + 1, j), index.at(i + 1, j + 1), index.at(i, j + 1)});
        }
      break;
    case Shape::quadrilateral:
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          cells.insert(cells.end(), {index.at(i, j), index.at(i + 1, j), index.at(i + 1, j + 1), index.at(i, j + 1)});
      break;
    case Shape::hexahedron:
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i)
            for (const int layer : {k, k + 1})
              cells.insert(cells.end(), {index.at(i, j, layer), index.at(i + 1, j, layer),
                                         index.at(i + 1, j + 1, layer), index.at(i, j + 1, layer)});
      break;
    default: {
      // Per lattice point (i, j, k): the upright tetrahedron above it, the octahedron between the
      // six points at lattice distance one or two from it, and the inverted tetrahedron beyond
      // that, where each fits: C(n+2, 3) + 4 C(n+1, 3) + C(n, 3) = n^3 tetrahedra.
      const auto add = [&](const std::array<std::array<int, 3>, 4>& corners) {
        for (const auto& corner : positively_oriented(corners)) cells.push_back(index.at(corner));
      };
      for (int k = 0; k < n; ++k)
        for (int j = 0; j + k < n; ++j)
          for (int i = 0; i + j + k < n; ++i) {
            add({{{i, j, k}, {i + 1, j, k}, {i, j + 1, k}, {i, j, k + 1}}});
            if (i + j + k + 2 <= n) {
              // The octahedron cut along its diagonal from (i+1, j, k) to (i, j+1, k+1); the other
              // four corners form a cycle around it, consecutive ones sharing an octahedron edge.
              const std::array<int, 3> low{i + 1, j, k}, high{i, j + 1, k + 1};
              const std::array<std::array<int, 3>, 4> ring = {
                  {{i, j + 1, k}, {i + 1, j + 1, k}, {i + 1, j, k + 1}, {i, j, k + 1}}};
              for (int m = 0; m < 4; ++m) add({low, high, ring[m], ring[(m + 1) % 4]});
            }
            if (i + j + k + 3 <= n)
              add({{{i + 1, j + 1, k}, {i + 1, j, k + 1}, {i, j + 1, k + 1}, {i + 1, j + 1, k + 1}}});
          }
      break;
    }
  }
  return cells;
}

}  // namespace flowdg
