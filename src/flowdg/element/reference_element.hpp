#pragma once
// Reference elements: vertices, faces with their local vertex order, and the maps from a face's
// reference coordinates to the element's. Conventions (vertex order as Gmsh's for linear cells):
//   line           [-1, 1]
//   triangle       (-1,-1) (1,-1) (-1,1);            faces (edges) 0:(0,1) 1:(1,2) 2:(2,0)
//   quadrilateral  [-1,1]^2, vertices counter-clockwise from (-1,-1); faces 0:(0,1) 1:(1,2) 2:(2,3) 3:(3,0)
//   tetrahedron    (-1,-1,-1) (1,-1,-1) (-1,1,-1) (-1,-1,1);
//                  faces 0:(0,2,1) 1:(0,1,3) 2:(0,3,2) 3:(1,2,3)
//   hexahedron     [-1,1]^3, Gmsh vertex order; faces 0:(0,3,2,1) 1:(0,1,5,4) 2:(1,2,6,5)
//                  3:(2,3,7,6) 4:(3,0,4,7) 5:(4,5,6,7)
// Every face's vertex order is counter-clockwise seen from outside (right-hand rule gives the
// outward normal); in 2D the outward normal of edge (a,b) is the tangent b-a turned clockwise.
// A face point is given in the face's own reference element (a line, triangle or quadrilateral as
// above) and mapped by the linear (triangle, line) or bilinear (quadrilateral) vertex interpolant.
#include <string_view>

#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"

