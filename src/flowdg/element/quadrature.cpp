#include "flowdg/element/quadrature.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/quadrature_tables.hpp"

namespace flowdg {
namespace {

void require_degree(int degree, Shape shape) {
  if (degree < 0)
    throw InputError(cat("quadrature degree must be >= 0 for a ", shape_name(shape), ", got ", degree));
}

/// Fewest Gauss points per direction that integrate degree `degree` exactly.
int gauss_points_for(int degree) { return degree / 2 + 1; }

QuadratureRule tensor_rule(Shape shape, int degree) {
  require_degree(degree, shape);
  std::vector<double> nodes, weights;
  gauss_jacobi(gauss_points_for(degree), 0.0, 0.0, nodes, weights);
  const int n = static_cast<int>(nodes.size());
  const int dim = dimension(shape);
  QuadratureRule rule{
      shape, 2 * n - 1, {}, {}, dim == 1 ? "Gauss-Legendre" : "Gauss-Legendre tensor product"};
  // Index digits over the dimensions, x fastest.
  int total = 1;
  for (int d = 0; d < dim; ++d) total *= n;
  for (int index = 0; index < total; ++index) {
    const int i = index % n, j = (index / n) % n, k = index / (n * n);
    rule.points.push_back({nodes[i], dim > 1 ? nodes[j] : 0.0, dim > 2 ? nodes[k] : 0.0});
    rule.weights.push_back(weights[i] * (dim > 1 ? weights[j] : 1.0) * (dim > 2 ? weights[k] : 1.0));
  }
  return rule;
}

QuadratureRule tabulated_rule(Shape shape, const detail::TabulatedRule& table) {
  const int dim = dimension(shape);
  QuadratureRule rule{shape, table.degree, {}, {}, table.source};
  for (int q = 0; q < table.n_points; ++q) {
    const double* row = table.data + q * (dim + 1);
    rule.points.push_back({row[0], row[1], dim > 2 ? row[2] : 0.0});
    rule.weights.push_back(row[dim]);
  }
  return rule;
}

/// The table rule with the fewest points that is exact to `degree`, else the collapsed rule.
QuadratureRule simplex_rule(Shape shape, int degree, std::span<const detail::TabulatedRule> tables,
                            QuadratureRule (*collapsed)(int)) {
  require_degree(degree, shape);
  const detail::TabulatedRule* best = nullptr;
  for (const auto& table : tables)
    if (table.degree >= degree && (best == nullptr || table.n_points < best->n_points)) best = &table;
  return best != nullptr ? tabulated_rule(shape, *best) : collapsed(degree);
}

}  // namespace

void gauss_jacobi(int n, double alpha, double beta, std::vector<double>& nodes,
                  std::vector<double>& weights) {
  if (n < 1) throw InputError(cat("Gauss-Jacobi rule needs at least 1 point, got ", n));
  if (!(alpha > -1.0 && beta > -1.0))
    throw InputError(cat("Gauss-Jacobi weight needs alpha, beta > -1, got ", alpha, ", ", beta));
  // Extended precision, so that the weights, whose sensitivity to a node grows like 1/(1 - x^2)
  // near the ends, come out correctly rounded rather than merely close.
  using Real = long double;
  const Real a = alpha, b = beta;
  const auto derivative = [&](Real x) {
    return (n + a + b + 1) / 2 * detail::jacobi_value(n - 1, a + 1, b + 1, x);
  };
  std::vector<Real> roots(static_cast<std::size_t>(n));
  // Newton on P_n with the roots found so far divided out (Karniadakis & Sherwin, App. B), from
  // Chebyshev guesses; each root is found once and the iteration converges quadratically.
  for (int k = 0; k < n; ++k) {
    Real x = -std::cos((2 * k + 1) * std::numbers::pi_v<Real> / (2 * n));
    if (k > 0) x = (x + roots[k - 1]) / 2;
    for (int iteration = 0; iteration < 100; ++iteration) {
      Real deflation = 0;
      for (int j = 0; j < k; ++j) deflation += 1 / (x - roots[j]);
      const Real value = detail::jacobi_value(n, a, b, x);
      const Real step = value / (derivative(x) - deflation * value);
      x -= step;
      if (std::abs(step) <= 4 * std::numeric_limits<Real>::epsilon()) break;
    }
    roots[k] = x;
  }
  // w_k = c_n / ((1 - x_k^2) P_n'(x_k)^2) with c_n = 2^(a+b+1) G(n+a+1) G(n+b+1) / (G(n+a+b+1) n!),
  // built as a product from c_1: differences of lgamma would lose digits as n grows.
  Real constant =
      std::pow(Real{2}, a + b + 1) * std::tgamma(a + 2) * std::tgamma(b + 2) / std::tgamma(a + b + 2);
  for (int m = 2; m <= n; ++m) constant *= (m + a) * (m + b) / ((m + a + b) * m);
  nodes.resize(static_cast<std::size_t>(n));
  weights.resize(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const Real x = roots[k], slope = derivative(x);
    nodes[k] = static_cast<double>(x);
    weights[k] = static_cast<double>(constant / ((1 - x) * (1 + x) * slope * slope));
  }
}

QuadratureRule gauss_legendre(int n) {
  if (n < 1) throw InputError(cat("Gauss-Legendre rule needs at least 1 point, got ", n));
  return line_rule(2 * n - 1);
}

QuadratureRule line_rule(int degree) { return tensor_rule(Shape::line, degree); }
QuadratureRule quadrilateral_rule(int degree) { return tensor_rule(Shape::quadrilateral, degree); }
QuadratureRule hexahedron_rule(int degree) { return tensor_rule(Shape::hexahedron, degree); }

QuadratureRule triangle_rule(int degree) {
  return simplex_rule(Shape::triangle, degree, detail::triangle_tables(), triangle_collapsed_rule);
}

QuadratureRule tetrahedron_rule(int degree) {
  return simplex_rule(Shape::tetrahedron, degree, detail::tetrahedron_tables(), tetrahedron_collapsed_rule);
}

// x = (1+a)(1-b)/2 - 1, y = b; dx dy = (1-b)/2 da db, the factor (1-b) is the Gauss-Jacobi weight.
QuadratureRule triangle_collapsed_rule(int degree) {
  require_degree(degree, Shape::triangle);
  const int n = gauss_points_for(degree);
  std::vector<double> a, wa, b, wb;
  gauss_jacobi(n, 0.0, 0.0, a, wa);
  gauss_jacobi(n, 1.0, 0.0, b, wb);
  QuadratureRule rule{Shape::triangle, 2 * n - 1, {}, {}, "collapsed Gauss-Jacobi product"};
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      rule.points.push_back({0.5 * (1.0 + a[i]) * (1.0 - b[j]) - 1.0, b[j], 0.0});
      rule.weights.push_back(0.5 * wa[i] * wb[j]);
    }
  return rule;
}

