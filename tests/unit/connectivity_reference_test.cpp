// The parallel face matching of build_connectivity (buckets by smallest vertex, numbering by
// prefix counts) against a deliberately simple implementation written here from the documented
// rules: every array must be identical, for any number of threads, on scrambled meshes (shuffled
// elements, renumbered nodes, rotated vertex lists, mixed element types, 2D and 3D) and after
// make_periodic. The validation's duplicate check and its reuse of the connectivity are checked
// the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "flowdg/mesh/validate.hpp"
#include "mesh_invariants.hpp"

using namespace flowdg;

namespace {

std::vector<index_t> face_ids(const Mesh& mesh, index_t e, int f) {
  const Shape shape = mesh.element_shape(e);
  std::vector<index_t> ids;
  for (int k = 0; k < n_face_vertices(shape); ++k) ids.push_back(mesh.element_node_ids(e)[face_vertex(shape, f, k)]);
  return ids;
}

// The rules of connectivity.hpp, directly: a std::map from vertex set to sides; the minus side is
// the side with the smaller (element, local face); boundary faces by tag, then interior faces,
// each group ordered by (element_m, local_face_m).
Connectivity simple_connectivity(const Mesh& mesh) {
  std::map<std::vector<index_t>, std::vector<std::pair<index_t, int>>> sides;
  int max_faces = 0;
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const Shape shape = mesh.element_shape(e);
    max_faces = std::max(max_faces, n_faces(shape));
    for (int f = 0; f < n_faces(shape); ++f) {
      std::vector<index_t> key = face_ids(mesh, e, f);
      std::sort(key.begin(), key.end());
      sides[key].emplace_back(e, f);
    }
  }
  std::map<std::vector<index_t>, int> tags;
  for (const TaggedFacet& facet : mesh.tagged_facets) {
    std::vector<index_t> key(facet.vertices.begin(), facet.vertices.begin() + facet.n_vertices);
    std::sort(key.begin(), key.end());
    tags[key] = facet.tag;
  }
  const int n_tags = static_cast<int>(mesh.boundary_names.size());
  std::vector<std::vector<Face>> groups(n_tags + 1);
  for (auto& [key, list] : sides) {
    std::sort(list.begin(), list.end());
    Face face;
    face.element_m = list[0].first;
    face.local_face_m = list[0].second;
    if (list.size() == 1) {
      face.tag = tags.at(key);
      groups[face.tag].push_back(face);
      continue;
    }
    EXPECT_EQ(list.size(), 2u);
    face.element_p = list[1].first;
    face.local_face_p = list[1].second;
    const Shape shape = face_shape(mesh.element_shape(face.element_m));
    const std::vector<index_t> minus = face_ids(mesh, face.element_m, face.local_face_m);
    const std::vector<index_t> plus = face_ids(mesh, face.element_p, face.local_face_p);
    const int n_codes = shape == Shape::line ? 2 : 2 * static_cast<int>(minus.size());
    face.orientation = -1;
    for (int orientation = 0; orientation < n_codes && face.orientation < 0; ++orientation) {
      bool same = true;
      for (std::size_t k = 0; k < minus.size() && same; ++k)
        same = minus[k] == plus[face_vertex_permutation(shape, orientation, static_cast<int>(k))];
      if (same) face.orientation = orientation;
    }
    EXPECT_GE(face.orientation, 0);
    groups[n_tags].push_back(face);
  }
  Connectivity connectivity;
  connectivity.max_faces = max_faces;
  connectivity.tag_offsets.assign(n_tags + 1, 0);
  for (int g = 0; g <= n_tags; ++g) {  // g = n_tags: the interior faces
    std::sort(groups[g].begin(), groups[g].end(), [](const Face& a, const Face& b) {
      return std::pair{a.element_m, a.local_face_m} < std::pair{b.element_m, b.local_face_m};
    });
    connectivity.tag_offsets[g] = static_cast<index_t>(connectivity.faces.size());
    connectivity.faces.insert(connectivity.faces.end(), groups[g].begin(), groups[g].end());
  }
  connectivity.element_faces.assign(static_cast<std::size_t>(mesh.n_elements()) * max_faces, -1);
  for (index_t f = 0; f < connectivity.n_faces(); ++f) {
    const Face& face = connectivity.faces[f];
    connectivity.element_faces[face.element_m * max_faces + face.local_face_m] = f;
    if (face.element_p >= 0) connectivity.element_faces[face.element_p * max_faces + face.local_face_p] = f;
  }
  return connectivity;
}

