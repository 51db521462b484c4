// Face matching, orientation codes, face order, connectivity errors and element reordering.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "mesh_invariants.hpp"

using namespace flowdg;
using flowdg::testing::expect_valid_connectivity;
using flowdg::testing::tag_all_boundary_faces;
using flowdg::testing::contains;
using flowdg::testing::mesh_of;

namespace {

std::string error_of(const Mesh& mesh) {
  try {
    build_connectivity(mesh);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

// The largest index distance between face neighbours: what reordering should keep small.
index_t bandwidth(const Mesh& mesh) {
  const Connectivity connectivity = build_connectivity(mesh);
  index_t largest = 0;
  for (const Face& face : connectivity.faces)
    if (face.element_p >= 0) largest = std::max(largest, std::abs(face.element_p - face.element_m));
  return largest;
}

Mesh permuted(const Mesh& mesh, const std::vector<index_t>& new_to_old) {
  Mesh result = mesh;
  result.element_types.clear();
  result.element_offsets = {0};
  result.element_nodes.clear();
  for (const index_t old : new_to_old) result.add_element(mesh.element_types[old], mesh.element_node_ids(old));
  return result;
}

Mesh shuffled(const Mesh& mesh) {
  std::vector<index_t> order(mesh.n_elements());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(42);
  std::shuffle(order.begin(), order.end(), random);
  return permuted(mesh, order);
}

void expect_same_elements_in_order(const Mesh& reordered, const Mesh& original,
                                   const std::vector<index_t>& new_to_old) {
  ASSERT_EQ(new_to_old.size(), static_cast<std::size_t>(original.n_elements()));
  std::vector<index_t> sorted = new_to_old;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k) ASSERT_EQ(sorted[k], static_cast<index_t>(k)) << "not a permutation";
  ASSERT_EQ(reordered.n_elements(), original.n_elements());
  for (index_t e = 0; e < reordered.n_elements(); ++e) {
    const index_t old = new_to_old[e];
    ASSERT_EQ(reordered.element_types[e], original.element_types[old]);
    ASSERT_TRUE(std::equal(reordered.element_node_ids(e), reordered.element_node_ids(e) + reordered.element_n_nodes(e),
                           original.element_node_ids(old), original.element_node_ids(old) + original.element_n_nodes(old)))
        << "element " << e;
  }
}

}  // namespace

TEST(Connectivity, TwoTrianglesShareOneReversedEdge) {
  Mesh mesh = mesh_of(2, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, ElementType::triangle3,
                      {{1, 3, 2}, {0, 1, 2}});
  tag_all_boundary_faces(mesh, "wall");
  const Connectivity connectivity = build_connectivity(mesh);
  ASSERT_EQ(connectivity.n_faces(), 5);
  EXPECT_EQ(connectivity.n_boundary_faces(), 4);
  const Face& shared = connectivity.faces[4];
  EXPECT_EQ(shared.element_m, 0);
  EXPECT_EQ(shared.element_p, 1);
  EXPECT_EQ(shared.local_face_m, 2);  // (2, 1) in element 0
  EXPECT_EQ(shared.local_face_p, 1);  // (1, 2) in element 1
  EXPECT_EQ(shared.orientation, 1);
  EXPECT_EQ(connectivity.max_faces, 3);
  expect_valid_connectivity(mesh, connectivity);
}

TEST(Connectivity, TetrahedronFaceOrientationCodesMapPlusVerticesOntoMinus) {
  // Tetrahedron 0 and, across its face (1, 2, 3), tetrahedron 1 numbered in each of the 12
  // orientation-preserving ways. Seen from the two sides a face runs in opposite directions, so
  // the codes are the three reflections.
  const std::vector<Point3> nodes{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  std::array<index_t, 4> second{1, 2, 3, 4};
  std::set<int> codes;
  int numberings = 0;
  do {
    const auto& v = second;
    const Point3 a = nodes[v[1]] - nodes[v[0]], b = nodes[v[2]] - nodes[v[0]], c = nodes[v[3]] - nodes[v[0]];
    if (dot(a, cross(b, c)) <= 0) continue;
    ++numberings;
    Mesh mesh = mesh_of(3, nodes, ElementType::tetrahedron4, {{0, 1, 2, 3}, {v[0], v[1], v[2], v[3]}});
    tag_all_boundary_faces(mesh, "wall");
    const Connectivity connectivity = build_connectivity(mesh);
    ASSERT_EQ(connectivity.n_interior_faces(), 1);
    expect_valid_connectivity(mesh, connectivity);
    codes.insert(connectivity.faces.back().orientation);
  } while (std::next_permutation(second.begin(), second.end()));
  EXPECT_EQ(numberings, 12);
  EXPECT_EQ(codes, (std::set<int>{3, 4, 5}));
}

TEST(Connectivity, HexahedronFaceOrientationCodesUnderAllCubeRotations) {
  // Cube 0 is [0,1]^3; cube 1 is [1,2] x [0,1]^2 numbered through each of the 24 rotations.
  std::vector<Point3> nodes;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 3; ++i) nodes.push_back({double(i), double(j), double(k)});
  const auto node_at = [&](Point3 p) {
    for (std::size_t n = 0; n < nodes.size(); ++n)
      if (nodes[n].x == p.x && nodes[n].y == p.y && nodes[n].z == p.z) return static_cast<index_t>(n);
    return index_t{-1};
  };
  const auto cube = [&](Point3 center, auto rotate) {
    std::vector<index_t> ids;
    for (int k = 0; k < 8; ++k) ids.push_back(node_at(center + 0.5 * rotate(reference_vertex(Shape::hexahedron, k))));
    return ids;
  };
  std::set<int> codes;
  int rotations = 0;
  std::array<int, 3> axes{0, 1, 2};
  do {
    for (int signs = 0; signs < 8; ++signs) {
      const auto rotate = [&](Point3 p) {
        const double in[3] = {p.x, p.y, p.z};
        double out[3];
        for (int d = 0; d < 3; ++d) out[d] = ((signs >> d) & 1 ? -1.0 : 1.0) * in[axes[d]];
        return Point3{out[0], out[1], out[2]};
      };
      const Point3 x = rotate({1, 0, 0}), y = rotate({0, 1, 0}), z = rotate({0, 0, 1});
      if (dot(x, cross(y, z)) < 0) continue;  // a mirror image, not a rotation
      ++rotations;
      Mesh mesh = mesh_of(3, nodes, ElementType::hexahedron8,
                          {cube({0.5, 0.5, 0.5}, [](Point3 p) { return p; }), cube({1.5, 0.5, 0.5}, rotate)});
      tag_all_boundary_faces(mesh, "wall");
      const Connectivity connectivity = build_connectivity(mesh);
      ASSERT_EQ(connectivity.n_interior_faces(), 1);
      EXPECT_EQ(connectivity.n_boundary_faces(), 10);
      expect_valid_connectivity(mesh, connectivity);
      codes.insert(connectivity.faces.back().orientation);
    }
  } while (std::next_permutation(axes.begin(), axes.end()));
  EXPECT_EQ(rotations, 24);
  EXPECT_EQ(codes, (std::set<int>{4, 5, 6, 7}));
}

TEST(Connectivity, BoundaryFacesComeFirstGroupedByTagThenInteriorInElementOrder) {
  Mesh mesh = rectangle_triangles(0, 1, 0, 1, 4, 3);
  // Facets listed in reverse: the face order must follow the tag ids, not the facet list.
  std::reverse(mesh.tagged_facets.begin(), mesh.tagged_facets.end());
  const Connectivity connectivity = build_connectivity(mesh);
  EXPECT_EQ(connectivity.tag_offsets, (std::vector<index_t>{0, 4, 7, 11, 14}));
  for (index_t f = 1; f < connectivity.n_faces(); ++f) {
    const Face &a = connectivity.faces[f - 1], &b = connectivity.faces[f];
    const int group_a = a.tag < 0 ? 4 : a.tag, group_b = b.tag < 0 ? 4 : b.tag;
    ASSERT_TRUE(group_a < group_b ||
                (group_a == group_b && std::pair{a.element_m, a.local_face_m} < std::pair{b.element_m, b.local_face_m}))
        << "faces " << f - 1 << " and " << f << " are out of order";
  }
  expect_valid_connectivity(mesh, connectivity);
}

TEST(Connectivity, FaceOfThreeElementsNamesThem) {
  Mesh mesh = mesh_of(2, {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {0.5, -1, 0}, {0.5, 2, 0}},
                      ElementType::triangle3, {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}});
  tag_all_boundary_faces(mesh, "wall");
  const std::string message = error_of(mesh);
  EXPECT_TRUE(contains(message, "1 faces are shared by more than two elements"));
  EXPECT_TRUE(contains(message, "face with nodes 0 (0, 0), 1 (1, 0) is shared by elements 0, 1, 2"));
}

