#pragma once
// Checks shared by the mesh tests: what every valid mesh and its connectivity must satisfy,
// computed from vertex coordinates and the reference element conventions only.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg::testing {

/// For messages: EXPECT_TRUE(contains(message, "expected part")) shows the whole message on failure.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' is not in: " << text;
}

/// A mesh of one element type from explicit nodes and element node lists.
inline Mesh mesh_of(int dimension, std::vector<Point3> nodes, ElementType type,
                    const std::vector<std::vector<index_t>>& elements) {
  Mesh mesh;
  mesh.dimension = dimension;
  mesh.nodes = std::move(nodes);
  mesh.source = "test";
  for (const auto& element : elements) mesh.add_element(type, element.data());
  return mesh;
}

inline double length(Point3 a) { return std::sqrt(dot(a, a)); }

inline Point3 element_vertex(const Mesh& mesh, index_t e, int k) {
  return mesh.nodes[mesh.element_node_ids(e)[k]];
}

/// Outward normal times measure of local face f of element e, from its vertices in the reference
/// face order: the edge tangent turned clockwise (2D), the vector area of the face polygon (3D).
inline Point3 face_area_vector(const Mesh& mesh, index_t e, int f) {
  const Shape shape = mesh.element_shape(e);
  const auto v = [&](int k) { return element_vertex(mesh, e, face_vertex(shape, f, k)); };
  switch (face_shape(shape)) {
    case Shape::line: {
      const Point3 t = v(1) - v(0);
      return {t.y, -t.x, 0};
    }
    case Shape::triangle: return 0.5 * cross(v(1) - v(0), v(2) - v(0));
    default: return 0.5 * cross(v(2) - v(0), v(3) - v(1));
  }
}

/// Signed area (2D) or volume (3D) of a simplex from its vertices.
inline double simplex_measure(const Mesh& mesh, index_t e) {
  const auto v = [&](int k) { return element_vertex(mesh, e, k); };
  if (mesh.element_shape(e) == Shape::triangle) {
    const Point3 a = v(1) - v(0), b = v(2) - v(0);
    return 0.5 * (a.x * b.y - a.y * b.x);
  }
  return dot(v(1) - v(0), cross(v(2) - v(0), v(3) - v(0))) / 6.0;
}

inline double element_size(const Mesh& mesh, index_t e) {
  double largest = 0;
  const int n = n_vertices(mesh.element_shape(e));
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      largest = std::max(largest, length(element_vertex(mesh, e, a) - element_vertex(mesh, e, b)));
  return largest;
}

/// Number of distinct nodes used as element vertices.
inline index_t n_vertex_nodes(const Mesh& mesh) {
  std::set<index_t> used;
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    for (int k = 0; k < n_vertices(mesh.element_shape(e)); ++k) used.insert(mesh.element_node_ids(e)[k]);
  return static_cast<index_t>(used.size());
}

/// Tags every face that belongs to one element only (found by brute force, for small meshes).
inline void tag_all_boundary_faces(Mesh& mesh, const std::string& name) {
  const int tag = mesh.tag_id(name);
  std::map<std::vector<index_t>, std::pair<int, std::vector<index_t>>> faces;  // sorted -> (count, ordered)
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const Shape shape = mesh.element_shape(e);
    for (int f = 0; f < n_faces(shape); ++f) {
      std::vector<index_t> ids;
      for (int k = 0; k < n_face_vertices(shape); ++k) ids.push_back(mesh.element_node_ids(e)[face_vertex(shape, f, k)]);
      std::vector<index_t> key = ids;
      std::sort(key.begin(), key.end());
      auto& entry = faces[key];
      ++entry.first;
      entry.second = ids;
    }
  }
  for (const auto& [key, entry] : faces) {
    if (entry.first != 1) continue;
    TaggedFacet facet;
    std::copy(entry.second.begin(), entry.second.end(), facet.vertices.begin());
    facet.n_vertices = static_cast<int>(entry.second.size());
    facet.tag = tag;
    mesh.tagged_facets.push_back(facet);
  }
}

