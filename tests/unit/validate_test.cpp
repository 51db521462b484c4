// Mesh validation: repairs (reorientation), refusals with named elements, and quality measures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <numbers>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/lagrange.hpp"
#include "flowdg/mesh/validate.hpp"
#include "mesh_invariants.hpp"

using namespace flowdg;
using flowdg::testing::contains;
using flowdg::testing::mesh_of;
using flowdg::testing::expect_valid_connectivity;
using flowdg::testing::tag_all_boundary_faces;

namespace {

std::string all_errors(const MeshReport& report) {
  std::string text;
  for (const auto& error : report.errors) text += error + "\n";
  return text;
}

Mesh unit_hexahedron() {
  std::vector<Point3> nodes;
  for (int k = 0; k < 8; ++k) nodes.push_back(0.5 * (reference_vertex(Shape::hexahedron, k) + Point3{1, 1, 1}));
  Mesh mesh = mesh_of(3, nodes, ElementType::hexahedron8, {{0, 1, 2, 3, 4, 5, 6, 7}});
  tag_all_boundary_faces(mesh, "wall");
  return mesh;
}

}  // namespace

TEST(Validate, GeneratedMeshesAreValidWithoutNotes) {
  for (Mesh mesh : {rectangle_triangles(0, 1, 0, 1, 6, 5, TriangleLayout::perturbed, 0.3),
                    rectangle_quadrilaterals(0, 1, 0, 1, 4, 4), quarter_annulus(),
                    box_tetrahedra(1, 1, 1, 2, 2, 2)}) {
    const Mesh before = mesh;
    const MeshReport report = validate_mesh(mesh);
    EXPECT_TRUE(report.ok()) << mesh.source << ": " << all_errors(report);
    EXPECT_TRUE(report.notes.empty()) << mesh.source;
    EXPECT_TRUE(report.warnings.empty()) << mesh.source;
    EXPECT_EQ(mesh.element_nodes, before.element_nodes);
    EXPECT_NO_THROW(validate_or_throw(mesh));
  }
}

TEST(Validate, ClockwiseStraightElementsAreReorientedInPlace) {
  Mesh triangles = rectangle_triangles(0, 1, 0, 1, 3, 3);
  for (const index_t e : {4, 9, 11}) std::swap(triangles.element_nodes[3 * e + 0], triangles.element_nodes[3 * e + 1]);
  // Faces still match, but three of them are no longer traversed in opposite directions.
  const auto identity_faces = [](const Connectivity& connectivity) {
    return std::count_if(connectivity.faces.begin(), connectivity.faces.end(),
                         [](const Face& face) { return face.element_p >= 0 && face.orientation == 0; });
  };
  EXPECT_EQ(identity_faces(build_connectivity(triangles)), 6);
  const MeshReport report = validate_mesh(triangles);
  EXPECT_TRUE(report.ok()) << all_errors(report);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_TRUE(contains(report.notes[0], "reoriented 3 inverted elements to positive orientation (first: 4; 9; 11)"));
  for (index_t e = 0; e < triangles.n_elements(); ++e) EXPECT_GT(flowdg::testing::simplex_measure(triangles, e), 0);
  expect_valid_connectivity(triangles, build_connectivity(triangles));
  EXPECT_EQ(identity_faces(build_connectivity(triangles)), 0);

  Mesh quads = rectangle_quadrilaterals(0, 1, 0, 1, 2, 2);
  std::reverse(quads.element_nodes.begin() + 4, quads.element_nodes.begin() + 8);
  EXPECT_EQ(validate_mesh(quads).notes.size(), 1u);
  expect_valid_connectivity(quads, build_connectivity(quads));

  Mesh tets = box_tetrahedra(1, 1, 1, 1, 1, 1);
  std::swap(tets.element_nodes[0], tets.element_nodes[3]);
  EXPECT_EQ(validate_mesh(tets).notes.size(), 1u);
  expect_valid_connectivity(tets, build_connectivity(tets));

  Mesh hex = unit_hexahedron();
  std::rotate(hex.element_nodes.begin(), hex.element_nodes.begin() + 4, hex.element_nodes.end());  // top <-> bottom
  EXPECT_EQ(validate_mesh(hex).notes.size(), 1u);
  expect_valid_connectivity(hex, build_connectivity(hex));
}

