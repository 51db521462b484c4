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

/// The number of basis functions of total degree <= p in d dimensions (any d; d + 1 for space-time): C(p + d, d).
FLOWDG_HD constexpr int basis_size(int p, int d) {
  int n = 1;  // C(p + k, k) for k = 1..d: each step's product is divisible by k
  for (int k = 1; k <= d; ++k) n = n * (p + k) / k;
  return n;
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
    legendre_normalised(p, xi, L[k], dL[k]);  // derivatives always (a few flops; no maybe-uninitialised reads)
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

// ---- space-time bases on prisms kappa x I_n (issue 19; Cangiani, Dong & Georgoulis 2017) ---------
//
// On a slab I_n = (t_{n-1}, t_n) of length dt every element kappa of the spatial mesh is a prism
// kappa x I_n; its basis is products of the spatial basis above and the normalised Legendre
// polynomials of tau = (2 t - t_{n-1} - t_n) / dt, scaled by 1 / sqrt(dt) (orthonormal on the
// prism's box), of one of two spaces:
//   reduced  P_p(kappa x I_n): space-time total degree <= p (the paper's "reduced complexity"
//            choice, Cangiani, Dong & Georgoulis 2017): time degree a = 0..p times the spatial
//            functions of degree <= p - a, basis_size(p, d + 1) functions;
//   full     P_q(I_n) x P_p(kappa): time degree a = 0..q times every spatial function of degree
//            <= p, (q + 1) basis_size(p, d) functions (the standard choice, Eriksson, Johnson &
//            Thomee 1985).
// Numbering: by time degree a, then the spatial function (hierarchical, so "the spatial functions of
// degree <= p - a" are the first basis_size(p - a, d)).

/// Which local space an element carries: the steady spatial P_p, or one of the two space-time ones.
enum class LocalSpace : int { spatial = 0, full = 1, reduced = 2 };

/// The number of local functions of degree p (time degree q for the full space) in d space dimensions.
FLOWDG_HD constexpr int local_size(int p, int d, LocalSpace space, int q) {
  return space == LocalSpace::spatial ? basis_size(p, d)
         : space == LocalSpace::full  ? (q + 1) * basis_size(p, d)
                                      : basis_size(p, d + 1);
}

/// The largest local size of a kernel of degree bound P: the full space with q = P bounds the
/// reduced one.
FLOWDG_HD constexpr int max_local_size(int P, int d, bool space_time) {
  return space_time ? (P + 1) * basis_size(P, d) : basis_size(P, d);
}

/// The highest space-time degree (the kernels' arrays grow as (P + 1) C(P + d, d)).
FLOWDG_HD constexpr int max_space_time_degree(int d) { return d == 2 ? 4 : 3; }

/// The time part of a slab: tau's scale 2 / dt and the basis's 1 / sqrt(dt).
struct SlabMap {
  double dt = 1;
  double time_scale = 2;  ///< d tau / dt = 2 / dt
  double norm = 1;        ///< 1 / sqrt(dt)
};

FLOWDG_HD inline SlabMap slab_map(double dt) {
  SlabMap m;
  m.dt = dt;
  m.time_scale = 2 / dt;
  m.norm = 1 / std::sqrt(dt);
  return m;
}

/// The space-time functions of element (box, p) at (x, tau): value[j], gradient[D j + k] (spatial),
/// and when time_derivative is not null d phi_j / dt. `spatial` and `spatial_gradient` are scratch
/// of basis_size(p, D) and D basis_size(p, D) entries.
template <int D>
FLOWDG_HD inline void evaluate_space_time(const BoxMap& box, int p, LocalSpace space, int q, const SlabMap& slab, Point3 x,
                                          double tau, double* spatial, double* spatial_gradient, double* value,
                                          double* gradient, double* time_derivative) {
  evaluate_basis<D>(box, p, x, spatial, gradient ? spatial_gradient : nullptr);
  const int top = space == LocalSpace::full ? q : p;
  double L[max_degree + 1], dL[max_degree + 1];
  legendre_normalised(top, tau, L, dL);
  const int ns = basis_size(p, D);
  int j = 0;
  for (int a = 0; a <= top; ++a) {
    const int n = space == LocalSpace::full ? ns : basis_size(p - a, D);
    const double l = L[a] * slab.norm, dl = dL[a] * slab.time_scale * slab.norm;
    for (int m = 0; m < n; ++m, ++j) {
      value[j] = l * spatial[m];
      if (gradient)
        for (int k = 0; k < D; ++k) gradient[D * j + k] = l * spatial_gradient[D * m + k];
      if (time_derivative) time_derivative[j] = dl * spatial[m];
    }
  }
}

}  // namespace flowdg::poly
