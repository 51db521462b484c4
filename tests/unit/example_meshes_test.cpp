// The Navier-Stokes cases' Gmsh meshes in examples/meshes (made by the .geo scripts beside them):
// flowdg reads and validates them (no inverted or folded curved element), the element counts the
// scripts' headers state, the boundary names, and the geometry of the curved walls: every node of
// a wall edge, mid-edge nodes included, on the cylinder or on the NACA0012 section; Couette's left
// and right nodes pair by the period (2H, 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/validate.hpp"

using namespace flowdg;

namespace {

Mesh read_example(const std::string& name) {
  Mesh mesh = read_gmsh(std::string(FLOWDG_SOURCE_DIR) + "/examples/meshes/" + name);
  const MeshReport report = validate_mesh(mesh);
  EXPECT_TRUE(report.ok()) << name << ": " << (report.errors.empty() ? "" : report.errors.front());
  EXPECT_TRUE(report.warnings.empty()) << name << ": " << (report.warnings.empty() ? "" : report.warnings.front());
  return mesh;
}

std::map<ElementType, int> counts(const Mesh& mesh) {
  std::map<ElementType, int> result;
  for (const ElementType type : mesh.element_types) ++result[type];
  return result;
}

std::map<std::string, int> facets_by_name(const Mesh& mesh) {
  std::map<std::string, int> result;
  for (const auto& facet : mesh.tagged_facets) ++result[mesh.boundary_names.at(facet.tag)];
  return result;
}

// The nodes of the boundary edges named `name`: the two vertices and the mid-edge node of the
// element edge (triangle6: nodes 3, 4, 5 on edges 0-1, 1-2, 2-0; quadrilateral9: 4..7 on 0-1, 1-2,
// 2-3, 3-0).
std::vector<Point3> wall_nodes(const Mesh& mesh, const std::string& name) {
  std::map<std::pair<index_t, index_t>, index_t> middle;
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const index_t* ids = mesh.element_node_ids(e);
    const int corners = mesh.element_types[e] == ElementType::triangle6 ? 3 : 4;
    for (int k = 0; k < corners; ++k) middle[std::minmax(ids[k], ids[(k + 1) % corners])] = ids[corners + k];
  }
  std::vector<Point3> nodes;
  for (const auto& facet : mesh.tagged_facets) {
    if (mesh.boundary_names.at(facet.tag) != name) continue;
    nodes.push_back(mesh.nodes[facet.vertices[0]]);
    nodes.push_back(mesh.nodes[facet.vertices[1]]);
    nodes.push_back(mesh.nodes[middle.at(std::minmax<index_t>(facet.vertices[0], facet.vertices[1]))]);
  }
  return nodes;
}

// NACA0012 with the closed trailing edge: y_t = 0.6 (0.2969 sqrt x - 0.1260 x - 0.3516 x^2 + 0.2843 x^3 - 0.1036 x^4).
double naca0012_half_thickness(double x) {
  return 0.6 * (0.2969 * std::sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x - 0.1036 * x * x * x * x);
}

}  // namespace

TEST(ExampleMeshes, CouetteMeshesAreValidAndPeriodicLeftToRight) {
  struct Case {
    const char* file;
    ElementType type;
    int count;
  };
  for (const Case c : {Case{"couette_A.msh", ElementType::triangle6, 84}, Case{"couette_D.msh", ElementType::quadrilateral9, 32}}) {
    SCOPED_TRACE(c.file);
    const Mesh mesh = read_example(c.file);
    EXPECT_EQ(counts(mesh), (std::map<ElementType, int>{{c.type, c.count}}));
    const std::map<std::string, int> facets = facets_by_name(mesh);
    EXPECT_EQ(facets.at("bottom"), facets.at("top"));
    EXPECT_EQ(facets.at("left"), facets.at("right"));
    EXPECT_EQ(facets.size(), 4u);
    const std::vector<Point3> left = wall_nodes(mesh, "left"), right = wall_nodes(mesh, "right");
    ASSERT_EQ(left.size(), right.size());
    for (const Point3& p : left) {
      EXPECT_NEAR(p.x, 0.0, 1e-14);
      double nearest = 1e300;
      for (const Point3& q : right) nearest = std::min(nearest, std::hypot(q.x - (p.x + 4.0), q.y - p.y));
      // Gmsh's periodic copy lands within ~3e-12 of the translated node; flowdg pairs periodic faces
      // within 1e-8 of the face size (mesh/periodic.cpp).
      EXPECT_LT(nearest, 1e-10) << "left node (" << p.x << ", " << p.y << ") has no partner at x = 4";
    }
    for (const Point3& p : wall_nodes(mesh, "top")) EXPECT_NEAR(p.y, 2.0, 1e-14);
    for (const Point3& p : wall_nodes(mesh, "bottom")) EXPECT_NEAR(p.y, 0.0, 1e-14);
  }
}

TEST(ExampleMeshes, CylinderMeshHasItsWallNodesOnTheCircle) {
  const Mesh mesh = read_example("cylinder_n1.msh");
  EXPECT_EQ(counts(mesh), (std::map<ElementType, int>{{ElementType::triangle6, 4322}, {ElementType::quadrilateral9, 640}}));
  EXPECT_EQ(facets_by_name(mesh), (std::map<std::string, int>{{"wall", 64}, {"farfield", 90}}));
  const std::vector<Point3> wall = wall_nodes(mesh, "wall");
  ASSERT_EQ(wall.size(), 3u * 64);
  for (const Point3& p : wall) EXPECT_NEAR(std::hypot(p.x, p.y), 0.5, 1e-12);
  // Not straight-sided: the mid-edge nodes are off the chords (else the run would see a polygon).
  double largest_offset = 0;
  for (std::size_t i = 0; i < wall.size(); i += 3)
    largest_offset = std::max(largest_offset, std::hypot(wall[i + 2].x - (wall[i].x + wall[i + 1].x) / 2,
                                                         wall[i + 2].y - (wall[i].y + wall[i + 1].y) / 2));
  EXPECT_GT(largest_offset, 1e-4);
}

