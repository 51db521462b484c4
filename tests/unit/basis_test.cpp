// Modal bases: orthonormality, hierarchy (the first n_basis(q) functions span the degree-q space),
// gradients against finite differences (also at the collapsed vertices), Jacobi polynomials.
#include "flowdg/element/basis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "flowdg/element/quadrature.hpp"

using namespace flowdg;

namespace {

constexpr Shape all_shapes[] = {Shape::line, Shape::triangle, Shape::quadrilateral, Shape::tetrahedron,
                                Shape::hexahedron};

std::vector<double> values_at(Shape shape, int p, Point3 xi) {
  std::vector<double> values(n_basis(shape, p));
  basis_values(shape, p, xi, values.data());
  return values;
}

/// A uniformly random point inside the reference element (rejection from the bounding box).
Point3 random_point(Shape shape, std::mt19937& generator) {
  std::uniform_real_distribution<double> coordinate(-1.0, 1.0);
  const int dim = dimension(shape);
  for (;;) {
    const Point3 x{coordinate(generator), dim > 1 ? coordinate(generator) : 0.0,
                   dim > 2 ? coordinate(generator) : 0.0};
    if (shape == Shape::triangle && x.x + x.y > 0.0) continue;
    if (shape == Shape::tetrahedron && x.x + x.y + x.z > -1.0) continue;
    return x;
  }
}

/// Fourth-order derivative of every basis function along `direction` at `x`: centred, or one-sided
/// (towards +direction only) where x sits on the boundary.
std::vector<double> directional_derivatives(Shape shape, int p, Point3 x, Point3 direction, double h,
                                            bool one_sided) {
  const int n = n_basis(shape, p);
  // Centred: (f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / 12h; one-sided: (-25 f0 + 48 f1 - 36 f2 + 16 f3 - 3 f4) /
  // 12h.
  const std::vector<std::pair<int, double>> stencil =
      one_sided ? std::vector<std::pair<int, double>>{{0, -25}, {1, 48}, {2, -36}, {3, 16}, {4, -3}}
                : std::vector<std::pair<int, double>>{{-2, 1}, {-1, -8}, {1, 8}, {2, -1}};
  std::vector<double> result(n, 0.0);
  for (const auto& [step, coefficient] : stencil) {
    const std::vector<double> values = values_at(shape, p, x + (step * h) * direction);
    for (int i = 0; i < n; ++i) result[i] += coefficient * values[i] / (12.0 * h);
  }
  return result;
}

/// Compares the analytic gradients at x with finite differences along each direction.
void expect_gradients_match(Shape shape, int p, Point3 x, const std::vector<Point3>& directions,
                            bool one_sided) {
  const int n = n_basis(shape, p);
  std::vector<double> values(n);
  std::vector<Point3> gradients(n);
  basis_gradients(shape, p, x, values.data(), gradients.data());
  EXPECT_EQ(values, values_at(shape, p, x));
  for (const Point3 direction : directions) {
    const std::vector<double> differences =
        directional_derivatives(shape, p, x, direction, 2.5e-4, one_sided);
    for (int i = 0; i < n; ++i) {
      const double analytic = dot(gradients[i], direction);
      ASSERT_TRUE(std::isfinite(analytic)) << shape_name(shape) << " p=" << p << " i=" << i;
      // Centred: rounding, eps |f| / h ~ 1e-10, dominates. One-sided at a vertex: truncation,
      // (|direction| h)^4 |f^(5)| / 5 ~ 1e-7 at p = 8.
      EXPECT_NEAR(analytic, differences[i], (one_sided ? 1e-6 : 1e-9) * (1.0 + std::abs(differences[i])))
          << shape_name(shape) << " p=" << p << " i=" << i << " at " << x.x << ", " << x.y << ", " << x.z
          << " along " << direction.x << ", " << direction.y << ", " << direction.z;
    }
  }
}

/// The (q+1)-th forward difference of f along a line vanishes iff f restricted to it has degree <= q.
double forward_difference(Shape shape, int p, int function, Point3 x, Point3 direction, int order, double h,
                          double& magnitude) {
  double difference = 0.0, binomial = 1.0;
  magnitude = 0.0;
  for (int k = 0; k <= order; ++k) {
    const double value = values_at(shape, p, x + (k * h) * direction)[function];
    difference += ((order - k) % 2 == 0 ? 1.0 : -1.0) * binomial * value;
    magnitude += binomial * std::abs(value);
    binomial = binomial * (order - k) / (k + 1);
  }
  return difference;
}

}  // namespace

