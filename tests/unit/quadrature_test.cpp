// Quadrature rules: exactness to their stated degree (and not beyond), interior points, positive
// weights; Gauss-Jacobi against closed forms.
#include "flowdg/element/quadrature.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "flowdg/core/error.hpp"

using namespace flowdg;

namespace {

constexpr Shape all_shapes[] = {Shape::line, Shape::triangle, Shape::quadrilateral, Shape::tetrahedron,
                                Shape::hexahedron};

double factorial(int n) {
  double result = 1.0;
  for (int k = 2; k <= n; ++k) result *= k;
  return result;
}

// Monomials in the shifted coordinates (1+x), (1+y), (1+z) span the same polynomial spaces as x^a
// y^b z^c, but are positive on the element, so every integral is positive and a relative error is
// meaningful. Exact values: on simplices from u = (1+x)/2 etc. and the unit simplex's Dirichlet
// integral a! b! c! / (a+b+c+dim)!; on tensor shapes from the product of 2^(a+1)/(a+1).
double exact_integral(Shape shape, int a, int b, int c) {
  const auto line = [](int e) { return std::ldexp(1.0, e + 1) / (e + 1); };
  switch (shape) {
    case Shape::line:
      return line(a);
    case Shape::quadrilateral:
      return line(a) * line(b);
    case Shape::hexahedron:
      return line(a) * line(b) * line(c);
    case Shape::triangle:
      return 4.0 * std::ldexp(1.0, a + b) * factorial(a) * factorial(b) / factorial(a + b + 2);
    case Shape::tetrahedron:
      return 8.0 * std::ldexp(1.0, a + b + c) * factorial(a) * factorial(b) * factorial(c) /
             factorial(a + b + c + 3);
    default:
      return 0.0;
  }
}

/// Integrals by a rule of the monomials (x-o.x)^a (y-o.y)^b (z-o.z)^c, and of their absolute values,
/// for all exponents of one degree level: total degree a+b+c (simplices) or largest exponent
/// (tensor shapes, whose rules integrate Q_degree). Summed in long double, so that what is
/// measured is the rule's error, not the summation's.
struct MonomialIntegrals {
  std::vector<int> exponents;  ///< a, b, c per monomial
  std::vector<double> values, magnitudes;
};

MonomialIntegrals integrate_level(const QuadratureRule& rule, Point3 origin, int level) {
  const int dim = dimension(rule.shape);
  const bool tensor = rule.shape == Shape::quadrilateral || rule.shape == Shape::hexahedron;
  MonomialIntegrals result;
  for (int a = 0; a <= level; ++a)
    for (int b = 0; b <= (dim > 1 ? level : 0); ++b)
      for (int c = 0; c <= (dim > 2 ? level : 0); ++c)
        if (tensor ? std::max({a, b, c}) == level : a + b + c == level)
          result.exponents.insert(result.exponents.end(), {a, b, c});
  const std::size_t count = result.exponents.size() / 3;
  std::vector<long double> values(count, 0.0L), magnitudes(count, 0.0L);
  std::vector<double> powers(3 * static_cast<std::size_t>(level + 1));
  for (int q = 0; q < rule.size(); ++q) {
    const double coordinates[3] = {rule.points[q].x - origin.x, rule.points[q].y - origin.y,
                                   rule.points[q].z - origin.z};
    for (int d = 0; d < 3; ++d) {
      powers[d * (level + 1)] = 1.0;
      for (int e = 1; e <= level; ++e)
        powers[d * (level + 1) + e] = powers[d * (level + 1) + e - 1] * coordinates[d];
    }
    for (std::size_t m = 0; m < count; ++m) {
      const double monomial = powers[result.exponents[3 * m]] *
                              powers[(level + 1) + result.exponents[3 * m + 1]] *
                              powers[2 * (level + 1) + result.exponents[3 * m + 2]];
      values[m] += static_cast<long double>(rule.weights[q]) * monomial;
      magnitudes[m] += static_cast<long double>(rule.weights[q]) * std::abs(monomial);
    }
  }
  result.values.assign(values.begin(), values.end());
  result.magnitudes.assign(magnitudes.begin(), magnitudes.end());
  return result;
}

/// Largest relative error over the shifted monomials (1+x)^a (1+y)^b (1+z)^c of one level.
double max_relative_error(const QuadratureRule& rule, int level) {
  const MonomialIntegrals integrals = integrate_level(rule, {-1.0, -1.0, -1.0}, level);
  double worst = 0.0;
  for (std::size_t m = 0; m < integrals.values.size(); ++m) {
    const double exact = exact_integral(rule.shape, integrals.exponents[3 * m],
                                        integrals.exponents[3 * m + 1], integrals.exponents[3 * m + 2]);
    worst = std::max(worst, std::abs(integrals.values[m] - exact) / exact);
  }
  return worst;
}

/// Largest error over the monomials centred at the centroid of one level, against `reference`,
/// relative to the integral of their absolute values. Centred, because shifted monomials of high
/// degree are integrated almost exactly even by rules one degree short (a Gauss rule's relative
/// error for (1+x)^2n is about 16^-n).
double max_centred_error(const QuadratureRule& rule, const QuadratureRule& reference, int level) {
  Point3 centroid;
  for (int v = 0; v < n_vertices(rule.shape); ++v)
    centroid = centroid + (1.0 / n_vertices(rule.shape)) * reference_vertex(rule.shape, v);
  const MonomialIntegrals integrals = integrate_level(rule, centroid, level);
  const MonomialIntegrals exact = integrate_level(reference, centroid, level);
  double worst = 0.0;
  for (std::size_t m = 0; m < integrals.values.size(); ++m)
    worst = std::max(worst, std::abs(integrals.values[m] - exact.values[m]) / exact.magnitudes[m]);
  return worst;
}

/// A rule exact to `degree` built differently from the tables: Gauss products (checked above).
QuadratureRule reference_rule(Shape shape, int degree) {
  switch (shape) {
    case Shape::triangle:
      return triangle_collapsed_rule(degree);
    case Shape::tetrahedron:
      return tetrahedron_collapsed_rule(degree);
    default:
      return quadrature_rule(shape, degree);
  }
}

bool strictly_inside(Shape shape, Point3 x) {
  switch (shape) {
    case Shape::line:
      return std::abs(x.x) < 1.0 && x.y == 0.0 && x.z == 0.0;
    case Shape::quadrilateral:
      return std::abs(x.x) < 1.0 && std::abs(x.y) < 1.0 && x.z == 0.0;
    case Shape::hexahedron:
      return std::abs(x.x) < 1.0 && std::abs(x.y) < 1.0 && std::abs(x.z) < 1.0;
    case Shape::triangle:
      return x.x > -1.0 && x.y > -1.0 && x.x + x.y < 0.0 && x.z == 0.0;
    case Shape::tetrahedron:
      return x.x > -1.0 && x.y > -1.0 && x.z > -1.0 && x.x + x.y + x.z < -1.0;
    default:
      return false;
  }
}

int highest_degree_tested(Shape shape) {
  // Beyond the triangle and tetrahedron tables (degrees 20 and 18) the collapsed rules take over.
  if (shape == Shape::hexahedron) return 15;  // the cost grows like degree^6
  return shape == Shape::triangle || shape == Shape::tetrahedron ? 24 : 21;
}

void expect_sharp_rule(const QuadratureRule& rule, int requested) {
  SCOPED_TRACE(cat(shape_name(rule.shape), " degree ", requested, " (", rule.source, ")"));
  EXPECT_GE(rule.degree, requested);
  EXPECT_FALSE(rule.source.empty());
  ASSERT_EQ(rule.points.size(), rule.weights.size());
  for (int q = 0; q < rule.size(); ++q) {
    EXPECT_GT(rule.weights[q], 0.0) << "point " << q;
    EXPECT_TRUE(strictly_inside(rule.shape, rule.points[q]))
        << "point " << q << " at " << rule.points[q].x << ", " << rule.points[q].y << ", "
        << rule.points[q].z;
  }
  for (int degree = 0; degree <= rule.degree; ++degree)
    EXPECT_LT(max_relative_error(rule, degree), 1e-14) << "monomials of degree " << degree;
  // The stated degree is the true one: some monomial one degree higher is not integrated exactly.
  EXPECT_GT(max_centred_error(rule, reference_rule(rule.shape, rule.degree + 1), rule.degree + 1), 1e-10);
}

}  // namespace