TEST(Connectivity, UntaggedBoundaryFacesAreListedWithCoordinates) {
  Mesh mesh = rectangle_triangles(0, 1, 0, 1, 2, 2);
  const int top = mesh.find_tag("top");
  std::erase_if(mesh.tagged_facets, [&](const TaggedFacet& facet) { return facet.tag == top; });
  const std::string message = error_of(mesh);
  EXPECT_TRUE(contains(message, "2 boundary faces have no boundary tag"));
  EXPECT_TRUE(contains(message, "(0.5, 1)"));
  EXPECT_TRUE(contains(message, "(1, 1)"));
  EXPECT_FALSE(contains(message, "hanging"));
}

TEST(Connectivity, HangingNodeIsNamedWithItsElements) {
  // One tall quadrilateral beside two small ones: node 5 at (1, 1) hangs on element 0's edge.
  Mesh mesh = mesh_of(2, {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, 2, 0}, {1, 1, 0}, {2, 1, 0}, {2, 2, 0}},
                      ElementType::quadrilateral4, {{0, 1, 4, 3}, {1, 2, 6, 5}, {5, 6, 7, 4}});
  tag_all_boundary_faces(mesh, "wall");
  const std::string message = error_of(mesh);
  EXPECT_TRUE(contains(message, "1 non-conforming (hanging) faces: node 5 (1, 1) of element(s) 1, 2 lies inside "
                                "the edge from node 1 to node 4 of element 0"));
}