TEST(BasisJacobi, MatchesClosedFormsAndEndpointValues) {
  for (double x : {-1.0, -0.3, 0.0, 0.55, 1.0}) {
    EXPECT_NEAR(jacobi(3, 0, 0, x), 0.5 * (5 * x * x * x - 3 * x), 1e-15);
    EXPECT_NEAR(jacobi_derivative(3, 0, 0, x), 0.5 * (15 * x * x - 3), 1e-14);
    EXPECT_NEAR(jacobi(2, 1, 0, x), 0.5 * (5 * x * x + 2 * x - 1), 1e-15);
  }
  // P_n^(a,b)(1) = binom(n + a, n), and P_n^(a,b)(-x) = (-1)^n P_n^(b,a)(x).
  EXPECT_NEAR(jacobi(6, 3, 1, 1.0), 84.0, 1e-12);
  EXPECT_NEAR(jacobi(7, 2.5, 0.5, -0.4), -jacobi(7, 0.5, 2.5, 0.4), 1e-13);
}

TEST(BasisOrthonormality, EveryShapeUpToTheHighestOrder) {
  for (const Shape shape : all_shapes) {
    // The hexahedron's cost grows like p^9; its orthonormality is the 1D property three times over.
    const int highest = shape == Shape::hexahedron ? 8 : max_basis_order;
    for (int p = 0; p <= highest; ++p) {
      const QuadratureRule rule = quadrature_rule(shape, 2 * p);
      const int n = n_basis(shape, p);
      std::vector<double> table(static_cast<std::size_t>(n) * rule.size());
      for (int q = 0; q < rule.size(); ++q)
        basis_values(shape, p, rule.points[q], &table[static_cast<std::size_t>(q) * n]);
      double worst = 0.0;
      for (int i = 0; i < n; ++i)
        for (int j = i; j < n; ++j) {
          double sum = 0.0;
          for (int q = 0; q < rule.size(); ++q)
            sum += rule.weights[q] * table[static_cast<std::size_t>(q) * n + i] *
                   table[static_cast<std::size_t>(q) * n + j];
          worst = std::max(worst, std::abs(sum - (i == j ? 1.0 : 0.0)));
        }
      EXPECT_LT(worst, 1e-13) << shape_name(shape) << " p=" << p;
    }
  }
}

