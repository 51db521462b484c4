#pragma once
// Physical-frame bases of the polytopic DG solver (issue 18 item 2; Dong, Georgoulis & Kappas 2021,
// section 3.1, after Cangiani, Georgoulis & Houston 2014): on each element, tensor products of
// orthonormal Legendre polynomials on the element's bounding box, restricted to the element, of
// total degree <= p (the space P_p, not Q_p), so an element of any shape has C(p + d, d) of them.
//
//   phi_m(x) = prod_{k < d} sqrt(2 a_k + 1) P_{a_k}(xi_k) / sqrt(|box|),  xi_k = (2 x_k - lo_k - hi_k) / (hi_k - lo_k),
//
// with P_n the Legendre polynomials on [-1, 1] and a the multi-index of phi_m; they are orthonormal on
// the box (not on the element: the element's mass matrix is close to, not equal to, the identity).
// Hierarchical numbering: by total degree s = 0, 1, ..., p; within one degree, the exponent of x
// descending, then (3D) the exponent of y descending: 2D 1, x, y, x^2, xy, y^2, ...; so the basis
// of degree p is the first basis_size(p, d) functions of any higher degree's, which lets elements of
// different degrees meet at a face and one kernel serve every degree up to its template bound.
// Evaluated directly at physical points, on the host or the device (FLOWDG_HD), by the three-term
// recurrences of P_n and P_n' = P_{n-2}' + (2n - 1) P_{n-1}.
#include <cmath>

#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"

namespace flowdg::poly {

/// The highest polynomial degree the solver supports (a compile-time bound of the kernels' arrays).
inline constexpr int max_degree = 6;

/// The number of basis functions of total degree <= p in d dimensions: C(p + d, d).
FLOWDG_HD constexpr int basis_size(int p, int d) {
  return d == 1 ? p + 1 : d == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
}

/// An element's bounding box as the basis needs it: the centre and the inverse half-widths of each
/// side, and 1 / sqrt(|box|).
struct BoxMap {
  double centre[3] = {0, 0, 0};
  double inverse_half[3] = {1, 1, 1};
  double scale = 1;  ///< 1 / sqrt(|box|)
};

/// The map of the box [lo, hi] in d dimensions (every side of positive length).
FLOWDG_HD inline BoxMap box_map(Point3 lo, Point3 hi, int d) {
  BoxMap map;
  const double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
  double volume = 1;
  for (int k = 0; k < d; ++k) {
    map.centre[k] = 0.5 * (l[k] + h[k]);
    map.inverse_half[k] = 2 / (h[k] - l[k]);
    volume *= h[k] - l[k];
  }
  map.scale = 1 / std::sqrt(volume);
  return map;
}

/// Normalised Legendre values sqrt(2n + 1) P_n(xi) for n <= p, and (with derivative) their
/// derivatives with respect to xi.
FLOWDG_HD inline void legendre_normalised(int p, double xi, double* value, double* derivative) {
  double P[max_degree + 1], dP[max_degree + 1];
  P[0] = 1;
  dP[0] = 0;
  if (p >= 1) {
    P[1] = xi;
    dP[1] = 1;
  }
  for (int n = 2; n <= p; ++n) {
    P[n] = ((2 * n - 1) * xi * P[n - 1] - (n - 1) * P[n - 2]) / n;
    dP[n] = dP[n - 2] + (2 * n - 1) * P[n - 1];
  }
  for (int n = 0; n <= p; ++n) {
    const double s = std::sqrt(2.0 * n + 1);
    value[n] = s * P[n];
    if (derivative) derivative[n] = s * dP[n];
  }
}

/// The basis_size(p, D) functions of degree <= p (p <= max_degree) at the physical point x:
/// value[m], and when gradient is not null gradient[D * m + k] = d phi_m / d x_k.
template <int D>
FLOWDG_HD inline void evaluate_basis(const BoxMap& box, int p, Point3 x, double* value, double* gradient) {
  static_assert(D == 2 || D == 3, "2D or 3D");
  const double coordinate[3] = {x.x, x.y, x.z};
  double L[D][max_degree + 1], dL[D][max_degree + 1];
  for (int k = 0; k < D; ++k) {
    const double xi = (coordinate[k] - box.centre[k]) * box.inverse_half[k];
    legendre_normalised(p, xi, L[k], gradient ? dL[k] : nullptr);
  }
  int m = 0;
  for (int s = 0; s <= p; ++s) {
    if constexpr (D == 2) {
      for (int a = s; a >= 0; --a) {
        const int b = s - a;
        value[m] = box.scale * L[0][a] * L[1][b];
        if (gradient) {
          gradient[2 * m + 0] = box.scale * dL[0][a] * box.inverse_half[0] * L[1][b];
          gradient[2 * m + 1] = box.scale * L[0][a] * dL[1][b] * box.inverse_half[1];
        }
        ++m;
      }
    } else {
      for (int a = s; a >= 0; --a)
        for (int b = s - a; b >= 0; --b) {
          const int c = s - a - b;
          value[m] = box.scale * L[0][a] * L[1][b] * L[2][c];
          if (gradient) {
            gradient[3 * m + 0] = box.scale * dL[0][a] * box.inverse_half[0] * L[1][b] * L[2][c];
            gradient[3 * m + 1] = box.scale * L[0][a] * dL[1][b] * box.inverse_half[1] * L[2][c];
            gradient[3 * m + 2] = box.scale * L[0][a] * L[1][b] * dL[2][c] * box.inverse_half[2];
          }
          ++m;
        }
    }
  }
}

}  // namespace flowdg::poly
