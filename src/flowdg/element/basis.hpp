#pragma once
// Modal orthonormal bases on the reference elements, usable in device code.
//   triangle, tetrahedron: Dubiner/Koornwinder, built from Jacobi polynomials (collapsed coordinates)
//   quadrilateral, hexahedron: tensor products of normalised Legendre polynomials
//   line: normalised Legendre polynomials
// Orthonormal on the reference element: integral over the reference element of phi_i phi_j is
// delta_ij. Hierarchical: the first n_basis(shape, q) functions span the degree-q space for every
// q <= p (total degree P_q on simplices, Q_q on tensor shapes), so raising p is an embedding.
// Header-only (inline FLOWDG_HD): kernels compiled by nvcc call these without separate compilation.
// Ordering: simplices by total degree, then lexicographically; tensor shapes by max degree shells.
#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/element/reference_element.hpp"

namespace flowdg {

/// Largest order the basis functions support.
inline constexpr int max_basis_order = 10;

FLOWDG_HD constexpr int n_basis(Shape shape, int p) {
  switch (shape) {
    case Shape::line: return p + 1;
    case Shape::triangle: return (p + 1) * (p + 2) / 2;
    case Shape::quadrilateral: return (p + 1) * (p + 1);
    case Shape::tetrahedron: return (p + 1) * (p + 2) * (p + 3) / 6;
    case Shape::hexahedron: return (p + 1) * (p + 1) * (p + 1);
    default: return 1;
  }
}

/// Index of the quadrilateral function L_i(x) L_j(y): shells of max degree m = max(i, j), within a
/// shell lexicographic in (i, j) — (0, m), (1, m), ..., (m - 1, m), (m, 0), ..., (m, m).
FLOWDG_HD constexpr int quadrilateral_mode(int i, int j) {
  const int m = i > j ? i : j;
  return i < m ? m * m + i : m * m + m + j;
}

/// Jacobi polynomial P_n^{(alpha,beta)}(x) (classical normalisation, P_n(1) = binom(n+alpha, n)).
FLOWDG_HD inline double jacobi(int n, double alpha, double beta, double x);
/// d/dx P_n^{(alpha,beta)}(x).
FLOWDG_HD inline double jacobi_derivative(int n, double alpha, double beta, double x);

/// values[i] = phi_i(xi) for i < n_basis(shape, p).
FLOWDG_HD inline void basis_values(Shape shape, int p, Point3 xi, double* values);
/// values as above and gradients[i] = grad phi_i(xi) with respect to the reference coordinates
/// (components beyond the shape's dimension are zero). Finite at collapsed vertices.
FLOWDG_HD inline void basis_gradients(Shape shape, int p, Point3 xi, double* values, Point3* gradients);

}  // namespace flowdg

#include "flowdg/element/basis_impl.hpp"