TEST(Connectivity, CollectingOverloadReportsEachKindOfProblem) {
  Mesh mesh = mesh_of(2, {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, 2, 0}, {1, 1, 0}, {2, 1, 0}, {2, 2, 0}},
                      ElementType::quadrilateral4, {{0, 1, 4, 3}, {1, 2, 6, 5}, {5, 6, 7, 4}});
  std::vector<std::string> errors;
  build_connectivity(mesh, errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_TRUE(contains(errors[0], "hanging"));
  EXPECT_TRUE(contains(errors[1], "10 boundary faces have no boundary tag"));
}

TEST(Connectivity, TaggedFacetsMustBeFacesButMayBeInterior) {
  Mesh mesh = rectangle_triangles(0, 1, 0, 1, 2, 2);
  TaggedFacet interface;
  interface.vertices = {1, 4, -1, -1};  // the vertical interior edge x = 0.5, y in [0, 0.5]
  interface.n_vertices = 2;
  interface.tag = mesh.tag_id("interface");
  mesh.tagged_facets.push_back(interface);
  const Connectivity connectivity = build_connectivity(mesh);
  EXPECT_EQ(connectivity.tag_offsets[5] - connectivity.tag_offsets[4], 0);

  TaggedFacet stray = interface;
  stray.vertices = {0, 8, -1, -1};  // corner to corner: no element has this edge
  mesh.tagged_facets.push_back(stray);
  EXPECT_TRUE(contains(error_of(mesh), "1 tagged facets are not a face of any element: face with nodes 0 (0, 0), "
                                        "8 (1, 1) tagged 'interface'"));
  mesh.tagged_facets.back().tag = 9;
  EXPECT_TRUE(contains(error_of(mesh), "has tag 9 but the mesh has 5 boundary names"));
}

TEST(Connectivity, ReverseCuthillMcKeeNarrowsTheBandOfAShuffledStrip) {
  const Mesh original = rectangle_triangles(0, 10, 0, 1, 40, 4);
  const Mesh scrambled = shuffled(original);
  Mesh reordered = scrambled;
  const std::vector<index_t> new_to_old = reorder_elements(reordered, ElementOrdering::reverse_cuthill_mckee);
  expect_same_elements_in_order(reordered, scrambled, new_to_old);
  const index_t before = bandwidth(original), after = bandwidth(reordered);
  EXPECT_LE(after, before);
  EXPECT_LT(after, bandwidth(scrambled));
  expect_valid_connectivity(reordered, build_connectivity(reordered));
}

TEST(Connectivity, HilbertOrderKeepsConsecutiveElementsClose) {
  const int n = 32;
  const Mesh scrambled = shuffled(rectangle_quadrilaterals(0, 1, 0, 1, n, n));
  Mesh reordered = scrambled;
  const std::vector<index_t> new_to_old = reorder_elements(reordered, ElementOrdering::hilbert);
  expect_same_elements_in_order(reordered, scrambled, new_to_old);
  // On a 2^k x 2^k grid of cells the Hilbert curve steps from each cell to a neighbour.
  const auto centroid = [&](index_t e) {
    Point3 sum{0, 0, 0};
    for (int k = 0; k < 4; ++k) sum = sum + flowdg::testing::element_vertex(reordered, e, k);
    return 0.25 * sum;
  };
  for (index_t e = 1; e < reordered.n_elements(); ++e)
    ASSERT_NEAR(flowdg::testing::length(centroid(e) - centroid(e - 1)), 1.0 / n, 1e-12) << "step " << e;
  expect_valid_connectivity(reordered, build_connectivity(reordered));

  Mesh box = box_tetrahedra(1, 1, 1, 3, 3, 3);
  const Mesh box_before = box;
  expect_same_elements_in_order(box, box_before, reorder_elements(box, ElementOrdering::hilbert));
}

TEST(Connectivity, NoReorderingIsTheIdentity) {
  Mesh mesh = quarter_annulus();
  const Mesh before = mesh;
  const std::vector<index_t> new_to_old = reorder_elements(mesh, ElementOrdering::none);
  expect_same_elements_in_order(mesh, before, new_to_old);
  EXPECT_EQ(mesh.element_nodes, before.element_nodes);
}