TEST(QuadratureGaussJacobi, IntegratesWeightedMonomialsToDegreeTwoNMinusOne) {
  const double parameters[][2] = {{0, 0}, {1, 0}, {2, 0}, {-0.5, -0.5}, {0.5, 1.5}, {-0.3, 2.7}};
  for (const auto& [alpha, beta] : parameters) {
    // Moments m_k = int (1-x)^alpha (1+x)^beta x^k from integrating d/dx[(1-x)^(alpha+1)
    // (1+x)^(beta+1) x^k] = 0: (alpha+beta+2+k) m_{k+1} = (beta-alpha) m_k + k m_{k-1}.
    std::vector<double> moments(42);
    moments[0] = std::pow(2.0, alpha + beta + 1) * std::tgamma(alpha + 1) * std::tgamma(beta + 1) /
                 std::tgamma(alpha + beta + 2);
    moments[1] = (beta - alpha) * moments[0] / (alpha + beta + 2);
    for (int k = 1; k + 1 < static_cast<int>(moments.size()); ++k)
      moments[k + 1] = ((beta - alpha) * moments[k] + k * moments[k - 1]) / (alpha + beta + 2 + k);
    for (int n = 1; n <= 20; ++n) {
      std::vector<double> nodes, weights;
      gauss_jacobi(n, alpha, beta, nodes, weights);
      ASSERT_EQ(nodes.size(), static_cast<std::size_t>(n));
      EXPECT_TRUE(std::is_sorted(nodes.begin(), nodes.end()));
      for (int k = 0; k <= 2 * n; ++k) {
        double sum = 0.0, magnitude = 0.0;
        for (int q = 0; q < n; ++q) {
          sum += weights[q] * std::pow(nodes[q], k);
          magnitude += weights[q] * std::abs(std::pow(nodes[q], k));
        }
        // The floor covers a node at 0, which is only 0 to rounding.
        if (k < 2 * n)
          EXPECT_NEAR(sum, moments[k], 1e-14 * magnitude + 1e-16 * moments[0])
              << alpha << " " << beta << " n=" << n << " k=" << k;
        else  // the error, the integral of the squared monic P_n, is about pi n / 4^n of the moment
          EXPECT_GT(std::abs(sum - moments[k]), 1e-13 * magnitude) << alpha << " " << beta << " n=" << n;
      }
    }
  }
}

