#pragma once
// Point location in a mesh of any dimension, shape and geometric order: the element containing a
// physical point and the point's reference coordinates in it (probes, wake lines). Candidates come
// from a uniform grid of element bounding boxes (each box widened by a tenth of its size, for
// curved edges that bulge past their nodes); the reference point by Newton's method on the
// element's map.
#include <vector>

#include "flowdg/core/point.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

struct Location {
  index_t element = -1;  ///< -1: the point is in no element
  Point3 xi{};           ///< reference coordinates (reference_element.hpp's elements)
};

class PointLocator {
 public:
  explicit PointLocator(const Mesh& mesh);
  /// The element containing x (the first found where elements touch) and x's reference
  /// coordinates in it; element -1 when x is outside the mesh.
  Location find(Point3 x) const;

 private:
  const Mesh* mesh_;
  int dim_ = 2;
  Point3 low_{}, cell_{};
  int n_[3] = {1, 1, 1};
  std::vector<std::vector<index_t>> bins_;
  std::vector<Point3> box_low_, box_high_;
};

/// Whether a reference point lies in the reference element of `shape` (to a tolerance).
bool inside_reference(Shape shape, Point3 xi, double tolerance = 1e-9);

}  // namespace flowdg