TEST(Validate, InvertedCurvedTriangleIsAnError) {
  // Vertices clockwise; edge nodes at the edge midpoints in that (clockwise) order.
  Mesh mesh = mesh_of(2, {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0.5, 0}, {0.5, 0.5, 0}, {0.5, 0, 0}},
                      ElementType::triangle6, {{0, 1, 2, 3, 4, 5}});
  tag_all_boundary_faces(mesh, "wall");
  const MeshReport report = validate_mesh(mesh);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_TRUE(contains(report.errors[0], "1 curved elements are inverted"));
  EXPECT_TRUE(contains(report.errors[0], "element 0 (triangle6, vertices 0 (0, 0), 1 (0, 1), 2 (1, 0))"));
  EXPECT_THROW(validate_or_throw(mesh), InputError);
}

TEST(Validate, ZeroAreaAndZeroVolumeElementsNameTheirVertices) {
  Mesh flat = mesh_of(2, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2, 0, 0}}, ElementType::triangle3, {{0, 1, 2}, {0, 3, 1}});
  tag_all_boundary_faces(flat, "wall");
  const std::string errors = all_errors(validate_mesh(flat));
  EXPECT_TRUE(contains(errors, "1 elements have zero area: element 1 (triangle3, vertices 0 (0, 0), 3 (2, 0), 1 (1, 0))"));

  Mesh sliver = mesh_of(3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, ElementType::tetrahedron4, {{0, 1, 2, 3}});
  tag_all_boundary_faces(sliver, "wall");
  EXPECT_TRUE(contains(all_errors(validate_mesh(sliver)), "1 elements have zero volume: element 0 (tetrahedron4"));
}

TEST(Validate, NonConvexQuadrilateralIsAnError) {
  Mesh mesh = mesh_of(2, {{0, 0, 0}, {2, 0, 0}, {0.5, 0.5, 0}, {0, 2, 0}}, ElementType::quadrilateral4, {{0, 1, 2, 3}});
  tag_all_boundary_faces(mesh, "wall");
  EXPECT_TRUE(contains(all_errors(validate_mesh(mesh)), "1 elements are not convex"));
}

TEST(Validate, DuplicateElementsNameBothIds) {
  Mesh mesh = rectangle_triangles(0, 1, 0, 1, 2, 2);
  const std::vector<index_t> copy(mesh.element_node_ids(5), mesh.element_node_ids(5) + 3);
  mesh.add_element(ElementType::triangle3, std::vector<index_t>{copy[1], copy[2], copy[0]}.data());
  const MeshReport report = validate_mesh(mesh);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0], "1 duplicate elements: elements 5 and 8 have the same vertices");
}

TEST(Validate, ConnectivityProblemsAreCollectedNotThrown) {
  Mesh mesh = rectangle_triangles(0, 1, 0, 1, 2, 2);
  mesh.tagged_facets.pop_back();
  const MeshReport report = validate_mesh(mesh);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_TRUE(contains(report.errors[0], "1 boundary faces have no boundary tag"));
  try {
    validate_or_throw(mesh);
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_TRUE(contains(error.what(), "mesh builtin:rectangle"));
    EXPECT_TRUE(contains(error.what(), "is invalid: 1 boundary faces have no boundary tag"));
  }
}

TEST(Validate, ElementNodeIdsOutOfRangeAreErrors) {
  Mesh mesh = rectangle_triangles(0, 1, 0, 1, 1, 1);
  mesh.element_nodes[2] = 99;
  EXPECT_EQ(validate_mesh(mesh).errors, std::vector<std::string>{"1 bad element node lists: element 0 uses node 99 (the mesh has 4 nodes)"});
}