TEST(QuadratureGaussJacobi, MatchesChebyshevClosedFormsToRounding) {
  // References in extended precision, so that the tolerance can be one unit in the last place.
  using Real = long double;
  const Real pi = std::numbers::pi_v<Real>;
  for (int n = 1; n <= 64; ++n) {
    std::vector<double> nodes, weights;
    // First kind, weight (1-x^2)^(-1/2): x_k = -cos((2k+1) pi / 2n), w_k = pi / n.
    gauss_jacobi(n, -0.5, -0.5, nodes, weights);
    for (int k = 0; k < n; ++k) {
      const double node = static_cast<double>(-std::cos((2 * k + 1) * pi / (2 * n)));
      const double weight = static_cast<double>(pi / n);
      EXPECT_NEAR(nodes[k], node, 1.2e-16) << "n=" << n << " k=" << k;
      EXPECT_NEAR(weights[k], weight, 2.3e-16 * weight) << "n=" << n << " k=" << k;
    }
    // Second kind, weight (1-x^2)^(1/2): x_k = -cos((k+1) pi / (n+1)), w_k = pi/(n+1) sin^2(...).
    gauss_jacobi(n, 0.5, 0.5, nodes, weights);
    for (int k = 0; k < n; ++k) {
      const Real angle = (k + 1) * pi / (n + 1);
      const double node = static_cast<double>(-std::cos(angle));
      const double weight = static_cast<double>(pi / (n + 1) * std::sin(angle) * std::sin(angle));
      EXPECT_NEAR(nodes[k], node, 1.2e-16) << "n=" << n << " k=" << k;
      EXPECT_NEAR(weights[k], weight, 2.3e-16 * weight) << "n=" << n << " k=" << k;
    }
  }
}

