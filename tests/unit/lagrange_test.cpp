// The Lagrange geometry of every element type (mesh/lagrange.hpp): nodal, a partition of unity,
// exact on the type's polynomial space with exact gradients, and in Gmsh's node order (checked
// against files written by gmsh 4.8).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "flowdg/element/quadrature.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/lagrange.hpp"

using namespace flowdg;

namespace {

std::vector<ElementType> all_types() {
  std::vector<ElementType> types;
  for (int t = 0; t < element_type_count; ++t) types.push_back(static_cast<ElementType>(t));
  return types;
}

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
  for (const ElementType type : all_types()) {
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
        EXPECT_NEAR(gradient.x, exact.x, 1e-12) << type_name(type);
        EXPECT_NEAR(gradient.y, exact.y, 1e-12) << type_name(type);
        EXPECT_NEAR(gradient.z, exact.z, 1e-12) << type_name(type);
      }
    }
  }
}

TEST(Lagrange, EveryTypeFollowsGmshsNodeOrder) {
  // Straight-sided elements written by gmsh 4.8 (tests/data/make_meshes.sh): every node of every
  // element sits at the image of our reference node of the same number under the element's
  // vertex map (affine; trilinear = affine on these boxes). Gmsh places nodes through its curve
  // and surface parametrisations, good to ~1e-12; a node in a wrong slot is off by 1/8 or more.
  std::map<ElementType, int> checked;
  for (const std::string name : {"square_tri_msh41.msh", "square_tri_p2_msh22.msh", "triangle10_msh22.msh", "triangle15_msh22.msh", "square_quad_msh41.msh",
                                 "square_quad8_msh41.msh", "square_quad9_msh41.msh", "square_quad16_msh41.msh",
                                 "square_quad25_msh22.msh", "cube_tet_msh41.msh", "cube_tet_p2_msh41.msh", "cube_tet20_msh41.msh",
                                 "cube_tet35_msh41_bin.msh", "cube_tet35_msh22.msh", "cube_hex_msh41.msh", "cube_hex27_msh22.msh"}) {
    SCOPED_TRACE(name);
    const Mesh mesh = read_gmsh(std::string(FLOWDG_TEST_DATA_DIR) + "/" + name);
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      const ElementType type = mesh.element_types[e];
      const Shape shape = shape_of(type);
      const std::vector<Point3> nodes = reference_nodes(type);
      const index_t* ids = mesh.element_node_ids(e);
      for (int k = 0; k < n_nodes(type); ++k) {
        double weights[8];
        shape_functions(lagrange_type(shape, 1), nodes[k], weights, nullptr);
        Point3 expected{0, 0, 0};
        for (int v = 0; v < n_vertices(shape); ++v) expected = expected + weights[v] * mesh.nodes[ids[v]];
        const Point3 x = mesh.nodes[ids[k]];
        ASSERT_NEAR(x.x, expected.x, 1e-11) << "element " << e << " node " << k;
        ASSERT_NEAR(x.y, expected.y, 1e-11) << "element " << e << " node " << k;
        ASSERT_NEAR(x.z, expected.z, 1e-11) << "element " << e << " node " << k;
      }
      ++checked[type];
    }
  }
  EXPECT_EQ(checked.size(), static_cast<std::size_t>(element_type_count));  // every type met
}

