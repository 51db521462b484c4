#include "flowdg/geometry/element_geometry.hpp"

#include <algorithm>
#include <cmath>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/lagrange.hpp"

namespace flowdg::geometry {


std::array<std::array<double, 3>, 3> Jacobian::inverse(int dim) const {
  std::array<std::array<double, 3>, 3> inv{};
  if (dim == 1) {
    inv[0][0] = 1.0 / m[0][0];
  } else if (dim == 2) {
    inv[0][0] = m[1][1] / det;
    inv[0][1] = -m[0][1] / det;
    inv[1][0] = -m[1][0] / det;
    inv[1][1] = m[0][0] / det;
  } else {
    // inverse = cofactor^T / det: inv[r][d] = cof[d][r] / det.
    for (int d = 0; d < 3; ++d)
      for (int r = 0; r < 3; ++r) {
        const int d1 = (d + 1) % 3, d2 = (d + 2) % 3, r1 = (r + 1) % 3, r2 = (r + 2) % 3;
        inv[r][d] = (m[d1][r1] * m[d2][r2] - m[d1][r2] * m[d2][r1]) / det;
      }
  }
  return inv;
}

ElementMaps::ElementMaps(const Mesh& mesh, std::vector<Point3> reference_points)
    : mesh_(&mesh), dim_(mesh.dimension), points_(std::move(reference_points)) {
  std::vector<bool> present;
  for (ElementType type : mesh.element_types) {
    const auto t = static_cast<std::size_t>(type);
    if (present.size() <= t) present.resize(t + 1, false);
    present[t] = true;
  }
  tables_.resize(present.size());
  for (std::size_t t = 0; t < present.size(); ++t) {
    if (!present[t]) continue;
    const auto type = static_cast<ElementType>(t);
    Table& table = tables_[t];
    table.n_nodes = n_nodes(type);
    table.values.resize(points_.size() * table.n_nodes);
    table.gradients.resize(points_.size() * table.n_nodes);
    for (std::size_t k = 0; k < points_.size(); ++k)
      shape_functions(type, points_[k], &table.values[k * table.n_nodes], &table.gradients[k * table.n_nodes]);
  }
}

Jacobian ElementMaps::at(index_t element, int point) const {
  const Table& table = tables_[static_cast<std::size_t>(mesh_->element_types[element])];
  const index_t* nodes = mesh_->element_node_ids(element);
  Jacobian jacobian;
  for (int n = 0; n < table.n_nodes; ++n) {
    const Point3 x = mesh_->nodes[nodes[n]];
    const double value = table.values[point * table.n_nodes + n];
    const Point3 g = table.gradients[point * table.n_nodes + n];
    jacobian.x = jacobian.x + value * x;
    const double xs[3] = {x.x, x.y, x.z}, gs[3] = {g.x, g.y, g.z};
    for (int d = 0; d < dim_; ++d)
      for (int r = 0; r < dim_; ++r) jacobian.m[d][r] += xs[d] * gs[r];
  }
  const auto& m = jacobian.m;
  if (dim_ == 1)
    jacobian.det = m[0][0];
  else if (dim_ == 2)
    jacobian.det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  else
    jacobian.det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                   m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  return jacobian;
}

Point3 scaled_face_normal(Shape shape, int face, Point3 xi, const Jacobian& jacobian) {
  const Shape face_kind = face_shape(shape);
  // dr/dxi_a by a central difference of face_to_element, which is exact: the map is linear in each
  // face coordinate (affine on lines and triangles, bilinear on quadrilaterals).
  auto tangent = [&](int a) {
    constexpr double h = 0.5;
    Point3 plus = xi, minus = xi;
    (a == 0 ? plus.x : plus.y) += h;
    (a == 0 ? minus.x : minus.y) -= h;
    const Point3 dr = (1.0 / (2.0 * h)) * (face_to_element(shape, face, plus) - face_to_element(shape, face, minus));
    const double r[3] = {dr.x, dr.y, dr.z};
    double t[3] = {0, 0, 0};
    for (int d = 0; d < 3; ++d)
      for (int s = 0; s < 3; ++s) t[d] += jacobian.m[d][s] * r[s];
    return Point3{t[0], t[1], t[2]};
  };
  if (dimension(shape) == 2) {
    const Point3 t = tangent(0);
    return {t.y, -t.x, 0.0};  // faces run counter-clockwise: the outward normal is t turned clockwise
  }
  FLOWDG_ASSERT(dimension(shape) == 3, "face normals of ", shape_name(shape), " elements");
  (void)face_kind;
  return cross(tangent(0), tangent(1));  // face vertices counter-clockwise seen from outside
}

bool constant_jacobian(const std::vector<Jacobian>& jacobians, int dim) {
  if (jacobians.empty()) return true;
  double size = 0;
  for (int d = 0; d < dim; ++d)
    for (int r = 0; r < dim; ++r) size = std::max(size, std::abs(jacobians[0].m[d][r]));
  for (const Jacobian& j : jacobians)
    for (int d = 0; d < dim; ++d)
      for (int r = 0; r < dim; ++r)
        if (std::abs(j.m[d][r] - jacobians[0].m[d][r]) > 1e-12 * size) return false;
  return true;
}

}  // namespace flowdg::geometry