TEST(QuadratureGaussJacobi, LegendreThreePointRule) {
  const QuadratureRule rule = gauss_legendre(3);
  ASSERT_EQ(rule.size(), 3);
  EXPECT_EQ(rule.degree, 5);
  EXPECT_NEAR(rule.points[0].x, -std::sqrt(0.6), 1e-16);
  EXPECT_NEAR(rule.points[1].x, 0.0, 1e-16);
  EXPECT_NEAR(rule.points[2].x, std::sqrt(0.6), 1e-16);
  EXPECT_NEAR(rule.weights[0], 5.0 / 9.0, 1e-16);
  EXPECT_NEAR(rule.weights[1], 8.0 / 9.0, 1e-16);
  EXPECT_NEAR(rule.weights[2], 5.0 / 9.0, 1e-16);
}

TEST(QuadratureGaussJacobi, RejectsBadArguments) {
  std::vector<double> nodes, weights;
  EXPECT_THROW(gauss_jacobi(0, 0.0, 0.0, nodes, weights), InputError);
  EXPECT_THROW(gauss_jacobi(3, -1.0, 0.0, nodes, weights), InputError);
  EXPECT_THROW(gauss_jacobi(3, 0.0, -1.5, nodes, weights), InputError);
  EXPECT_THROW(gauss_legendre(0), InputError);
}

TEST(QuadratureRules, EveryShapeAndDegreeIsExactToItsDegreeAndNoFurther) {
  for (const Shape shape : all_shapes)
    for (int degree = 0; degree <= highest_degree_tested(shape); ++degree)
      expect_sharp_rule(quadrature_rule(shape, degree), degree);
}

TEST(QuadratureRules, CollapsedRulesAreExactAtEveryDegree) {
  for (int degree = 0; degree <= 25; ++degree) {
    expect_sharp_rule(triangle_collapsed_rule(degree), degree);
    expect_sharp_rule(tetrahedron_collapsed_rule(degree), degree);
  }
}

TEST(QuadratureRules, SimplicesUsePublishedTablesWhereTheyExistThenCollapsedRules) {
  for (int degree = 0; degree <= 20; ++degree)
    EXPECT_NE(triangle_rule(degree).source.find("Witherden"), std::string::npos) << degree;
  for (int degree = 0; degree <= 18; ++degree)
    EXPECT_NE(tetrahedron_rule(degree).source.find("Witherden"), std::string::npos) << degree;
  EXPECT_EQ(triangle_rule(21).source, triangle_collapsed_rule(21).source);
  EXPECT_EQ(tetrahedron_rule(19).source, tetrahedron_collapsed_rule(19).source);
  EXPECT_EQ(triangle_rule(3).degree, 4);  // no degree-3 table: the degree-4 one serves
  EXPECT_EQ(tetrahedron_rule(4).degree, 5);
}

TEST(QuadratureRules, RejectNegativeDegreeAndUnknownShape) {
  for (const Shape shape : all_shapes)
    EXPECT_THROW(quadrature_rule(shape, -1), InputError) << shape_name(shape);
  EXPECT_THROW(triangle_collapsed_rule(-2), InputError);
  EXPECT_THROW(tetrahedron_collapsed_rule(-2), InputError);
  EXPECT_THROW(quadrature_rule(Shape::point, 1), InputError);
}