TEST(BasisHierarchy, LowerOrdersArePrefixesAndSpanTheirSpaces) {
  std::mt19937 generator(7);
  const int p = max_basis_order;
  for (const Shape shape : all_shapes) {
    const bool tensor = shape == Shape::quadrilateral || shape == Shape::hexahedron;
    for (int sample = 0; sample < 3; ++sample) {
      const Point3 x = random_point(shape, generator);
      const std::vector<double> full = values_at(shape, p, x);
      for (int q = 0; q < p; ++q) {
        const std::vector<double> lower = values_at(shape, q, x);
        for (int i = 0; i < n_basis(shape, q); ++i)
          EXPECT_EQ(lower[i], full[i]) << shape_name(shape) << " q=" << q;
      }
    }
    // Functions n_basis(q-1) .. n_basis(q)-1 have degree exactly q: along a random line (simplices:
    // total degree) or each axis (tensor shapes: degree in each variable) the (q+1)-th difference
    // vanishes, and for at least one of them the q-th does not. Orthonormal, n_basis(q) of them in
    // the degree-q space: they span it.
    std::normal_distribution<double> normal;
    std::vector<Point3> directions;
    if (tensor)
      directions = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    else
      directions = {{normal(generator), normal(generator), normal(generator)}};
    for (Point3& direction : directions) {
      direction.y = dimension(shape) > 1 ? direction.y : 0.0;
      direction.z = dimension(shape) > 2 ? direction.z : 0.0;
    }
    const Point3 start = random_point(shape, generator);
    for (int q = 0; q <= p; ++q) {
      double highest_lower_difference = 0.0;
      for (int i = q == 0 ? 0 : n_basis(shape, q - 1); i < n_basis(shape, q); ++i)
        for (const Point3 direction : directions) {
          if (dot(direction, direction) == 0.0) continue;
          double magnitude = 0.0;
          const double difference = forward_difference(shape, p, i, start, direction, q + 1, 0.1, magnitude);
          EXPECT_LT(std::abs(difference), 1e-12 * magnitude) << shape_name(shape) << " q=" << q << " i=" << i;
          if (q > 0) {
            const double lower = forward_difference(shape, p, i, start, direction, q, 0.1, magnitude);
            highest_lower_difference = std::max(highest_lower_difference, std::abs(lower) / magnitude);
          }
        }
      if (q > 0) {
        EXPECT_GT(highest_lower_difference, 1e-8) << shape_name(shape) << " no function of degree " << q;
      }
    }
  }
}

TEST(BasisGradients, MatchFiniteDifferencesAtRandomInteriorPoints) {
  std::mt19937 generator(11);
  const std::vector<Point3> axes = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (const Shape shape : all_shapes)
    for (int p = 0; p <= 8; ++p)
      for (int sample = 0; sample < 4; ++sample) {
        // The stencil may leave the element: the functions are polynomials.
        const Point3 x = random_point(shape, generator);
        const std::vector<Point3> directions(axes.begin(), axes.begin() + dimension(shape));
        expect_gradients_match(shape, p, x, directions, false);
      }
}

TEST(BasisGradients, AreFiniteAndCorrectAtCollapsedVertexAndEdge) {
  // Triangle: the vertex (-1, 1) where a = 2(1+x)/(1-y) - 1 is 0/0; derivatives along both edges.
  for (int p = 0; p <= 8; ++p)
    expect_gradients_match(Shape::triangle, p, {-1, 1, 0}, {{0, -1, 0}, {1, -1, 0}}, true);
  // Tetrahedron: the vertex (-1,-1,1) (both a and b are 0/0) along its three edges, and a point of
  // the collapsed edge y + z = 0, x = -1 along three independent directions into the element.
  for (int p = 0; p <= 8; ++p) {
    expect_gradients_match(Shape::tetrahedron, p, {-1, -1, 1}, {{2, 0, -2}, {0, 2, -2}, {0, 0, -2}}, true);
    expect_gradients_match(Shape::tetrahedron, p, {-1, 0.2, -0.2},
                           {{0, -1, -1}, {2, -1.2, -0.8}, {0, -1.2, 1.2}}, true);
  }
}

TEST(BasisConstant, FirstFunctionIsOneOverSquareRootOfMeasure) {
  std::mt19937 generator(3);
  for (const Shape shape : all_shapes)
    for (int sample = 0; sample < 5; ++sample) {
      const Point3 x = random_point(shape, generator);
      std::vector<double> values(n_basis(shape, 4));
      std::vector<Point3> gradients(values.size());
      basis_gradients(shape, 4, x, values.data(), gradients.data());
      EXPECT_NEAR(values[0], 1.0 / std::sqrt(reference_measure(shape)), 1e-15) << shape_name(shape);
      EXPECT_EQ(dot(gradients[0], gradients[0]), 0.0) << shape_name(shape);
      // Unused gradient components are zero.
      for (const Point3& gradient : gradients) {
        EXPECT_TRUE(dimension(shape) == 3 || gradient.z == 0.0) << shape_name(shape);
        EXPECT_TRUE(dimension(shape) >= 2 || gradient.y == 0.0) << shape_name(shape);
      }
    }
}
