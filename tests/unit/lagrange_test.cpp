// The Lagrange geometry of every element type (mesh/lagrange.hpp): nodal, a partition of unity,
// exact on the type's polynomial space with exact gradients, and in Gmsh's node order (checked
// against files written by gmsh 4.8).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/lagrange.hpp"

using namespace flowdg;

namespace {

constexpr ElementType all_types[] = {ElementType::triangle3,     ElementType::triangle6,      ElementType::triangle10,
                                     ElementType::triangle15,    ElementType::quadrilateral4, ElementType::quadrilateral8,
                                     ElementType::quadrilateral9, ElementType::tetrahedron4,  ElementType::tetrahedron10,
                                     ElementType::hexahedron8};

/// Exponents (a, b, c) of the monomials x^a y^b z^c the type's space holds.
std::vector<std::array<int, 3>> monomials(ElementType type) {
  const Shape shape = shape_of(type);
  const int g = geometric_order(type), dim = dimension(shape);
  std::vector<std::array<int, 3>> out;
  for (int a = 0; a <= g; ++a)
    for (int b = 0; b <= g; ++b)
      for (int c = 0; c <= (dim == 3 ? g : 0); ++c) {
        const bool simplex = shape == Shape::triangle || shape == Shape::tetrahedron;
        if (simplex && a + b + c > g) continue;
        if (type == ElementType::quadrilateral8 && a + b > 3) continue;  // serendipity: Q2 without x^2 y^2
        out.push_back({a, b, c});
      }
  return out;
}

double monomial(const std::array<int, 3>& e, Point3 x) { return std::pow(x.x, e[0]) * std::pow(x.y, e[1]) * std::pow(x.z, e[2]); }

Point3 monomial_gradient(const std::array<int, 3>& e, Point3 x) {
  const auto d = [](int n, double v) { return n == 0 ? 0.0 : n * std::pow(v, n - 1); };
  return {d(e[0], x.x) * std::pow(x.y, e[1]) * std::pow(x.z, e[2]), std::pow(x.x, e[0]) * d(e[1], x.y) * std::pow(x.z, e[2]),
          std::pow(x.x, e[0]) * std::pow(x.y, e[1]) * d(e[2], x.z)};
}

}  // namespace

TEST(Lagrange, ShapeFunctionsAreNodalAndExactOnTheirSpace) {
  const Point3 samples[] = {{-0.3, -0.2, -0.4}, {0.1, -0.7, -0.5}, {-0.6, 0.25, -0.9}, {-0.95, -0.95, -0.95}};
  for (const ElementType type : all_types) {
    const std::vector<Point3> nodes = reference_nodes(type);
    const int n = n_nodes(type);
    ASSERT_EQ(static_cast<int>(nodes.size()), n) << type_name(type);
    std::vector<double> values(n);
    std::vector<Point3> gradients(n);
    for (int m = 0; m < n; ++m) {  // N_n(node m) = delta
      shape_functions(type, nodes[m], values.data(), gradients.data());
      for (int k = 0; k < n; ++k) EXPECT_NEAR(values[k], k == m ? 1.0 : 0.0, 1e-12) << type_name(type) << " node " << m;
    }
    for (Point3 xi : samples) {
      if (dimension(shape_of(type)) == 2) xi.z = 0;
      shape_functions(type, xi, values.data(), gradients.data());
      for (const auto& e : monomials(type)) {
        double value = 0;
        Point3 gradient{};
        for (int k = 0; k < n; ++k) {
          value += values[k] * monomial(e, nodes[k]);
          gradient = gradient + monomial(e, nodes[k]) * gradients[k];
        }
        const Point3 exact = monomial_gradient(e, xi);
        EXPECT_NEAR(value, monomial(e, xi), 1e-12) << type_name(type) << " x^" << e[0] << " y^" << e[1] << " z^" << e[2];
        EXPECT_NEAR(gradient.x, exact.x, 1e-11) << type_name(type);
        EXPECT_NEAR(gradient.y, exact.y, 1e-11) << type_name(type);
        EXPECT_NEAR(gradient.z, exact.z, 1e-11) << type_name(type);
      }
    }
  }
}

TEST(Lagrange, CubicAndQuarticTrianglesFollowGmshsNodeOrder) {
  // One straight triangle (0,0), (1,0), (0,1) of order 3 and 4 from gmsh: every file node sits at
  // the affine image of our reference node of the same number.
  for (const auto& [file, type] : {std::pair{"/triangle10_msh22.msh", ElementType::triangle10},
                                   std::pair{"/triangle15_msh22.msh", ElementType::triangle15}}) {
    const Mesh mesh = read_gmsh(std::string(FLOWDG_TEST_DATA_DIR) + file);
    ASSERT_EQ(mesh.n_elements(), 1);
    ASSERT_EQ(mesh.element_types[0], type);
    const std::vector<Point3> nodes = reference_nodes(type);
    for (int k = 0; k < n_nodes(type); ++k) {
      const Point3 x = mesh.nodes[mesh.element_node_ids(0)[k]];
      EXPECT_NEAR(x.x, 0.5 * (nodes[k].x + 1), 1e-11) << file << " node " << k;
      EXPECT_NEAR(x.y, 0.5 * (nodes[k].y + 1), 1e-11) << file << " node " << k;
    }
  }
}
