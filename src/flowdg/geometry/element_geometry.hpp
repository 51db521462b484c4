#pragma once
// The geometry of mesh elements as the DG core needs it, from each element's Lagrange nodes
// (isoparametric: the map x(r) = sum_n x_n L_n(r) of the element type's shape functions):
// positions, Jacobians and the scaled face normals at sets of reference points. Host code, run
// once at set-up; the kernels get the results as arrays (dg/operator).
//
// Conventions: J[d][r] = dx_d / dr_r; the scaled normal of a face at a face point is
// N = n dS / dxi, with dxi the measure of the face's own reference element, so that
// sum_q w_q f(x_q) |N_q| integrates f over the physical face. N is computed from the face's tangent
// vectors (2D: the tangent turned clockwise; 3D: the cross product of the two tangents), the same
// polynomial the volume metric's cofactors give, which is what keeps a constant state constant on
// curved elements (the discrete metric identities hold when both integrals are exact).
#include <array>
#include <vector>

#include "flowdg/core/point.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg::geometry {

struct Jacobian {
  Point3 x;                            ///< the mapped point
  double m[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};  ///< m[d][r] = dx_d / dr_r (unused rows/columns 0)
  double det = 0;                      ///< determinant of the dim x dim block
  /// inverse[r][d] = dr_r / dx_d.
  std::array<std::array<double, 3>, 3> inverse(int dim) const;
};

/// The maps of a mesh's elements at one set of reference points (shape-function tables cached per
/// element type present in the mesh).
class ElementMaps {
 public:
  ElementMaps(const Mesh& mesh, std::vector<Point3> reference_points);
  int n_points() const { return static_cast<int>(points_.size()); }
  const std::vector<Point3>& points() const { return points_; }
  /// x and J of element e at reference point k.
  Jacobian at(index_t element, int point) const;

 private:
  const Mesh* mesh_;
  int dim_;
  std::vector<Point3> points_;
  struct Table {
    int n_nodes = 0;
    std::vector<double> values;      ///< [k * n_nodes + n]
    std::vector<Point3> gradients;   ///< [k * n_nodes + n]
  };
  std::vector<Table> tables_;  ///< by ElementType value (empty for types not in the mesh)
};

/// The scaled outward normal N = n dS/dxi (see above) of local face `face` of an element of shape
/// `shape` at face reference point xi, from the element's Jacobian J there.
Point3 scaled_face_normal(Shape shape, int face, Point3 xi, const Jacobian& jacobian);

/// Whether an element's Jacobian is the same at every one of the given Jacobians (relative 1e-12
/// of its size): then the element is affine.
bool constant_jacobian(const std::vector<Jacobian>& jacobians, int dim);

}  // namespace flowdg::geometry
