#include "flowdg/mesh/lagrange.hpp"

#include <array>
#include <cmath>
#include <mutex>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"

namespace flowdg {

namespace {

/// Gmsh's nodes of an order-g triangle on the lattice of spacing 1/g: (i, j) with the point
/// (-1 + 2 i / g, -1 + 2 j / g). Vertices, edges 0-1, 1-2, 2-0 in their direction, interior as an
/// order g - 3 triangle on the lattice points (1, 1), (g - 2, 1), (1, g - 2).
std::vector<std::array<int, 2>> triangle_lattice(int g) {
  if (g == 0) return {{0, 0}};
  std::vector<std::array<int, 2>> nodes = {{0, 0}, {g, 0}, {0, g}};
  for (int i = 1; i < g; ++i) nodes.push_back({i, 0});
  for (int i = 1; i < g; ++i) nodes.push_back({g - i, i});
  for (int i = 1; i < g; ++i) nodes.push_back({0, g - i});
  if (g >= 3)
    for (const auto& [i, j] : triangle_lattice(g - 3)) nodes.push_back({1 + i, 1 + j});
  return nodes;
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
  // V^-1 by Gauss-Jordan elimination with partial pivoting (at most 27 x 27), V[node][j] = phi_j(node).
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
    for (int t = 0; t <= static_cast<int>(ElementType::triangle15); ++t) {
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
  std::vector<Point3> nodes;
  if (shape == Shape::triangle) {
    const int g = geometric_order(type);
    for (const auto& [i, j] : triangle_lattice(g)) nodes.push_back({-1.0 + 2.0 * i / g, -1.0 + 2.0 * j / g, 0.0});
    return nodes;
  }
  for (int v = 0; v < n_vertices(shape); ++v) nodes.push_back(reference_vertex(shape, v));
  const auto midpoint = [&](int a, int b) { nodes.push_back(0.5 * (nodes[a] + nodes[b])); };
  switch (type) {
    case ElementType::quadrilateral8:
    case ElementType::quadrilateral9:
      midpoint(0, 1), midpoint(1, 2), midpoint(2, 3), midpoint(3, 0);
      if (type == ElementType::quadrilateral9) nodes.push_back({0, 0, 0});
      break;
    case ElementType::tetrahedron10:  // Gmsh's edges 0-1, 1-2, 2-0, 3-0, 3-2, 3-1
      midpoint(0, 1), midpoint(1, 2), midpoint(2, 0), midpoint(3, 0), midpoint(3, 2), midpoint(3, 1);
      break;
    default: break;
  }
  return nodes;
}

void shape_functions(ElementType type, Point3 xi, double* values, Point3* gradients) {
  if (type == ElementType::quadrilateral8) return serendipity_shape_functions(xi, values, gradients);
  const NodalBasis& f = nodal_basis(type);
  double phi[32];
  Point3 dphi[32];
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

}  // namespace flowdg
