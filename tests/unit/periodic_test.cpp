// Periodic boxes (mesh/periodic.hpp): make_periodic joins the triangle faces of the tetrahedral
// box and the quadrilateral faces of the hexahedral box in x, y and z at once, straight and
// elevated to order 2 (faces are matched by their vertices, the edge and face nodes play no part),
// with orientation codes that map the plus side's vertices onto the minus side's.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/elevate.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "mesh_invariants.hpp"

using namespace flowdg;
using flowdg::testing::element_vertex;
using flowdg::testing::length;

namespace {

constexpr double lx = 1.0, ly = 2.0, lz = 0.5;

/// Outward normal times area of a face: half the sum of cross products around its vertex polygon.
Point3 face_area_vector(const Mesh& mesh, index_t e, int f) {
  const Shape shape = mesh.element_shape(e);
  const int n = n_face_vertices(shape);
  Point3 sum{0, 0, 0};
  for (int k = 0; k < n; ++k)
    sum = sum + cross(element_vertex(mesh, e, face_vertex(shape, f, k)), element_vertex(mesh, e, face_vertex(shape, f, (k + 1) % n)));
  return 0.5 * sum;
}

void join_all_three_directions(const Mesh& mesh, Connectivity& connectivity) {
  make_periodic(mesh, connectivity, mesh.require_tag("xmin"), mesh.require_tag("xmax"), {lx, 0, 0});
  make_periodic(mesh, connectivity, mesh.require_tag("ymin"), mesh.require_tag("ymax"), {0, ly, 0});
  make_periodic(mesh, connectivity, mesh.require_tag("zmin"), mesh.require_tag("zmax"), {0, 0, lz});
}

}  // namespace

TEST(Periodic, BoxesJoinInEveryDirectionWithConsistentOrientations) {
  for (const bool hexahedra : {false, true}) {
    const Mesh straight = hexahedra ? box_hexahedra(lx, ly, lz, 3, 2, 2) : box_tetrahedra(lx, ly, lz, 3, 2, 2);
    for (const int order : {1, 2}) {
      SCOPED_TRACE(std::string(hexahedra ? "hexahedra" : "tetrahedra") + ", order " + std::to_string(order));
      const Mesh mesh = elevate_order(straight, order);
      Connectivity connectivity = build_connectivity(mesh);
      const index_t n_straight_faces = connectivity.n_faces(), n_boundary = connectivity.n_boundary_faces();
      join_all_three_directions(mesh, connectivity);
      // Every face is interior now: each pair of boundary faces became one face.
      EXPECT_EQ(connectivity.n_boundary_faces(), 0);
      EXPECT_EQ(connectivity.n_faces(), n_straight_faces - n_boundary / 2);
      EXPECT_EQ(connectivity.tag_offsets.size(), mesh.boundary_names.size() + 1);
      const int periodic = static_cast<int>(connectivity.n_faces() - (n_straight_faces - n_boundary));
      int joined = 0;
      for (index_t f = 0; f < connectivity.n_faces(); ++f) {
        const Face& face = connectivity.faces[f];
        ASSERT_GE(face.element_p, 0) << "face " << f;
        ASSERT_EQ(face.tag, -1);
        ASSERT_EQ(connectivity.element_faces[face.element_m * connectivity.max_faces + face.local_face_m], f);
        ASSERT_EQ(connectivity.element_faces[face.element_p * connectivity.max_faces + face.local_face_p], f);
        // Vertex k of the minus side is vertex perm(orientation, k) of the plus side, up to one
        // translation by a box period (none for faces inside the box).
        const Shape shape = mesh.element_shape(face.element_m);
        Point3 shift{0, 0, 0};
        for (int k = 0; k < n_face_vertices(shape); ++k) {
          const int k_p = face_vertex_permutation(face_shape(shape), face.orientation, k);
          const Point3 minus = element_vertex(mesh, face.element_m, face_vertex(shape, face.local_face_m, k));
          const Point3 plus = element_vertex(mesh, face.element_p, face_vertex(shape, face.local_face_p, k_p));
          if (k == 0) shift = plus - minus;
          ASSERT_LE(length(plus - minus - shift), 1e-15) << "face " << f << " vertex " << k << " orientation " << face.orientation;
        }
        const double periods[3] = {lx, ly, lz}, components[3] = {shift.x, shift.y, shift.z};
        int moved = 0;
        for (int d = 0; d < 3; ++d) {
          const bool period = std::abs(std::abs(components[d]) - periods[d]) < 1e-15;
          ASSERT_TRUE(components[d] == 0 || period) << "face " << f << " is shifted by " << components[d];
          moved += period ? 1 : 0;
        }
        ASSERT_LE(moved, 1);
        joined += moved;
        // Opposite outward normals of equal areas.
        const Point3 normal_m = face_area_vector(mesh, face.element_m, face.local_face_m);
        const Point3 normal_p = face_area_vector(mesh, face.element_p, face.local_face_p);
        EXPECT_LE(length(normal_m + normal_p), 1e-15 * length(normal_m)) << "face " << f;
      }
      EXPECT_EQ(joined, periodic);
      // Each element is closed: its faces' outward normals times areas sum to zero.
      for (index_t e = 0; e < mesh.n_elements(); ++e) {
        const Shape shape = mesh.element_shape(e);
        Point3 sum{0, 0, 0};
        for (int f = 0; f < n_faces(shape); ++f) {
          ASSERT_GE(connectivity.element_faces[e * connectivity.max_faces + f], 0);
          sum = sum + face_area_vector(mesh, e, f);
        }
        EXPECT_LE(length(sum), 1e-15) << "element " << e;
      }
    }
  }
}

TEST(Periodic, AMismatchedTranslationNamesTheUnmatchedFace) {
  const Mesh mesh = box_hexahedra(lx, ly, lz, 2, 2, 2);
  Connectivity connectivity = build_connectivity(mesh);
  try {
    make_periodic(mesh, connectivity, mesh.require_tag("xmin"), mesh.require_tag("xmax"), {lx, 0.25, 0});
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_TRUE(flowdg::testing::contains(error.what(), "'xmin' face at (0, 0.5, 0.125) has no partner on 'xmax' translated by (1, 0.25, 0)"));
  }
}
