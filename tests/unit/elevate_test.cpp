// Order elevation (mesh/elevate.hpp): every new node at the straight element's image of its
// reference node, one node per position, the same faces, exact measures and polynomial maps, the
// walls' nodes on their circles; bad requests are InputErrors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/elevate.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/lagrange.hpp"
#include "flowdg/mesh/validate.hpp"
#include "mesh_invariants.hpp"

using namespace flowdg;
using flowdg::testing::contains;

namespace {

/// x = sum_v N_v(xi) x_v over the vertices: the straight element's map.
Point3 straight_map(const Mesh& mesh, index_t e, Point3 xi) {
  const Shape shape = mesh.element_shape(e);
  double weights[8];
  shape_functions(lagrange_type(shape, 1), xi, weights, nullptr);
  Point3 x{0, 0, 0};
  for (int v = 0; v < n_vertices(shape); ++v) x = x + weights[v] * mesh.nodes[mesh.element_node_ids(e)[v]];
  return x;
}

/// The integral of det J over all elements, with a rule exact for it (det J has degree at most
/// dim g in each variable).
double total_measure(const Mesh& mesh) {
  double total = 0;
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const Shape shape = mesh.element_shape(e);
    const QuadratureRule rule = quadrature_rule(shape, geometric_order(mesh.element_types[e]) * dimension(shape));
    for (int q = 0; q < rule.size(); ++q) total += rule.weights[q] * element_jacobian(mesh, e, rule.points[q]).det;
  }
  return total;
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

struct Case {
  std::string name;
  Mesh mesh;
  double measure;
};

std::vector<Case> straight_meshes() {
  return {{"perturbed triangles", rectangle_triangles(0, 2, 0, 1, 4, 3, TriangleLayout::perturbed, 0.3), 2.0},
          {"perturbed quadrilaterals", rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.3), 2.0},
          {"mixed file", read_gmsh(std::string(FLOWDG_TEST_DATA_DIR) + "/mixed_msh41.msh"), 2.0},
          {"tetrahedra", box_tetrahedra(1, 2, 3, 2, 2, 1), 6.0},
          {"hexahedra", box_hexahedra(1, 2, 3, 2, 2, 1), 6.0}};
}

}  // namespace

TEST(Elevate, NodesAtTheStraightPositionsOncePerPositionWithTheSameFaces) {
  for (const Case& c : straight_meshes()) {
    const bool hexahedra = c.mesh.element_shape(0) == Shape::hexahedron;
    for (int order = 2; order <= (hexahedra ? 2 : 4); ++order) {
      SCOPED_TRACE(c.name + ", order " + std::to_string(order));
      const Mesh mesh = elevate_order(c.mesh, order);
      ASSERT_EQ(mesh.n_elements(), c.mesh.n_elements());
      // The straight mesh's nodes come first, unchanged; names, facets and file tags are kept.
      ASSERT_GE(mesh.n_nodes(), c.mesh.n_nodes());
      EXPECT_TRUE(std::equal(c.mesh.nodes.begin(), c.mesh.nodes.end(), mesh.nodes.begin(),
                             [](Point3 a, Point3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }));
      EXPECT_EQ(mesh.boundary_names, c.mesh.boundary_names);
      EXPECT_EQ(mesh.tagged_facets.size(), c.mesh.tagged_facets.size());
      EXPECT_EQ(mesh.element_file_tags, c.mesh.element_file_tags);
      for (index_t e = 0; e < mesh.n_elements(); ++e) {
        const ElementType type = mesh.element_types[e];
        ASSERT_EQ(shape_of(type), c.mesh.element_shape(e));
        ASSERT_EQ(geometric_order(type), order);
        ASSERT_NE(type, ElementType::quadrilateral8);
        ASSERT_TRUE(std::equal(c.mesh.element_node_ids(e), c.mesh.element_node_ids(e) + n_vertices(shape_of(type)),
                               mesh.element_node_ids(e)));
        const std::vector<Point3> reference = reference_nodes(type);
        for (int k = 0; k < n_nodes(type); ++k) {
          const Point3 x = mesh.nodes[mesh.element_node_ids(e)[k]], expected = straight_map(c.mesh, e, reference[k]);
          ASSERT_LE(flowdg::testing::length(x - expected), 1e-14) << "element " << e << " node " << k;
        }
      }
      // One node per position (so neighbours share their edge and face nodes), and every node used.
      std::vector<std::tuple<double, double, double>> positions;
      for (const Point3& x : mesh.nodes) positions.emplace_back(x.x, x.y, x.z);
      std::sort(positions.begin(), positions.end());
      EXPECT_EQ(std::adjacent_find(positions.begin(), positions.end()), positions.end());
      std::vector<index_t> used = mesh.element_nodes;
      std::sort(used.begin(), used.end());
      EXPECT_EQ(std::unique(used.begin(), used.end()) - used.begin(), mesh.n_nodes());
      // The connectivity builder sees the straight mesh's faces.
      const Connectivity straight = build_connectivity(c.mesh), elevated = build_connectivity(mesh);
      ASSERT_EQ(elevated.n_faces(), straight.n_faces());
      for (index_t f = 0; f < straight.n_faces(); ++f) {
        const Face &a = straight.faces[f], &b = elevated.faces[f];
        EXPECT_TRUE(a.element_m == b.element_m && a.element_p == b.element_p && a.local_face_m == b.local_face_m &&
                    a.local_face_p == b.local_face_p && a.tag == b.tag && a.orientation == b.orientation)
            << "face " << f;
      }
      Mesh checked = mesh;
      const MeshReport report = validate_mesh(checked);
      EXPECT_TRUE(report.ok() && report.notes.empty());
      EXPECT_NEAR(total_measure(mesh), c.measure, 1e-13);
    }
  }
}