void expect_identical(const Connectivity& actual, const Connectivity& expected, const std::string& what) {
  ASSERT_EQ(actual.max_faces, expected.max_faces) << what;
  ASSERT_EQ(actual.tag_offsets, expected.tag_offsets) << what;
  ASSERT_EQ(actual.n_faces(), expected.n_faces()) << what;
  for (index_t f = 0; f < actual.n_faces(); ++f) {
    const Face &a = actual.faces[f], &b = expected.faces[f];
    ASSERT_TRUE(a.element_m == b.element_m && a.element_p == b.element_p && a.local_face_m == b.local_face_m &&
                a.local_face_p == b.local_face_p && a.tag == b.tag && a.orientation == b.orientation)
        << what << ": face " << f << " is (" << a.element_m << ", " << a.local_face_m << ") - (" << a.element_p << ", "
        << a.local_face_p << ") tag " << a.tag << " orientation " << a.orientation << ", expected (" << b.element_m
        << ", " << b.local_face_m << ") - (" << b.element_p << ", " << b.local_face_p << ") tag " << b.tag
        << " orientation " << b.orientation;
  }
  ASSERT_EQ(actual.element_faces, expected.element_faces) << what;
}

// Shuffled elements, randomly renumbered nodes (so that the smallest-vertex buckets mix elements
// from all over the mesh) and each element's vertex list rotated by a random amount for the
// shapes where a rotation keeps the orientation (triangles, quadrilaterals).
Mesh scrambled(const Mesh& mesh, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<index_t> new_id(mesh.n_nodes());
  std::iota(new_id.begin(), new_id.end(), 0);
  std::shuffle(new_id.begin(), new_id.end(), random);
  Mesh result = mesh;
  for (index_t n = 0; n < mesh.n_nodes(); ++n) result.nodes[new_id[n]] = mesh.nodes[n];
  for (TaggedFacet& facet : result.tagged_facets)
    for (int k = 0; k < facet.n_vertices; ++k) facet.vertices[k] = new_id[facet.vertices[k]];
  std::vector<index_t> order(mesh.n_elements());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), random);
  result.element_types.clear();
  result.element_offsets = {0};
  result.element_nodes.clear();
  for (const index_t old : order) {
    std::vector<index_t> nodes(mesh.element_node_ids(old), mesh.element_node_ids(old) + mesh.element_n_nodes(old));
    for (index_t& id : nodes) id = new_id[id];
    const ElementType type = mesh.element_types[old];
    if (type == ElementType::triangle3 || type == ElementType::quadrilateral4)
      std::rotate(nodes.begin(), nodes.begin() + random() % nodes.size(), nodes.end());
    result.add_element(type, nodes.data());
  }
  return result;
}

// Quadrilaterals, some of them split into two triangles: max_faces = 4 with absent fourth faces.
Mesh mixed_quadrilaterals_and_triangles() {
  const Mesh quads = rectangle_quadrilaterals(0, 2, 0, 1, 14, 9, 0.2, 5);
  Mesh mesh = quads;
  mesh.element_types.clear();
  mesh.element_offsets = {0};
  mesh.element_nodes.clear();
  for (index_t e = 0; e < quads.n_elements(); ++e) {
    const index_t* v = quads.element_node_ids(e);
    if (e % 3 == 1) {
      const index_t first[3] = {v[0], v[1], v[2]}, second[3] = {v[0], v[2], v[3]};
      mesh.add_element(ElementType::triangle3, first);
      mesh.add_element(ElementType::triangle3, second);
    } else {
      mesh.add_element(ElementType::quadrilateral4, v);
    }
  }
  return mesh;
}

int thread_count() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void set_threads([[maybe_unused]] int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
}

// build_connectivity with 1, 2, 3 and 7 threads equals the simple version.
void expect_matches_simple(const Mesh& mesh, const std::string& what) {
  const Connectivity expected = simple_connectivity(mesh);
  const int threads = thread_count();
  for (const int n : {1, 2, 3, 7}) {
    set_threads(n);
    const Connectivity actual = build_connectivity(mesh);
    expect_identical(actual, expected, what + cat(", ", n, " threads"));
  }
  set_threads(threads);
  flowdg::testing::expect_valid_connectivity(mesh, expected);
}

}  // namespace

TEST(ConnectivityReference, ParallelMatchingEqualsASimpleImplementationOnScrambledMeshes) {
  const std::vector<std::pair<std::string, Mesh>> meshes = {
      {"perturbed triangles", rectangle_triangles(0, 3, 0, 1, 37, 13, TriangleLayout::perturbed, 0.25, 11)},
      {"quarter annulus", quarter_annulus(1.0, 1.384, 15, 54)},
      {"quadrilaterals and triangles", mixed_quadrilaterals_and_triangles()},
      {"tetrahedra", box_tetrahedra(1, 2, 1, 4, 5, 3)},
      {"hexahedra", read_gmsh(std::string(FLOWDG_TEST_DATA_DIR) + "/cube_hex_msh41.msh")},
      {"Gmsh mixed", read_gmsh(std::string(FLOWDG_TEST_DATA_DIR) + "/mixed_msh41.msh")},
  };
  for (const auto& [name, mesh] : meshes) {
    expect_matches_simple(mesh, name);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) expect_matches_simple(scrambled(mesh, seed), cat(name, " scrambled ", seed));
  }
}

