#pragma once
// Definitions for basis.hpp (included from there). Precondition everywhere: 0 <= p <= max_basis_order
// (per-thread arrays are sized by it). Index of each function:
//   line           n
//   triangle       (i, j), degree d = i + j:         d(d+1)/2 + i
//   tetrahedron    (i, j, k), degree d = i + j + k:  d(d+1)(d+2)/6 + i(d+1) - i(i-1)/2 + j
//                  (within a degree, lexicographic in (i, j, k) with k = d - i - j)
//   quadrilateral  (i, j), then hexahedron (i, j, k): shells of max degree m = 0..p, and within a
//                  shell lexicographic in (i, j[, k]); phi = L_i(x) L_j(y) [L_k(z)]
// The simplex functions are Hesthaven & Warburton's (Nodal DG Methods, 2008, Simplex2DP/3DP) and
// their gradients follow GradSimplex2DP/3DP: every division by a vanishing (1 - b) or (1 - c) has
// been cancelled by hand, so the formulas hold at the collapsed vertex and edges too.
#include <cmath>

namespace flowdg {
namespace detail {

/// P_{n+1} = (x_coefficient x + constant) P_n - previous_coefficient P_{n-1}, for n >= 1.
template <class Real>
struct JacobiStep {
  Real x_coefficient, constant, previous_coefficient;
};

template <class Real>
FLOWDG_HD inline JacobiStep<Real> jacobi_step(int n, Real alpha, Real beta) {
  const Real s = 2 * n + alpha + beta;
  const Real denominator = 2 * (n + 1) * (n + alpha + beta + 1) * s;
  return {(s + 1) * (s + 2) * s / denominator, (s + 1) * (alpha * alpha - beta * beta) / denominator,
          2 * (n + alpha) * (n + beta) * (s + 2) / denominator};
}

/// jacobi() in any floating-point type (quadrature.cpp finds Gauss-Jacobi rules in extended precision).
template <class Real>
FLOWDG_HD inline Real jacobi_value(int n, Real alpha, Real beta, Real x) {
  if (n == 0) return 1;
  Real previous = 1, current = ((alpha + beta + 2) * x + alpha - beta) / 2;
  for (int m = 1; m < n; ++m) {
    const JacobiStep<Real> step = jacobi_step(m, alpha, beta);
    const Real next =
        (step.x_coefficient * x + step.constant) * current - step.previous_coefficient * previous;
    previous = current;
    current = next;
  }
  return current;
}

/// values[m], derivatives[m] for m <= n: P_m^{(alpha,0)} scaled to unit norm under the weight
/// (1-x)^alpha on [-1,1], whose squared norm is 2^(alpha+1) / (2m + alpha + 1).
FLOWDG_HD inline void orthonormal_jacobi(int n, int alpha, double x, double* values, double* derivatives) {
  values[0] = 1.0;
  derivatives[0] = 0.0;
  if (n > 0) {
    values[1] = 0.5 * ((alpha + 2.0) * x + alpha);
    derivatives[1] = 0.5 * (alpha + 2.0);
  }
  for (int m = 1; m < n; ++m) {
    const JacobiStep<double> step = jacobi_step<double>(m, alpha, 0.0);
    const double linear = step.x_coefficient * x + step.constant;
    values[m + 1] = linear * values[m] - step.previous_coefficient * values[m - 1];
    derivatives[m + 1] = linear * derivatives[m] + step.x_coefficient * values[m] -
                         step.previous_coefficient * derivatives[m - 1];
  }
  const double weight_integral = std::ldexp(1.0, alpha + 1);
  for (int m = 0; m <= n; ++m) {
    const double scale = std::sqrt((2.0 * m + alpha + 1.0) / weight_integral);
    values[m] *= scale;
    derivatives[m] *= scale;
  }
}

constexpr int max_terms = max_basis_order + 1;

FLOWDG_HD inline void line_basis(int p, Point3 xi, double* values, Point3* gradients) {
  double derivatives[max_terms];
  orthonormal_jacobi(p, 0, xi.x, values, derivatives);
  if (gradients != nullptr)
    for (int n = 0; n <= p; ++n) gradients[n] = {derivatives[n], 0.0, 0.0};
}

FLOWDG_HD inline void tensor_basis(int p, int dim, Point3 xi, double* values, Point3* gradients) {
  double legendre[3][max_terms], derivatives[3][max_terms];
  const double coordinates[3] = {xi.x, xi.y, xi.z};
  for (int d = 0; d < dim; ++d) orthonormal_jacobi(p, 0, coordinates[d], legendre[d], derivatives[d]);
  int index = 0;
  for (int shell = 0; shell <= p; ++shell)
    for (int i = 0; i <= shell; ++i)
      for (int j = 0; j <= shell; ++j)
        for (int k = 0; k <= (dim == 3 ? shell : 0); ++k) {
          const bool on_shell = i == shell || j == shell || (dim == 3 && k == shell);
          if (!on_shell) continue;
          const double fx = legendre[0][i], fy = legendre[1][j], fz = dim == 3 ? legendre[2][k] : 1.0;
          values[index] = fx * fy * fz;
          if (gradients != nullptr)
            gradients[index] = {derivatives[0][i] * fy * fz, fx * derivatives[1][j] * fz,
                                dim == 3 ? fx * fy * derivatives[2][k] : 0.0};
          ++index;
        }
}

FLOWDG_HD inline void triangle_basis(int p, Point3 xi, double* values, Point3* gradients) {
  // Collapsed coordinates; at the vertex (-1, 1) any a gives the same values and gradients.
  const double a = xi.y != 1.0 ? 2.0 * (1.0 + xi.x) / (1.0 - xi.y) - 1.0 : -1.0;
  const double b = xi.y;
  double fa[max_terms], dfa[max_terms], gb[max_terms], dgb[max_terms];
  orthonormal_jacobi(p, 0, a, fa, dfa);
  // power = ((1-b)/2)^i; power_below = ((1-b)/2)^(i-1), whose i = 0 value only meets zero factors.
  double power = 1.0, power_below = 0.0;
  for (int i = 0; i <= p; ++i) {
    orthonormal_jacobi(p - i, 2 * i + 1, b, gb, dgb);
    const double scale = std::sqrt(2.0) * std::ldexp(1.0, i);
    for (int j = 0; j <= p - i; ++j) {
      const int degree = i + j;
      const int index = degree * (degree + 1) / 2 + i;
      values[index] = scale * fa[i] * gb[j] * power;
      if (gradients == nullptr) continue;
      const double dr = scale * dfa[i] * gb[j] * power_below;
      const double tail = scale * fa[i] * (dgb[j] * power - 0.5 * i * gb[j] * power_below);
      gradients[index] = {dr, 0.5 * (1.0 + a) * dr + tail, 0.0};
    }
    power_below = power;
    power *= 0.5 * (1.0 - b);
  }
}

FLOWDG_HD inline void tetrahedron_basis(int p, Point3 xi, double* values, Point3* gradients) {
  // Collapsed coordinates; on the collapsed edge and vertex any a (b) gives the same results.
  const double a = xi.y + xi.z != 0.0 ? 2.0 * (1.0 + xi.x) / (-xi.y - xi.z) - 1.0 : -1.0;
  const double b = xi.z != 1.0 ? 2.0 * (1.0 + xi.y) / (1.0 - xi.z) - 1.0 : -1.0;
  const double c = xi.z;
  double fa[max_terms], dfa[max_terms], gb[max_terms], dgb[max_terms], hc[max_terms], dhc[max_terms];
  orthonormal_jacobi(p, 0, a, fa, dfa);
  // ((1-b)/2)^i and ((1-c)/2)^(i+j) with the powers one below; below-zero powers only meet zeros.
  double power_b = 1.0, power_b_below = 0.0;
  for (int i = 0; i <= p; ++i) {
    orthonormal_jacobi(p - i, 2 * i + 1, b, gb, dgb);
    double power_c = 1.0, power_c_below = 0.0;
    for (int n = 0; n < i; ++n) {
      power_c_below = power_c;
      power_c *= 0.5 * (1.0 - c);
    }
    for (int j = 0; j <= p - i; ++j) {
      orthonormal_jacobi(p - i - j, 2 * (i + j) + 2, c, hc, dhc);
      const double scale = 2.0 * std::sqrt(2.0) * std::ldexp(1.0, 2 * i + j);
      for (int k = 0; k <= p - i - j; ++k) {
        const int degree = i + j + k;
        const int index = degree * (degree + 1) * (degree + 2) / 6 + i * (degree + 1) - i * (i - 1) / 2 + j;
        values[index] = scale * fa[i] * gb[j] * power_b * hc[k] * power_c;
        if (gradients == nullptr) continue;
        const double dr = scale * dfa[i] * gb[j] * hc[k] * power_b_below * power_c_below;
        const double ds_tail =
            scale * fa[i] * hc[k] * power_c_below * (dgb[j] * power_b - 0.5 * i * gb[j] * power_b_below);
        const double dt_tail =
            scale * fa[i] * gb[j] * power_b * (dhc[k] * power_c - 0.5 * (i + j) * hc[k] * power_c_below);
        gradients[index] = {dr, 0.5 * (1.0 + a) * dr + ds_tail,
                            0.5 * (1.0 + a) * dr + 0.5 * (1.0 + b) * ds_tail + dt_tail};
      }
      power_c_below = power_c;
      power_c *= 0.5 * (1.0 - c);
    }
    power_b_below = power_b;
    power_b *= 0.5 * (1.0 - b);
  }
}

FLOWDG_HD inline void evaluate_basis(Shape shape, int p, Point3 xi, double* values, Point3* gradients) {
  switch (shape) {
    case Shape::line:
      line_basis(p, xi, values, gradients);
      break;
    case Shape::triangle:
      triangle_basis(p, xi, values, gradients);
      break;
    case Shape::quadrilateral:
      tensor_basis(p, 2, xi, values, gradients);
      break;
    case Shape::tetrahedron:
      tetrahedron_basis(p, xi, values, gradients);
      break;
    case Shape::hexahedron:
      tensor_basis(p, 3, xi, values, gradients);
      break;
    default:
      values[0] = 1.0;
      if (gradients != nullptr) gradients[0] = {0.0, 0.0, 0.0};
      break;
  }
}

}  // namespace detail

FLOWDG_HD inline double jacobi(int n, double alpha, double beta, double x) {
  return detail::jacobi_value(n, alpha, beta, x);
}

FLOWDG_HD inline double jacobi_derivative(int n, double alpha, double beta, double x) {
  return n == 0 ? 0.0 : 0.5 * (n + alpha + beta + 1.0) * jacobi(n - 1, alpha + 1.0, beta + 1.0, x);
}

FLOWDG_HD inline void basis_values(Shape shape, int p, Point3 xi, double* values) {
  detail::evaluate_basis(shape, p, xi, values, nullptr);
}

FLOWDG_HD inline void basis_gradients(Shape shape, int p, Point3 xi, double* values, Point3* gradients) {
  detail::evaluate_basis(shape, p, xi, values, gradients);
}

}  // namespace flowdg
