#include "flowdg/mesh/lagrange.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <span>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"

namespace flowdg {

namespace {

// Gmsh's local edges and faces: the order in which an element lists their nodes (the faces are
// not numbered as reference_element.hpp numbers them).
constexpr int triangle_edges[][2] = {{0, 1}, {1, 2}, {2, 0}};
constexpr int quadrilateral_edges[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
constexpr int tetrahedron_edges[][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
constexpr int hexahedron_edges[][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                       {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
constexpr int tetrahedron_faces[][4] = {{0, 2, 1, -1}, {0, 1, 3, -1}, {0, 3, 2, -1}, {3, 1, 2, -1}};
constexpr int hexahedron_faces[][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3}, {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};
// The three vertices joined to each hexahedron vertex by an edge.
constexpr int hexahedron_neighbours[8][3] = {{1, 3, 4}, {0, 2, 5}, {1, 3, 6}, {0, 2, 7},
                                             {0, 5, 7}, {1, 4, 6}, {2, 5, 7}, {3, 4, 6}};

std::span<const int[2]> gmsh_edges(Shape shape) {
  switch (shape) {
    case Shape::triangle: return triangle_edges;
    case Shape::quadrilateral: return quadrilateral_edges;
    case Shape::tetrahedron: return tetrahedron_edges;
    case Shape::hexahedron: return hexahedron_edges;
    default: return {};
  }
}

std::span<const int[4]> gmsh_faces(Shape shape) {
  switch (shape) {
    case Shape::tetrahedron: return tetrahedron_faces;
    case Shape::hexahedron: return hexahedron_faces;
    default: return {};
  }
}

bool is_simplex(Shape shape) { return shape == Shape::triangle || shape == Shape::tetrahedron; }

bool are_neighbours(Shape shape, int a, int b) {
  if (is_simplex(shape)) return a != b;
  if (shape == Shape::quadrilateral) return (a + 1) % 4 == b || (b + 1) % 4 == a;
  const int* n = hexahedron_neighbours[a];
  return n[0] == b || n[1] == b || n[2] == b;
}

void append_lattice(Shape shape, int order, const std::vector<Point3>& corners, bool with_interior, std::vector<Point3>& nodes);

/// The interior nodes of an order-`order` element of `shape` with the given corners (a triangle or
/// quadrilateral may be a face in 3D): the whole lattice of the element one layer further in.
void append_interior(Shape shape, int order, const std::vector<Point3>& corners, std::vector<Point3>& nodes) {
  const int inner_order = order - (is_simplex(shape) ? dimension(shape) + 1 : 2);
  if (inner_order < 0) return;
  std::vector<Point3> inner = corners;
  for (std::size_t a = 0; a < corners.size(); ++a)
    for (std::size_t b = 0; b < corners.size(); ++b)
      if (are_neighbours(shape, static_cast<int>(a), static_cast<int>(b)))
        inner[a] = inner[a] + (1.0 / order) * (corners[b] - corners[a]);
  append_lattice(shape, inner_order, inner, true, nodes);
}

/// Gmsh's nodes of an order-`order` element with the given corners (see reference_nodes). Order 0
/// is one node, where the corners (all alike then) are.
void append_lattice(Shape shape, int order, const std::vector<Point3>& corners, bool with_interior, std::vector<Point3>& nodes) {
  if (order == 0) {
    nodes.push_back(corners[0]);
    return;
  }
  nodes.insert(nodes.end(), corners.begin(), corners.end());
  for (const auto& edge : gmsh_edges(shape))
    for (int k = 1; k < order; ++k)
      nodes.push_back(corners[edge[0]] + (static_cast<double>(k) / order) * (corners[edge[1]] - corners[edge[0]]));
  for (const auto& face : gmsh_faces(shape)) {
    const Shape kind = face_shape(shape);
    std::vector<Point3> face_corners;
    for (int k = 0; k < n_vertices(kind); ++k) face_corners.push_back(corners[face[k]]);
    append_interior(kind, order, face_corners, nodes);
  }
  if (with_interior) append_interior(shape, order, corners, nodes);
}

struct NodalBasis {
  Shape shape{};
  int order = 1, n = 0;
  std::vector<double> inverse_vandermonde;  ///< [j * n + node]: N_node = sum_j c[j][node] phi_j
};

NodalBasis make_nodal_basis(ElementType type) {
  NodalBasis f;
  f.shape = shape_of(type);
  f.order = geometric_order(type);
  const std::vector<Point3> nodes = reference_nodes(type);
  f.n = static_cast<int>(nodes.size());
  FLOWDG_ASSERT(f.n == n_basis(f.shape, f.order), "the nodes of ", type_name(type), " are not unisolvent for its space");
  // V^-1 by Gauss-Jordan elimination with partial pivoting (at most 35 x 35), V[node][j] = phi_j(node).
  std::vector<double> v(static_cast<std::size_t>(f.n) * f.n), inverse(static_cast<std::size_t>(f.n) * f.n, 0.0);
  for (int node = 0; node < f.n; ++node) basis_values(f.shape, f.order, nodes[node], &v[node * f.n]);
  for (int i = 0; i < f.n; ++i) inverse[i * f.n + i] = 1.0;
  for (int column = 0; column < f.n; ++column) {
    int pivot = column;
    for (int row = column + 1; row < f.n; ++row)
      if (std::abs(v[row * f.n + column]) > std::abs(v[pivot * f.n + column])) pivot = row;
    for (int k = 0; k < f.n; ++k) {
      std::swap(v[column * f.n + k], v[pivot * f.n + k]);
      std::swap(inverse[column * f.n + k], inverse[pivot * f.n + k]);
    }
    const double diagonal = v[column * f.n + column];
    for (int k = 0; k < f.n; ++k) {
      v[column * f.n + k] /= diagonal;
      inverse[column * f.n + k] /= diagonal;
    }
    for (int row = 0; row < f.n; ++row) {
      if (row == column) continue;
      const double factor = v[row * f.n + column];
      for (int k = 0; k < f.n; ++k) {
        v[row * f.n + k] -= factor * v[column * f.n + k];
        inverse[row * f.n + k] -= factor * inverse[column * f.n + k];
      }
    }
  }
  f.inverse_vandermonde = std::move(inverse);
  return f;
}

const NodalBasis& nodal_basis(ElementType type) {
  static std::once_flag once;
  static std::vector<NodalBasis> bases;
  std::call_once(once, [] {
    for (int t = 0; t < element_type_count; ++t) {
      const auto each = static_cast<ElementType>(t);
      bases.push_back(each == ElementType::quadrilateral8 ? NodalBasis{} : make_nodal_basis(each));
    }
  });
  return bases[static_cast<std::size_t>(type)];
}

/// The 8-node serendipity quadrilateral (not a Lagrange element: its space lies between Q1 and Q2).
void serendipity_shape_functions(Point3 r, double* values, Point3* gradients) {
  for (int k = 0; k < 4; ++k) {
    const Point3 c = reference_vertex(Shape::quadrilateral, k);
    values[k] = 0.25 * (1 + r.x * c.x) * (1 + r.y * c.y) * (r.x * c.x + r.y * c.y - 1);
    if (gradients != nullptr)
      gradients[k] = {0.25 * c.x * (1 + r.y * c.y) * (2 * r.x * c.x + r.y * c.y), 0.25 * c.y * (1 + r.x * c.x) * (r.x * c.x + 2 * r.y * c.y), 0};
    const Point3 m = 0.5 * (c + reference_vertex(Shape::quadrilateral, (k + 1) % 4));
    if (m.x == 0) {
      values[4 + k] = 0.5 * (1 - r.x * r.x) * (1 + r.y * m.y);
      if (gradients != nullptr) gradients[4 + k] = {-r.x * (1 + r.y * m.y), 0.5 * (1 - r.x * r.x) * m.y, 0};
    } else {
      values[4 + k] = 0.5 * (1 + r.x * m.x) * (1 - r.y * r.y);
      if (gradients != nullptr) gradients[4 + k] = {0.5 * m.x * (1 - r.y * r.y), -r.y * (1 + r.x * m.x), 0};
    }
  }
}

}  // namespace

std::vector<Point3> reference_nodes(ElementType type) {
  const Shape shape = shape_of(type);
  std::vector<Point3> corners;
  for (int v = 0; v < n_vertices(shape); ++v) corners.push_back(reference_vertex(shape, v));
  std::vector<Point3> nodes;
  append_lattice(shape, geometric_order(type), corners, type != ElementType::quadrilateral8, nodes);
  FLOWDG_ASSERT(static_cast<int>(nodes.size()) == n_nodes(type), "the node lattice of ", type_name(type));
  return nodes;
}

void shape_functions(ElementType type, Point3 xi, double* values, Point3* gradients) {
  if (type == ElementType::quadrilateral8) return serendipity_shape_functions(xi, values, gradients);
  const NodalBasis& f = nodal_basis(type);
  double phi[max_element_nodes];
  Point3 dphi[max_element_nodes];
  basis_gradients(f.shape, f.order, xi, phi, dphi);
  for (int node = 0; node < f.n; ++node) {
    double value = 0;
    Point3 gradient{};
    for (int j = 0; j < f.n; ++j) {
      const double c = f.inverse_vandermonde[j * f.n + node];
      value += c * phi[j];
      gradient = gradient + c * dphi[j];
    }
    values[node] = value;
    if (gradients != nullptr) gradients[node] = gradient;
  }
}

Point3 map_to_physical(const Mesh& mesh, index_t element, Point3 xi) {
  double values[max_element_nodes];
  shape_functions(mesh.element_types[element], xi, values, nullptr);
  const index_t* nodes = mesh.element_node_ids(element);
  Point3 x{0, 0, 0};
  for (int n = 0; n < mesh.element_n_nodes(element); ++n) x = x + values[n] * mesh.nodes[nodes[n]];
  return x;
}

ElementJacobian element_jacobian(const Mesh& mesh, index_t element, Point3 xi) {
  double values[max_element_nodes];
  Point3 gradients[max_element_nodes];
  shape_functions(mesh.element_types[element], xi, values, gradients);
  const index_t* nodes = mesh.element_node_ids(element);
  ElementJacobian jacobian;
  jacobian.dimension = dimension(mesh.element_shape(element));
  for (int n = 0; n < mesh.element_n_nodes(element); ++n) {
    const Point3 x = mesh.nodes[nodes[n]], g = gradients[n];
    const double xs[3] = {x.x, x.y, x.z}, gs[3] = {g.x, g.y, g.z};
    for (int d = 0; d < jacobian.dimension; ++d)
      for (int r = 0; r < jacobian.dimension; ++r) jacobian.matrix[d][r] += xs[d] * gs[r];
  }
  const auto& m = jacobian.matrix;
  jacobian.det = jacobian.dimension == 2 ? m[0][0] * m[1][1] - m[0][1] * m[1][0]
                                         : m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                                               m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                                               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  return jacobian;
}

std::vector<std::vector<index_t>> elements_of_nodes(const Mesh& mesh) {
  std::vector<std::vector<index_t>> elements(static_cast<std::size_t>(mesh.n_nodes()));
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    for (int n = 0; n < mesh.element_n_nodes(e); ++n) elements[static_cast<std::size_t>(mesh.element_node_ids(e)[n])].push_back(e);
  return elements;
}

std::vector<index_t> facet_nodes(const Mesh& mesh, const TaggedFacet& facet, const std::vector<std::vector<index_t>>& elements_of_node,
                                 index_t* element) {
  for (const index_t e : elements_of_node[static_cast<std::size_t>(facet.vertices[0])]) {
    const ElementType type = mesh.element_types[e];
    const int corners = n_nodes(lagrange_type(shape_of(type), 1));
    const index_t* ids = mesh.element_node_ids(e);
    int face[4] = {-1, -1, -1, -1};  // the facet's vertices' local numbers in the element
    bool all = true;
    for (int k = 0; k < facet.n_vertices && all; ++k) {
      const index_t* at = std::find(ids, ids + corners, static_cast<index_t>(facet.vertices[static_cast<std::size_t>(k)]));
      all = at != ids + corners;
      face[k] = static_cast<int>(at - ids);
    }
    if (!all) continue;
    // The facet element's nodes as weights on the facet's vertices.
    const int order = geometric_order(type);
    std::vector<std::vector<double>> weights;
    if (mesh.dimension == 2) {
      std::vector<double> ts = {0.0, 1.0};
      for (int j = 1; j < order; ++j) ts.push_back(static_cast<double>(j) / order);
      for (const double t : ts) weights.push_back({1 - t, t});
    } else {
      const Shape facet_shape = facet.n_vertices == 3 ? Shape::triangle : Shape::quadrilateral;
      const ElementType linear = lagrange_type(facet_shape, 1);
      for (const Point3& xi : reference_nodes(lagrange_type(facet_shape, order))) {
        std::vector<double> w(static_cast<std::size_t>(facet.n_vertices));
        shape_functions(linear, xi, w.data(), nullptr);
        weights.push_back(w);
      }
    }
    const std::vector<Point3> reference = reference_nodes(type);
    std::vector<index_t> nodes;
    for (const std::vector<double>& w : weights) {
      Point3 point{};
      for (int k = 0; k < facet.n_vertices; ++k) point = point + w[static_cast<std::size_t>(k)] * reference[static_cast<std::size_t>(face[k])];
      index_t found = -1;
      for (std::size_t n = 0; n < reference.size() && found < 0; ++n) {
        const Point3 d = reference[n] - point;
        if (std::sqrt(dot(d, d)) < 1e-10) found = ids[n];
      }
      if (found < 0)
        throw Error(cat("the facet of ", mesh.element_label(e), " has no node at a reference point of its ", type_name(type), " face"));
      nodes.push_back(found);
    }
    if (element != nullptr) *element = e;
    return nodes;
  }
  return {};
}

}  // namespace flowdg