TEST(Validate, MinimumAnglesOfKnownShapes) {
  const Mesh equilateral = mesh_of(2, {{0, 0, 0}, {1, 0, 0}, {0.5, std::sqrt(0.75), 0}}, ElementType::triangle3, {{0, 1, 2}});
  EXPECT_NEAR(min_angle_degrees(equilateral, 0), 60.0, 1e-12);
  EXPECT_NEAR(element_diameter(equilateral, 0), 1.0, 1e-15);
  const Mesh right = rectangle_triangles(0, 1, 0, 1, 1, 1);
  EXPECT_NEAR(min_angle_degrees(right, 0), 45.0, 1e-12);
  EXPECT_NEAR(element_diameter(right, 0), std::sqrt(2.0), 1e-15);
  const Mesh regular = mesh_of(3, {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}}, ElementType::tetrahedron4, {{0, 1, 2, 3}});
  EXPECT_NEAR(min_angle_degrees(regular, 0), std::acos(1.0 / 3.0) * 180 / std::numbers::pi, 1e-12);
  EXPECT_NEAR(min_angle_degrees(unit_hexahedron(), 0), 90.0, 1e-12);
}

TEST(Validate, SliverTriangleGivesAWarning) {
  Mesh mesh = mesh_of(2, {{0, 0, 0}, {1, 0, 0}, {0.5, 0.004, 0}}, ElementType::triangle3, {{0, 1, 2}});
  tag_all_boundary_faces(mesh, "wall");
  const MeshReport report = validate_mesh(mesh);
  EXPECT_TRUE(report.ok());
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_TRUE(contains(report.warnings[0], "1 elements have an angle below 1 degree"));
  EXPECT_TRUE(contains(report.warnings[0], "element 0 (0.458"));
}

TEST(Validate, GmshSampleMeshesSatisfyEveryInvariant) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FLOWDG_TEST_DATA_DIR)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".msh" || name.starts_with("bad_")) continue;
    SCOPED_TRACE(name);
    Mesh mesh = read_gmsh(entry.path().string());
    const MeshReport report = validate_mesh(mesh);
    ASSERT_TRUE(report.ok()) << all_errors(report);
    const Connectivity connectivity = build_connectivity(mesh);
    expect_valid_connectivity(mesh, connectivity);
    if (mesh.dimension == 2) {  // the sample 2D domains are rectangles and a quarter annulus: disks
      EXPECT_EQ(flowdg::testing::n_vertex_nodes(mesh) - connectivity.n_faces() + mesh.n_elements(), 1);
    }
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no sample meshes in " << FLOWDG_TEST_DATA_DIR;
}

TEST(Validate, CurvedElementsWithPositiveVerticesButFoldedEdgesAreErrors) {
  // Mid-edge node 3 of edge 0-1 pulled from (0.5, 0) to (0.5, 0.6), beyond the opposite edge.
  Mesh triangle = mesh_of(2, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.5, 0.6, 0}, {0.5, 0.5, 0}, {0, 0.5, 0}},
                          ElementType::triangle6, {{0, 1, 2, 3, 4, 5}});
  tag_all_boundary_faces(triangle, "wall");
  EXPECT_TRUE(contains(all_errors(validate_mesh(triangle)), "1 curved elements are inverted or fold over"));
  triangle.nodes[3].y = 0.1;  // a gentle bulge is fine
  EXPECT_TRUE(validate_mesh(triangle).ok());

  // The same for a nine-node quadrilateral on [0,1]^2: centre node 8 dragged to a corner.
  std::vector<Point3> nodes;
  for (int k = 0; k < 4; ++k) nodes.push_back(0.5 * (reference_vertex(Shape::quadrilateral, k) + Point3{1, 1, 0}));
  for (int k = 0; k < 4; ++k) nodes.push_back(0.5 * (nodes[k] + nodes[(k + 1) % 4]));
  nodes.push_back({0.5, 0.5, 0});
  Mesh quad = mesh_of(2, nodes, ElementType::quadrilateral9, {{0, 1, 2, 3, 4, 5, 6, 7, 8}});
  tag_all_boundary_faces(quad, "wall");
  EXPECT_TRUE(validate_mesh(quad).ok());
  quad.nodes[8] = {0.95, 0.95, 0};
  EXPECT_FALSE(validate_mesh(quad).ok());
  quad.element_types[0] = ElementType::quadrilateral8;  // the same nodes read as serendipity: no centre node
  quad.element_offsets[1] = 8;
  quad.element_nodes.pop_back();
  EXPECT_TRUE(validate_mesh(quad).ok());
}

