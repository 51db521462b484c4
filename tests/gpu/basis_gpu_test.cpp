// The basis functions and gradients evaluated inside CUDA kernels equal the host's.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/element/basis.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;

namespace {

constexpr int order = 6;

// A functor, not a lambda: nvcc rejects extended __host__ __device__ lambdas inside a TestBody.
struct EvaluateGradients {
  Shape shape;
  View<const Point3> points;
  View<double> values;
  View<Point3> gradients;
  FLOWDG_HD void operator()(index_t i) const {
    const index_t n = n_basis(shape, order);
    basis_gradients(shape, order, points[i], &values[i * n], &gradients[i * n]);
  }
};

/// Every vertex, so the collapsed ones are covered, and random points inside the element.
std::vector<Point3> sample_points(Shape shape) {
  std::mt19937 generator(5);
  std::uniform_real_distribution<double> coordinate(-1.0, 1.0);
  const int dim = dimension(shape);
  std::vector<Point3> points;
  for (int v = 0; v < n_vertices(shape); ++v) points.push_back(reference_vertex(shape, v));
  while (points.size() < 2000) {
    const Point3 x{coordinate(generator), dim > 1 ? coordinate(generator) : 0.0,
                   dim > 2 ? coordinate(generator) : 0.0};
    const bool outside = (shape == Shape::triangle && x.x + x.y > 0.0) ||
                         (shape == Shape::tetrahedron && x.x + x.y + x.z > -1.0);
    if (!outside) points.push_back(x);
  }
  return points;
}

struct Evaluated {
  std::vector<double> values;
  std::vector<Point3> gradients;
};

Evaluated evaluate(Backend backend, Shape shape, const std::vector<Point3>& host_points) {
  const auto n_points = static_cast<index_t>(host_points.size());
  const index_t n = n_basis(shape, order) * n_points;
  const Array<Point3> points(space_of(backend), host_points);
  Array<double> values(space_of(backend), std::vector<double>(n, std::nan("")));  // poisoned
  Array<Point3> gradients(space_of(backend), std::vector<Point3>(n, Point3{std::nan(""), 0, 0}));
  for_each(backend, n_points, EvaluateGradients{shape, points.view(), values.view(), gradients.view()});
  return {values.to_host(), gradients.to_host()};
}

}  // namespace

TEST(GpuBasis, GradientsOnTheDeviceEqualTheHostsForEveryShape) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  for (const Shape shape :
       {Shape::line, Shape::triangle, Shape::quadrilateral, Shape::tetrahedron, Shape::hexahedron}) {
    const std::vector<Point3> points = sample_points(shape);
    const Evaluated host = evaluate(Backend::cpu, shape, points);
    const Evaluated device = evaluate(Backend::cuda, shape, points);
    // Fused multiply-adds on the device round differently from the host's separate operations.
    const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-13 * (1.0 + std::abs(b)); };
    for (std::size_t i = 0; i < host.values.size(); ++i) {
      ASSERT_TRUE(close(device.values[i], host.values[i]))
          << shape_name(shape) << " entry " << i << ": " << device.values[i] << " vs " << host.values[i];
      const Point3 d = device.gradients[i], h = host.gradients[i];
      ASSERT_TRUE(close(d.x, h.x) && close(d.y, h.y) && close(d.z, h.z))
          << shape_name(shape) << " entry " << i << ": (" << d.x << ", " << d.y << ", " << d.z << ") vs ("
          << h.x << ", " << h.y << ", " << h.z << ")";
    }
  }
}