TEST(ExampleMeshes, Naca0012MeshHasItsWallNodesOnTheSection) {
  const Mesh mesh = read_example("naca0012_n1.msh");
  EXPECT_EQ(counts(mesh), (std::map<ElementType, int>{{ElementType::quadrilateral9, 5100}}));
  EXPECT_EQ(facets_by_name(mesh), (std::map<std::string, int>{{"wall", 128}, {"farfield", 230}}));
  const std::vector<Point3> wall = wall_nodes(mesh, "wall");
  double chord_min = 1, chord_max = 0;
  for (const Point3& p : wall) {
    ASSERT_GE(p.x, -1e-12);
    ASSERT_LE(p.x, 1 + 1e-12);
    chord_min = std::min(chord_min, p.x);
    chord_max = std::max(chord_max, p.x);
    // The .geo script's spline through 801 points per side: its nodes within 1e-8 of the formula.
    EXPECT_NEAR(std::abs(p.y), naca0012_half_thickness(std::max(p.x, 0.0)), 1e-8) << "x = " << p.x;
  }
  EXPECT_NEAR(chord_min, 0.0, 1e-12);
  EXPECT_NEAR(chord_max, 1.0, 1e-12);
}

TEST(ExampleMeshes, Naca0012HalfMeshIsTheUpperHalfWithItsSymmetryPlane) {
  const Mesh half = read_example("naca0012_half_n1.msh");
  EXPECT_EQ(counts(half), (std::map<ElementType, int>{{ElementType::quadrilateral9, 2550}}));
  EXPECT_EQ(facets_by_name(half), (std::map<std::string, int>{{"wall", 64}, {"farfield", 115}, {"symmetry", 51}}));
  for (const Point3& p : wall_nodes(half, "wall")) {
    EXPECT_GE(p.y, -1e-14);
    EXPECT_NEAR(p.y, naca0012_half_thickness(std::max(p.x, 0.0)), 1e-8) << "x = " << p.x;
  }
  // The symmetry plane: the stagnation line ahead of the leading edge and the wake cut, on y = 0.
  double x_min = 0, x_max = 0;
  for (const Point3& p : wall_nodes(half, "symmetry")) {
    EXPECT_EQ(p.y, 0.0) << "x = " << p.x;
    EXPECT_TRUE(p.x <= 1e-12 || p.x >= 1 - 1e-12) << "a symmetry node on the chord: x = " << p.x;
    x_min = std::min(x_min, p.x);
    x_max = std::max(x_max, p.x);
  }
  EXPECT_NEAR(x_min, -20.0, 1e-9);
  EXPECT_NEAR(x_max, 21.0, 1e-9);
  // The same cells as the whole C-mesh's upper half: every node of the half is a node of the whole.
  const Mesh whole = read_example("naca0012_n1.msh");
  std::set<std::pair<double, double>> nodes;
  for (const Point3& p : whole.nodes) nodes.insert({p.x, p.y});
  index_t missing = 0;
  for (const Point3& p : half.nodes) missing += nodes.count({p.x, p.y}) == 0;
  EXPECT_EQ(missing, 0);
}

// The 3D NACA 0012 section (examples/meshes/naca0012_3d.geo, n = 1): straight tetrahedra, the
// header's counts, the three boundary names, every wall vertex on the section's formula (closed
// trailing edge) and every symmetry vertex on z = 0 or z = span.
TEST(ExampleMeshes, TheExtrudedNaca0012SectionIsOnItsFormula) {
  const Mesh mesh = read_example("naca0012_3d_n1.msh");
  EXPECT_EQ(mesh.dimension, 3);
  EXPECT_EQ(counts(mesh), (std::map<ElementType, int>{{ElementType::tetrahedron4, 27768}}));
  const std::map<std::string, int> facets = facets_by_name(mesh);
  EXPECT_EQ(facets.at("airfoil"), 592);
  EXPECT_EQ(facets.at("farfield"), 256);
  EXPECT_EQ(facets.at("symmetry"), 9256);
  double largest = 0, off_plane = 0;
  for (const auto& facet : mesh.tagged_facets) {
    const std::string& name = mesh.boundary_names.at(facet.tag);
    for (int k = 0; k < 3; ++k) {
      const Point3 x = mesh.nodes[facet.vertices[k]];
      if (name == "airfoil") {
        const double t = std::clamp(x.x, 0.0, 1.0);
        const double half = 0.6 * (0.2969 * std::sqrt(t) - 0.1260 * t - 0.3516 * t * t + 0.2843 * t * t * t - 0.1036 * t * t * t * t);
        largest = std::max(largest, std::abs(std::abs(x.y) - half));
      } else if (name == "symmetry") {
        off_plane = std::max(off_plane, std::min(std::abs(x.z), std::abs(x.z - 0.25)));
      }
    }
  }
  EXPECT_LT(largest, 1e-8);
  EXPECT_LT(off_plane, 1e-12);
}