namespace flowdg {

enum class Shape : int { point = 0, line, triangle, quadrilateral, tetrahedron, hexahedron };

FLOWDG_HD constexpr int dimension(Shape shape) {
  switch (shape) {
    case Shape::point: return 0;
    case Shape::line: return 1;
    case Shape::triangle:
    case Shape::quadrilateral: return 2;
    default: return 3;
  }
}

FLOWDG_HD constexpr int n_vertices(Shape shape) {
  constexpr int counts[] = {1, 2, 3, 4, 4, 8};
  return counts[static_cast<int>(shape)];
}

FLOWDG_HD constexpr int n_faces(Shape shape) {
  constexpr int counts[] = {0, 2, 3, 4, 4, 6};
  return counts[static_cast<int>(shape)];
}

/// Shape of a face (all faces of the supported elements have the same shape).
FLOWDG_HD constexpr Shape face_shape(Shape shape) {
  switch (shape) {
    case Shape::line: return Shape::point;
    case Shape::triangle:
    case Shape::quadrilateral: return Shape::line;
    case Shape::tetrahedron: return Shape::triangle;
    case Shape::hexahedron: return Shape::quadrilateral;
    default: return Shape::point;
  }
}

FLOWDG_HD constexpr int n_face_vertices(Shape shape) { return n_vertices(face_shape(shape)); }

/// Volume (area, length) of the reference element.
FLOWDG_HD constexpr double reference_measure(Shape shape) {
  constexpr double measures[] = {1.0, 2.0, 2.0, 4.0, 4.0 / 3.0, 8.0};
  return measures[static_cast<int>(shape)];
}

FLOWDG_HD constexpr Point3 reference_vertex(Shape shape, int vertex) {
  switch (shape) {
    case Shape::line: return {vertex == 0 ? -1.0 : 1.0, 0, 0};
    case Shape::triangle: {
      constexpr double xy[3][2] = {{-1, -1}, {1, -1}, {-1, 1}};
      return {xy[vertex][0], xy[vertex][1], 0};
    }
    case Shape::quadrilateral: {
      constexpr double xy[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
      return {xy[vertex][0], xy[vertex][1], 0};
    }
    case Shape::tetrahedron: {
      constexpr double xyz[4][3] = {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
      return {xyz[vertex][0], xyz[vertex][1], xyz[vertex][2]};
    }
    case Shape::hexahedron: {
      constexpr double xyz[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                    {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
      return {xyz[vertex][0], xyz[vertex][1], xyz[vertex][2]};
    }
    default: return {0, 0, 0};
  }
}

/// Local vertex index of the k-th vertex of face `face`.
FLOWDG_HD constexpr int face_vertex(Shape shape, int face, int k) {
  switch (shape) {
    case Shape::line: return face;
    case Shape::triangle: return (face + k) % 3;
    case Shape::quadrilateral: return (face + k) % 4;
    case Shape::tetrahedron: {
      constexpr int v[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
      return v[face][k];
    }
    case Shape::hexahedron: {
      constexpr int v[6][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {1, 2, 6, 5},
                               {2, 3, 7, 6}, {3, 0, 4, 7}, {4, 5, 6, 7}};
      return v[face][k];
    }
    default: return 0;
  }
}

/// Weights of the face's vertices at a point of the face's reference element.
FLOWDG_HD constexpr void face_vertex_weights(Shape face, Point3 xi, double* weights) {
  switch (face) {
    case Shape::point: weights[0] = 1.0; break;
    case Shape::line:
      weights[0] = 0.5 * (1.0 - xi.x);
      weights[1] = 0.5 * (1.0 + xi.x);
      break;
    case Shape::triangle:
      weights[0] = -0.5 * (xi.x + xi.y);
      weights[1] = 0.5 * (1.0 + xi.x);
      weights[2] = 0.5 * (1.0 + xi.y);
      break;
    case Shape::quadrilateral:
      weights[0] = 0.25 * (1.0 - xi.x) * (1.0 - xi.y);
      weights[1] = 0.25 * (1.0 + xi.x) * (1.0 - xi.y);
      weights[2] = 0.25 * (1.0 + xi.x) * (1.0 + xi.y);
      weights[3] = 0.25 * (1.0 - xi.x) * (1.0 + xi.y);
      break;
    default: break;
  }
}

/// Weights of an element's vertices at a point xi of its reference element: the linear
/// (barycentric) vertex functions on simplices, the multilinear ones on quadrilaterals and
/// hexahedra; 1 at their own vertex, 0 at the others, summing to 1.
FLOWDG_HD constexpr void element_vertex_weights(Shape shape, Point3 xi, double* weights) {
  switch (shape) {
    case Shape::line:
    case Shape::triangle:
    case Shape::quadrilateral: face_vertex_weights(shape, xi, weights); break;
    case Shape::tetrahedron:
      weights[1] = 0.5 * (1.0 + xi.x);
      weights[2] = 0.5 * (1.0 + xi.y);
      weights[3] = 0.5 * (1.0 + xi.z);
      weights[0] = 1.0 - weights[1] - weights[2] - weights[3];
      break;
    case Shape::hexahedron:
      for (int v = 0; v < 8; ++v) {
        const Point3 corner = reference_vertex(shape, v);
        weights[v] = 0.125 * (1.0 + corner.x * xi.x) * (1.0 + corner.y * xi.y) * (1.0 + corner.z * xi.z);
      }
      break;
    default: weights[0] = 1.0; break;
  }
}

/// Maps a point of face `face`'s reference element into the element's reference coordinates.
FLOWDG_HD constexpr Point3 face_to_element(Shape shape, int face, Point3 face_point) {
  double weights[4] = {0, 0, 0, 0};
  face_vertex_weights(face_shape(shape), face_point, weights);
  Point3 result{0, 0, 0};
  for (int k = 0; k < n_face_vertices(shape); ++k) {
    const Point3 v = reference_vertex(shape, face_vertex(shape, face, k));
    result.x += weights[k] * v.x;
    result.y += weights[k] * v.y;
    result.z += weights[k] * v.z;
  }
  return result;
}

constexpr std::string_view shape_name(Shape shape) {
  constexpr std::string_view names[] = {"point", "line", "triangle", "quadrilateral", "tetrahedron",
                                        "hexahedron"};
  return names[static_cast<int>(shape)];
}

}  // namespace flowdg