// x = (1+a)(1-b)(1-c)/4 - 1, y = (1+b)(1-c)/2 - 1, z = c; dx dy dz = (1-b)(1-c)^2/8 da db dc.
QuadratureRule tetrahedron_collapsed_rule(int degree) {
  require_degree(degree, Shape::tetrahedron);
  const int n = gauss_points_for(degree);
  std::vector<double> a, wa, b, wb, c, wc;
  gauss_jacobi(n, 0.0, 0.0, a, wa);
  gauss_jacobi(n, 1.0, 0.0, b, wb);
  gauss_jacobi(n, 2.0, 0.0, c, wc);
  QuadratureRule rule{Shape::tetrahedron, 2 * n - 1, {}, {}, "collapsed Gauss-Jacobi product"};
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        rule.points.push_back({0.25 * (1.0 + a[i]) * (1.0 - b[j]) * (1.0 - c[k]) - 1.0,
                               0.5 * (1.0 + b[j]) * (1.0 - c[k]) - 1.0, c[k]});
        rule.weights.push_back(0.125 * wa[i] * wb[j] * wc[k]);
      }
  return rule;
}

QuadratureRule quadrature_rule(Shape shape, int degree) {
  switch (shape) {
    case Shape::line:
      return line_rule(degree);
    case Shape::triangle:
      return triangle_rule(degree);
    case Shape::quadrilateral:
      return quadrilateral_rule(degree);
    case Shape::tetrahedron:
      return tetrahedron_rule(degree);
    case Shape::hexahedron:
      return hexahedron_rule(degree);
    default:
      throw InputError(cat("no quadrature rule for shape ", shape_name(shape)));
  }
}

}  // namespace flowdg
