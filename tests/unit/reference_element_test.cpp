// Reference elements: face maps, face vertex order (outward by the right-hand rule), closure.
#include "flowdg/element/reference_element.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "flowdg/element/quadrature.hpp"

using namespace flowdg;

namespace {

constexpr Shape shapes_with_faces[] = {Shape::triangle, Shape::quadrilateral, Shape::tetrahedron,
                                       Shape::hexahedron};

double length(Point3 v) { return std::sqrt(dot(v, v)); }

Point3 face_vertex_point(Shape shape, int face, int k) {
  return reference_vertex(shape, face_vertex(shape, face, k));
}

/// Outward normal by the vertex order (2D: edge tangent turned clockwise; triangle faces: right-hand
/// rule; quadrilateral faces: cross product of the diagonals), scaled by the face measure.
Point3 area_normal(Shape shape, int face) {
  Point3 v[4];
  for (int k = 0; k < n_face_vertices(shape); ++k) v[k] = face_vertex_point(shape, face, k);
  switch (face_shape(shape)) {
    case Shape::line:
      return {v[1].y - v[0].y, v[0].x - v[1].x, 0.0};
    case Shape::triangle:
      return 0.5 * cross(v[1] - v[0], v[2] - v[0]);
    default:
      return 0.5 * cross(v[2] - v[0], v[3] - v[1]);
  }
}

Point3 centroid(Shape shape) {
  Point3 sum;
  for (int v = 0; v < n_vertices(shape); ++v) sum = sum + reference_vertex(shape, v);
  return (1.0 / n_vertices(shape)) * sum;
}

bool inside_closed(Shape shape, Point3 x) {
  const double tolerance = 1e-14;
  switch (shape) {
    case Shape::triangle:
      return x.x >= -1 - tolerance && x.y >= -1 - tolerance && x.x + x.y <= tolerance;
    case Shape::tetrahedron:
      return x.x >= -1 - tolerance && x.y >= -1 - tolerance && x.z >= -1 - tolerance &&
             x.x + x.y + x.z <= -1 + tolerance;
    default:
      return std::abs(x.x) <= 1 + tolerance && std::abs(x.y) <= 1 + tolerance &&
             std::abs(x.z) <= 1 + tolerance;
  }
}

}  // namespace

TEST(ReferenceElement, FaceMapSendsFaceVerticesToTheListedElementVertices) {
  for (const Shape shape :
       {Shape::line, Shape::triangle, Shape::quadrilateral, Shape::tetrahedron, Shape::hexahedron})
    for (int face = 0; face < n_faces(shape); ++face)
      for (int k = 0; k < n_face_vertices(shape); ++k) {
        const Point3 mapped = face_to_element(shape, face, reference_vertex(face_shape(shape), k));
        const Point3 expected = face_vertex_point(shape, face, k);
        EXPECT_EQ(length(mapped - expected), 0.0) << shape_name(shape) << " face " << face << " vertex " << k;
      }
}

TEST(ReferenceElement, FaceVertexOrderGivesOutwardNormals) {
  for (const Shape shape : shapes_with_faces)
    for (int face = 0; face < n_faces(shape); ++face) {
      const Point3 normal = area_normal(shape, face);
      const Point3 away = face_vertex_point(shape, face, 0) - centroid(shape);
      EXPECT_GT(dot(normal, away), 0.0) << shape_name(shape) << " face " << face;
      // Every vertex of the face lies on its plane (quadrilateral faces are planar).
      for (int k = 0; k < n_face_vertices(shape); ++k)
        EXPECT_NEAR(dot(normal, face_vertex_point(shape, face, k) - face_vertex_point(shape, face, 0)), 0.0,
                    1e-15);
    }
}

TEST(ReferenceElement, AreaWeightedOutwardNormalsSumToZero) {
  for (const Shape shape : shapes_with_faces) {
    Point3 sum;
    for (int face = 0; face < n_faces(shape); ++face) sum = sum + area_normal(shape, face);
    EXPECT_EQ(length(sum), 0.0) << shape_name(shape);
  }
}

TEST(ReferenceElement, FaceMapSendsQuadraturePointsOntoTheFaceWithTheRightJacobian) {
  for (const Shape shape : shapes_with_faces) {
    const Shape face_kind = face_shape(shape);
    const QuadratureRule rule = quadrature_rule(face_kind, 6);
    for (int face = 0; face < n_faces(shape); ++face) {
      const Point3 normal = area_normal(shape, face);
      const double measure = length(normal);
      for (int q = 0; q < rule.size(); ++q) {
        const Point3 x = face_to_element(shape, face, rule.points[q]);
        // On the face's plane and in the closed element: on the face, since the element is convex.
        EXPECT_NEAR(dot(normal, x - face_vertex_point(shape, face, 0)), 0.0, 1e-15)
            << shape_name(shape) << " face " << face;
        EXPECT_TRUE(inside_closed(shape, x)) << shape_name(shape) << " face " << face << " point " << q;
      }
      // The face maps are affine (the bilinear maps of these square faces are too), so their
      // Jacobian is constant and must be the face measure over the reference face measure.
      const double jacobian = measure / reference_measure(face_kind);
      const Point3 origin = face_to_element(shape, face, {0, 0, 0});
      const Point3 along_s = face_to_element(shape, face, {1, 0, 0}) - origin;
      const Point3 along_t = face_to_element(shape, face, {0, 1, 0}) - origin;
      const double map_jacobian =
          dimension(face_kind) == 1 ? length(along_s) : length(cross(along_s, along_t));
      EXPECT_NEAR(map_jacobian, jacobian, 1e-15) << shape_name(shape) << " face " << face;
    }
  }
}