/// Every connectivity invariant: face order and grouping, element_faces both ways, plus side's
/// vertices permuted by the orientation code equal the minus side's, opposite normals on interior
/// faces, closed elements (sum of outward normal x measure = 0), boundary faces carry the tag of
/// their facet.
inline void expect_valid_connectivity(const Mesh& mesh, const Connectivity& connectivity) {
  const int n_tags = static_cast<int>(mesh.boundary_names.size());
  ASSERT_EQ(connectivity.tag_offsets.size(), static_cast<std::size_t>(n_tags + 1));
  EXPECT_EQ(connectivity.tag_offsets.front(), 0);
  std::set<std::pair<std::vector<index_t>, int>> facets;
  for (const TaggedFacet& facet : mesh.tagged_facets) {
    std::vector<index_t> key(facet.vertices.begin(), facet.vertices.begin() + facet.n_vertices);
    std::sort(key.begin(), key.end());
    facets.emplace(key, facet.tag);
  }
  for (index_t f = 0; f < connectivity.n_faces(); ++f) {
    const Face& face = connectivity.faces[f];
    const Shape shape = mesh.element_shape(face.element_m);
    const int n = n_face_vertices(shape);
    std::vector<index_t> minus(n);
    for (int k = 0; k < n; ++k)
      minus[k] = mesh.element_node_ids(face.element_m)[face_vertex(shape, face.local_face_m, k)];
    ASSERT_EQ(connectivity.element_faces[face.element_m * connectivity.max_faces + face.local_face_m], f);
    const Point3 normal_m = face_area_vector(mesh, face.element_m, face.local_face_m);
    if (f < connectivity.n_boundary_faces()) {
      ASSERT_EQ(face.element_p, -1) << "face " << f;
      ASSERT_GE(face.tag, 0);
      EXPECT_GE(f, connectivity.tag_offsets[face.tag]);
      EXPECT_LT(f, connectivity.tag_offsets[face.tag + 1]);
      std::sort(minus.begin(), minus.end());
      EXPECT_TRUE(facets.contains({minus, face.tag})) << "boundary face " << f << " has no facet with its tag";
      continue;
    }
    ASSERT_GE(face.element_p, 0) << "interior face " << f;
    EXPECT_EQ(face.tag, -1);
    EXPECT_LT(face.element_m, face.element_p);
    // Positively oriented 2D neighbours run along their shared edge in opposite directions.
    if (mesh.dimension == 2) {
      EXPECT_EQ(face.orientation, 1) << "face " << f;
    }
    ASSERT_EQ(connectivity.element_faces[face.element_p * connectivity.max_faces + face.local_face_p], f);
    const Shape shape_p = mesh.element_shape(face.element_p);
    for (int k = 0; k < n; ++k) {
      const int k_p = face_vertex_permutation(face_shape(shape), face.orientation, k);
      const Point3 a = mesh.nodes[minus[k]];
      const Point3 b = element_vertex(mesh, face.element_p, face_vertex(shape_p, face.local_face_p, k_p));
      ASSERT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z)
          << "face " << f << " vertex " << k << " orientation " << face.orientation;
    }
    const Point3 normal_p = face_area_vector(mesh, face.element_p, face.local_face_p);
    EXPECT_LE(length(normal_m + normal_p), 1e-14 * length(normal_m)) << "face " << f;
  }
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const Shape shape = mesh.element_shape(e);
    Point3 sum{0, 0, 0};
    for (int f = 0; f < n_faces(shape); ++f) {
      const index_t face = connectivity.element_faces[e * connectivity.max_faces + f];
      ASSERT_GE(face, 0) << "element " << e << " face " << f;
      const Face& shared = connectivity.faces[face];
      EXPECT_TRUE((shared.element_m == e && shared.local_face_m == f) ||
                  (shared.element_p == e && shared.local_face_p == f));
      sum = sum + face_area_vector(mesh, e, f);
    }
    const double size = element_size(mesh, e);
    EXPECT_LE(length(sum), 1e-14 * std::pow(size, dimension(shape) - 1)) << "element " << e << " is not closed";
  }
}

}  // namespace flowdg::testing