TEST(Lagrange, MapAndJacobianReproduceAPolynomialMapOfTheTypesSpace) {
  // Nodes placed by a map F whose components lie in the type's space (a linear part plus every
  // monomial of the space with small coefficients): x(xi) = F(xi) and dx/dxi = DF(xi) exactly.
  for (const ElementType type : all_types()) {
    SCOPED_TRACE(type_name(type));
    const int dim = dimension(shape_of(type));
    const std::vector<std::array<int, 3>> space = monomials(type);
    const auto coefficient = [](int d, std::size_t m) { return 0.05 * std::sin(1.0 + 3.0 * d + 7.0 * static_cast<double>(m)); };
    const auto map = [&](Point3 xi) {
      double x[3] = {xi.x + 0.3 * xi.y, 0.5 * xi.y - 0.2 * xi.x, dim == 3 ? xi.z + 0.1 * xi.x : 0.0};
      for (int d = 0; d < dim; ++d)
        for (std::size_t m = 0; m < space.size(); ++m) x[d] += coefficient(d, m) * monomial(space[m], xi);
      return Point3{x[0], x[1], x[2]};
    };
    Mesh mesh;
    mesh.dimension = dim;
    std::vector<index_t> ids;
    for (const Point3& node : reference_nodes(type)) {
      ids.push_back(mesh.n_nodes());
      mesh.nodes.push_back(map(node));
    }
    mesh.add_element(type, ids.data());
    for (Point3 xi : {Point3{-0.3, -0.2, -0.4}, Point3{0.1, -0.7, -0.5}, Point3{-0.9, 0.6, -0.95}}) {
      if (dim == 2) xi.z = 0;
      const Point3 x = map_to_physical(mesh, 0, xi), exact = map(xi);
      EXPECT_NEAR(x.x, exact.x, 1e-13);
      EXPECT_NEAR(x.y, exact.y, 1e-13);
      EXPECT_NEAR(x.z, exact.z, 1e-13);
      const ElementJacobian jacobian = element_jacobian(mesh, 0, xi);
      ASSERT_EQ(jacobian.dimension, dim);
      double m[3][3] = {{1, 0.3, 0}, {-0.2, 0.5, 0}, {dim == 3 ? 0.1 : 0.0, 0, dim == 3 ? 1.0 : 0.0}};
      for (int d = 0; d < dim; ++d)
        for (std::size_t k = 0; k < space.size(); ++k) {
          const Point3 g = monomial_gradient(space[k], xi);
          const double gs[3] = {g.x, g.y, g.z};
          for (int r = 0; r < dim; ++r) m[d][r] += coefficient(d, k) * gs[r];
        }
      for (int d = 0; d < 3; ++d)
        for (int r = 0; r < 3; ++r) EXPECT_NEAR(jacobian.matrix[d][r], d < dim && r < dim ? m[d][r] : 0.0, 1e-12) << d << r;
      const double det = dim == 2 ? m[0][0] * m[1][1] - m[0][1] * m[1][0]
                                  : m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                                        m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
      EXPECT_NEAR(jacobian.det, det, 1e-12);
    }
  }
}

TEST(Lagrange, CurvedGmshElementsHaveTheirWallNodesOnTheCirclesAndTheExactMeasure) {
  // Gmsh's curved elements of the quarter annulus 1 <= r <= 2 (and of the hollow quarter cylinder
  // over it, 0 <= z <= 0.5): every node of an element edge or face whose vertices lie on r = 1 or
  // r = 2 lies on that circle, and the integral of det J over the elements is the domain's area
  // (volume) up to the arcs' interpolation error, which falls like h^(g+1) (the chords alone are
  // 1.4e-2 off): a node in a wrong slot would distort an element far more.
  struct Sample {
    std::string file;
    double measure, tolerance;
  };
  const double pi = std::numbers::pi;
  for (const Sample& sample : {Sample{"sector_tri15_msh41.msh", 0.75 * pi, 1e-6}, Sample{"sector_quad16_msh22.msh", 0.75 * pi, 2e-4},
                               Sample{"cylinder_hex27_msh41.msh", 0.375 * pi, 6e-4},
                               Sample{"cylinder_tet35_msh41.msh", 0.375 * pi, 6e-4}}) {
    SCOPED_TRACE(sample.file);
    const Mesh mesh = read_gmsh(std::string(FLOWDG_TEST_DATA_DIR) + "/" + sample.file);
    const auto radius = [](Point3 x) { return std::hypot(x.x, x.y); };
    double measure = 0;
    int on_circles = 0;
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      const ElementType type = mesh.element_types[e];
      const Shape shape = shape_of(type);
      const index_t* ids = mesh.element_node_ids(e);
      const std::vector<Point3> nodes = reference_nodes(type);
      for (int k = n_vertices(shape); k < n_nodes(type); ++k) {
        // The vertices node k's straight position depends on span its edge, face or the element.
        double weights[8];
        shape_functions(lagrange_type(shape, 1), nodes[k], weights, nullptr);
        for (const double wall : {1.0, 2.0}) {
          bool on_wall = true;
          for (int v = 0; v < n_vertices(shape); ++v)
            if (std::abs(weights[v]) > 1e-12) on_wall = on_wall && std::abs(radius(mesh.nodes[ids[v]]) - wall) < 1e-12;
          if (!on_wall) continue;
          EXPECT_NEAR(radius(mesh.nodes[ids[k]]), wall, 1e-12) << "element " << e << " node " << k;
          ++on_circles;
        }
      }
      const QuadratureRule rule = quadrature_rule(shape, geometric_order(type) * dimension(shape));
      for (int q = 0; q < rule.size(); ++q) {
        const double det = element_jacobian(mesh, e, rule.points[q]).det;
        EXPECT_GT(det, 0) << "element " << e;
        measure += rule.weights[q] * det;
      }
    }
    EXPECT_GT(on_circles, 0);
    EXPECT_NEAR(measure, sample.measure, sample.tolerance);
  }
}