TEST(ConnectivityReference, PeriodicFacesJoinTheMatchingPartnerAfterTheInteriorFaces) {
  // make_periodic after the parallel matching, against the documented order: the other tags'
  // boundary faces, the interior faces, then one face per 'left' face (in its order) whose plus
  // side is the 'right' face at the same height.
  const Mesh mesh = scrambled(rectangle_triangles(0, 2, 0, 1, 16, 11, TriangleLayout::perturbed, 0.2, 3), 9);
  const int left = mesh.find_tag("left"), right = mesh.find_tag("right");
  const Connectivity plain = simple_connectivity(mesh);
  const auto middle_y = [&](const Face& face) {
    const std::vector<index_t> ids = face_ids(mesh, face.element_m, face.local_face_m);
    return 0.5 * (mesh.nodes[ids[0]].y + mesh.nodes[ids[1]].y);
  };
  Connectivity expected;
  expected.max_faces = plain.max_faces;
  expected.tag_offsets.push_back(0);
  for (int tag = 0; tag < static_cast<int>(mesh.boundary_names.size()); ++tag) {
    if (tag != left && tag != right)
      for (index_t f = plain.tag_offsets[tag]; f < plain.tag_offsets[tag + 1]; ++f) expected.faces.push_back(plain.faces[f]);
    expected.tag_offsets.push_back(static_cast<index_t>(expected.faces.size()));
  }
  expected.faces.insert(expected.faces.end(), plain.faces.begin() + plain.n_boundary_faces(), plain.faces.end());
  for (index_t f = plain.tag_offsets[left]; f < plain.tag_offsets[left + 1]; ++f) {
    Face joined = plain.faces[f];
    for (index_t g = plain.tag_offsets[right]; g < plain.tag_offsets[right + 1]; ++g)
      if (std::abs(middle_y(plain.faces[g]) - middle_y(joined)) < 1e-12) {
        joined.element_p = plain.faces[g].element_m;
        joined.local_face_p = plain.faces[g].local_face_m;
      }
    ASSERT_GE(joined.element_p, 0) << "left face " << f << " has no partner";
    joined.tag = -1;
    joined.orientation = 1;
    expected.faces.push_back(joined);
  }
  expected.element_faces.assign(plain.element_faces.size(), -1);
  for (index_t f = 0; f < expected.n_faces(); ++f) {
    const Face& face = expected.faces[f];
    expected.element_faces[face.element_m * expected.max_faces + face.local_face_m] = f;
    if (face.element_p >= 0) expected.element_faces[face.element_p * expected.max_faces + face.local_face_p] = f;
  }

  const int threads = thread_count();
  for (const int n : {1, 3}) {
    set_threads(n);
    Connectivity actual = build_connectivity(mesh);
    make_periodic(mesh, actual, left, right, {2, 0, 0});
    expect_identical(actual, expected, cat("periodic, ", n, " threads"));
  }
  set_threads(threads);
}

TEST(ConnectivityReference, ValidationKeepsTheConnectivityItBuilt) {
  Mesh mesh = scrambled(rectangle_triangles(0, 1, 0, 1, 12, 9, TriangleLayout::perturbed, 0.2, 4), 2);
  // Two clockwise elements, which validation reorients before it matches the faces.
  for (const index_t e : {index_t{5}, index_t{40}}) std::swap(mesh.element_nodes[3 * e + 1], mesh.element_nodes[3 * e + 2]);
  Connectivity kept;
  const MeshReport report = validate_mesh(mesh, &kept);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report.notes.size(), 1u);
  expect_identical(kept, simple_connectivity(mesh), "kept by validation");
  expect_identical(kept, build_connectivity(mesh), "built again");

  // An invalid mesh leaves the connectivity alone.
  Mesh broken = mesh;
  broken.tagged_facets.pop_back();
  Connectivity untouched;
  EXPECT_FALSE(validate_mesh(broken, &untouched).ok());
  EXPECT_EQ(untouched.n_faces(), 0);
}

TEST(ConnectivityReference, DuplicateElementsAreFoundWhereverTheyAreNumbered) {
  // The duplicate check groups elements by their smallest vertex; a copy of an element with its
  // vertices in another order, far away in the element list, must still be found, with the same
  // message for any number of threads.
  Mesh mesh = scrambled(rectangle_triangles(0, 1, 0, 1, 10, 10, TriangleLayout::perturbed, 0.2, 6), 4);
  const index_t original = 17;
  const index_t* v = mesh.element_node_ids(original);
  const index_t copy[3] = {v[2], v[0], v[1]};
  mesh.add_element(ElementType::triangle3, copy);
  const int threads = thread_count();
  std::string first_message;
  for (const int n : {1, 2, 5}) {
    set_threads(n);
    Mesh checked = mesh;
    const MeshReport report = validate_mesh(checked);
    ASSERT_EQ(report.errors.size(), 1u);
    EXPECT_TRUE(flowdg::testing::contains(report.errors[0], cat("1 duplicate elements: elements ", original, " and ",
                                                                mesh.n_elements() - 1, " have the same vertices")));
    if (first_message.empty()) first_message = report.errors[0];
    EXPECT_EQ(report.errors[0], first_message);
  }
  set_threads(threads);
}
