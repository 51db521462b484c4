#include "flowdg/mesh/locate.hpp"

#include <algorithm>
#include <cmath>

#include "flowdg/mesh/lagrange.hpp"

namespace flowdg {

bool inside_reference(Shape shape, Point3 xi, double tolerance) {
  const double r = xi.x, s = xi.y, t = xi.z, lo = -1 - tolerance, hi = 1 + tolerance;
  switch (shape) {
    case Shape::triangle: return r >= lo && s >= lo && r + s <= tolerance;
    case Shape::quadrilateral: return r >= lo && r <= hi && s >= lo && s <= hi;
    case Shape::tetrahedron: return r >= lo && s >= lo && t >= lo && r + s + t <= -1 + tolerance;
    case Shape::hexahedron: return r >= lo && r <= hi && s >= lo && s <= hi && t >= lo && t <= hi;
    default: return false;
  }
}

namespace {

/// Newton's method for x(xi) = target from the reference element's centre; false if it does not
/// converge (a point far outside a curved element).
bool invert_map(const Mesh& mesh, index_t element, Point3 target, double size, Point3& xi) {
  const int dim = mesh.dimension;
  const Shape shape = mesh.element_shape(element);
  xi = shape == Shape::triangle ? Point3{-1.0 / 3, -1.0 / 3, 0}
       : shape == Shape::tetrahedron ? Point3{-0.5, -0.5, -0.5}
                                     : Point3{0, 0, 0};
  for (int iteration = 0; iteration < 30; ++iteration) {
    const Point3 x = map_to_physical(mesh, element, xi);
    const double residual[3] = {target.x - x.x, target.y - x.y, target.z - x.z};
    double norm = 0;
    for (int d = 0; d < dim; ++d) norm = std::max(norm, std::abs(residual[d]));
    if (norm <= 1e-12 * size) return true;
    const ElementJacobian J = element_jacobian(mesh, element, xi);
    if (!(std::abs(J.det) > 0)) return false;
    double step[3] = {0, 0, 0};
    if (dim == 2) {
      const double a = J.matrix[0][0], b = J.matrix[0][1], c = J.matrix[1][0], d = J.matrix[1][1];
      step[0] = (d * residual[0] - b * residual[1]) / J.det;
      step[1] = (-c * residual[0] + a * residual[1]) / J.det;
    } else {
      const auto& m = J.matrix;
      const double inverse[3][3] = {{m[1][1] * m[2][2] - m[1][2] * m[2][1], m[0][2] * m[2][1] - m[0][1] * m[2][2], m[0][1] * m[1][2] - m[0][2] * m[1][1]},
                                    {m[1][2] * m[2][0] - m[1][0] * m[2][2], m[0][0] * m[2][2] - m[0][2] * m[2][0], m[0][2] * m[1][0] - m[0][0] * m[1][2]},
                                    {m[1][0] * m[2][1] - m[1][1] * m[2][0], m[0][1] * m[2][0] - m[0][0] * m[2][1], m[0][0] * m[1][1] - m[0][1] * m[1][0]}};
      for (int r = 0; r < 3; ++r)
        for (int d = 0; d < 3; ++d) step[r] += inverse[r][d] * residual[d] / J.det;
    }
    xi.x += step[0];
    xi.y += step[1];
    if (dim == 3) xi.z += step[2];
    if (std::abs(xi.x) > 10 || std::abs(xi.y) > 10 || std::abs(xi.z) > 10) return false;
  }
  return false;
}

double component(Point3 p, int d) { return d == 0 ? p.x : d == 1 ? p.y : p.z; }

}  // namespace

PointLocator::PointLocator(const Mesh& mesh) : mesh_(&mesh), dim_(mesh.dimension) {
  const index_t K = mesh.n_elements();
  box_low_.resize(K);
  box_high_.resize(K);
  Point3 low{1e300, 1e300, 1e300}, high{-1e300, -1e300, -1e300};
  for (index_t e = 0; e < K; ++e) {
    Point3 a{1e300, 1e300, 1e300}, b{-1e300, -1e300, -1e300};
    const index_t* ids = mesh.element_node_ids(e);
    for (int k = 0; k < n_nodes(mesh.element_types[e]); ++k) {
      const Point3 x = mesh.nodes[ids[k]];
      a = {std::min(a.x, x.x), std::min(a.y, x.y), std::min(a.z, x.z)};
      b = {std::max(b.x, x.x), std::max(b.y, x.y), std::max(b.z, x.z)};
    }
    const Point3 margin{0.1 * (b.x - a.x), 0.1 * (b.y - a.y), 0.1 * (b.z - a.z)};
    box_low_[e] = {a.x - margin.x, a.y - margin.y, a.z - margin.z};
    box_high_[e] = {b.x + margin.x, b.y + margin.y, b.z + margin.z};
    low = {std::min(low.x, box_low_[e].x), std::min(low.y, box_low_[e].y), std::min(low.z, box_low_[e].z)};
    high = {std::max(high.x, box_high_[e].x), std::max(high.y, box_high_[e].y), std::max(high.z, box_high_[e].z)};
  }
  if (K == 0) return;
  // About one element per bin.
  const double per_axis = std::max(1.0, std::pow(static_cast<double>(K), 1.0 / dim_));
  low_ = low;
  for (int d = 0; d < 3; ++d) n_[d] = d < dim_ ? static_cast<int>(std::min(per_axis, 2048.0)) : 1;
  cell_ = {(high.x - low.x) / n_[0], (high.y - low.y) / n_[1], dim_ == 3 ? (high.z - low.z) / n_[2] : 1.0};
  bins_.resize(static_cast<std::size_t>(n_[0]) * n_[1] * n_[2]);
  const auto bin = [&](Point3 p, int d) {
    const double cell = component(cell_, d);
    const int i = cell > 0 ? static_cast<int>((component(p, d) - component(low_, d)) / cell) : 0;
    return std::clamp(i, 0, n_[d] - 1);
  };
  for (index_t e = 0; e < K; ++e) {
    int lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      lo[d] = bin(box_low_[e], d);
      hi[d] = bin(box_high_[e], d);
    }
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int i = lo[0]; i <= hi[0]; ++i) bins_[(static_cast<std::size_t>(k) * n_[1] + j) * n_[0] + i].push_back(e);
  }
}

Location PointLocator::find(Point3 x) const {
  Location location;
  if (bins_.empty()) return location;
  int index[3];
  for (int d = 0; d < 3; ++d) {
    const double cell = component(cell_, d);
    const double offset = component(x, d) - component(low_, d);
    if (d < dim_ && (offset < 0 || offset > cell * n_[d])) return location;
    index[d] = d < dim_ && cell > 0 ? std::clamp(static_cast<int>(offset / cell), 0, n_[d] - 1) : 0;
  }
  for (const index_t e : bins_[(static_cast<std::size_t>(index[2]) * n_[1] + index[1]) * n_[0] + index[0]]) {
    const Point3 a = box_low_[e], b = box_high_[e];
    if (x.x < a.x || x.x > b.x || x.y < a.y || x.y > b.y || (dim_ == 3 && (x.z < a.z || x.z > b.z))) continue;
    const double size = std::max({b.x - a.x, b.y - a.y, dim_ == 3 ? b.z - a.z : 0.0});
    Point3 xi;
    if (invert_map(*mesh_, e, x, size, xi) && inside_reference(mesh_->element_shape(e), xi)) {
      location.element = e;
      location.xi = xi;
      return location;
    }
  }
  return location;
}

}  // namespace flowdg