TEST(Elevate, PolynomialDeformationsOfTheElementsDegreeAreReproducedExactly) {
  // A deformation of degree g composed with the straight map stays in the element's space, so the
  // elevated, deformed element's map is the deformation of the straight one at every point.
  for (const Case& c : straight_meshes()) {
    const bool hexahedra = c.mesh.element_shape(0) == Shape::hexahedron;
    for (int order = 2; order <= (hexahedra ? 2 : 4); ++order) {
      SCOPED_TRACE(c.name + ", order " + std::to_string(order));
      const auto deformation = [order](Point3 x) {
        return Point3{x.x + 0.02 * std::pow(x.y, order), x.y + 0.03 * std::pow(x.x - x.z, order), x.z + 0.01 * std::pow(x.x, order)};
      };
      Mesh mesh = elevate_order(c.mesh, order);
      map_nodes(mesh, deformation);
      for (index_t e = 0; e < mesh.n_elements(); ++e)
        for (const Point3 xi : {Point3{-0.5, -0.6, -0.7}, Point3{0.2, -0.9, -0.6}}) {
          const Point3 planar{xi.x, xi.y, mesh.dimension == 3 ? xi.z : 0.0};
          const Point3 x = map_to_physical(mesh, e, planar), expected = deformation(straight_map(c.mesh, e, planar));
          ASSERT_LE(flowdg::testing::length(x - expected), 1e-13) << "element " << e;
        }
    }
  }
}

TEST(Elevate, EdgeNodesOfCircleTaggedFacetsAreMovedOntoTheCircles) {
  const Mesh straight = quarter_annulus(1.0, 1.384, 3, 6);
  for (int order = 2; order <= 4; ++order) {
    SCOPED_TRACE(order);
    const Mesh mesh = elevate_order(straight, order);
    ASSERT_EQ(mesh.boundary_circles.size(), 2u);
    int on_circles = 0;
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      const index_t* ids = mesh.element_node_ids(e);
      for (int edge = 0; edge < 3; ++edge) {
        const index_t a = ids[edge], b = ids[(edge + 1) % 3];
        for (const BoundaryCircle& circle : mesh.boundary_circles) {
          const auto on = [&](index_t node) { return std::abs(std::hypot(mesh.nodes[node].x, mesh.nodes[node].y) - circle.radius) < 1e-14; };
          if (!on(a) || !on(b)) continue;
          for (int k = 0; k < order - 1; ++k) {  // Gmsh's edge nodes: 3 + edge (order - 1) + k
            EXPECT_TRUE(on(ids[3 + edge * (order - 1) + k])) << "element " << e << " edge " << edge;
            ++on_circles;
          }
        }
      }
    }
    EXPECT_EQ(on_circles, 2 * 6 * (order - 1));  // the 6 inner and 6 outer wall edges
    Mesh checked = mesh;
    EXPECT_TRUE(validate_mesh(checked).ok());
  }
}

TEST(Elevate, BadRequestsAreInputErrors) {
  const Mesh triangles = rectangle_triangles(0, 1, 0, 1, 2, 2);
  EXPECT_TRUE(contains(error_of([&] { elevate_order(triangles, 5); }), "geometric order 5"));
  EXPECT_TRUE(contains(error_of([&] { elevate_order(triangles, 0); }), "out of range (1..4)"));
  EXPECT_TRUE(contains(error_of([&] { elevate_order(box_hexahedra(1, 1, 1, 1, 1, 1), 3); }),
                       "has hexahedra, whose geometric order can be 1 or 2 (asked for 3)"));
  EXPECT_TRUE(contains(error_of([&] { elevate_order(elevate_order(triangles, 2), 3); }),
                       "is a triangle6); only straight-sided meshes can be elevated"));
  const Mesh same = elevate_order(triangles, 1);
  EXPECT_EQ(same.element_nodes, triangles.element_nodes);
}