namespace {

/// One element of `type` whose nodes are map(reference node), every boundary face tagged "wall".
Mesh mapped_element(ElementType type, const std::function<Point3(Point3)>& map) {
  std::vector<Point3> nodes;
  std::vector<index_t> ids;
  for (const Point3& r : reference_nodes(type)) {
    ids.push_back(static_cast<index_t>(nodes.size()));
    nodes.push_back(map(r));
  }
  Mesh mesh = mesh_of(dimension(shape_of(type)), nodes, type, {ids});
  tag_all_boundary_faces(mesh, "wall");
  return mesh;
}

}  // namespace

TEST(Validate, CurvedElementsOfEveryOrderAreCheckedThroughDetJ) {
  // Straight (reference) elements of every curved type are valid; dragging the node nearest to
  // the centre past a vertex folds them; a mirrored copy is inverted (reported, not repaired).
  for (int t = 0; t < element_type_count; ++t) {
    const auto type = static_cast<ElementType>(t);
    if (geometric_order(type) == 1) continue;
    SCOPED_TRACE(type_name(type));
    const auto identity = [](Point3 r) { return r; };
    Mesh mesh = mapped_element(type, identity);
    EXPECT_TRUE(validate_mesh(mesh).ok());

    const std::vector<Point3> reference = reference_nodes(type);
    const std::size_t inner = reference.size() - 1;  // the last node: interior, or the last edge's (quadrilateral8)
    Mesh folded = mesh;
    const Point3 beyond = 2.5 * reference_vertex(shape_of(type), 1) - 1.5 * reference[inner];
    folded.nodes[mesh.element_node_ids(0)[inner]] = beyond;
    EXPECT_TRUE(contains(all_errors(validate_mesh(folded)), "1 curved elements are inverted or fold over"));

    Mesh mirrored = mapped_element(type, [](Point3 r) { return Point3{r.y, r.x, r.z}; });
    const MeshReport report = validate_mesh(mirrored);
    EXPECT_TRUE(contains(all_errors(report), "1 curved elements are inverted or fold over"));
    EXPECT_TRUE(report.notes.empty());
  }
}

TEST(Validate, CurvedQuadrilateralWithAReentrantChordCornerIsValid) {
  // A sector of the annulus 1 <= r <= 2 over 200 degrees in one bicubic element: its vertices
  // make a clockwise trapezoid, yet the element's map (the polar map interpolated) has det J > 0
  // everywhere, as dense sampling confirms. det J decides for curved elements, the chords do not.
  const double half_angle = 100 * std::numbers::pi / 180;
  Mesh mesh = mapped_element(ElementType::quadrilateral16, [&](Point3 r) {
    const double radius = 1.5 + 0.5 * r.x, angle = half_angle * r.y;
    return Point3{radius * std::cos(angle), radius * std::sin(angle), 0};
  });
  const auto v = [&](int k) { return mesh.nodes[mesh.element_node_ids(0)[k]]; };
  const Point3 d1 = v(2) - v(0), d2 = v(3) - v(1);
  EXPECT_LT(d1.x * d2.y - d1.y * d2.x, 0);  // twice the chord quadrilateral's signed area
  for (int i = 0; i <= 40; ++i)
    for (int j = 0; j <= 40; ++j) ASSERT_GT(element_jacobian(mesh, 0, {-1 + i / 20.0, -1 + j / 20.0, 0}).det, 0);
  const MeshReport report = validate_mesh(mesh);
  EXPECT_TRUE(report.ok()) << all_errors(report);
  EXPECT_TRUE(report.notes.empty());
}

TEST(Validate, FlatCurvedElementIsAnError) {
  // A 10-node triangle with every node on the x axis: det J = 0 everywhere.
  Mesh mesh = mapped_element(ElementType::triangle10, [](Point3 r) { return Point3{r.x + 0.5 * r.y, 0, 0}; });
  EXPECT_TRUE(contains(all_errors(validate_mesh(mesh)), "1 curved elements are inverted or fold over"));
}
