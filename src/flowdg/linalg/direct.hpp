#pragma once
// A sparse direct solve on the host for small problems (issue 18): Eigen's supernodal SparseLU
// (COLAMD ordering, partial pivoting with a preference for the diagonal), in double precision.
#include <memory>
#include <vector>

#include "flowdg/linalg/csr.hpp"

namespace flowdg::linalg {

/// The solution x of A x = b (A square, in any space: copied to the host; b of A.rows entries). The
/// factorisation and the solve run in double whatever Real is; x is rounded to Real. Error: A not
/// square, b of the wrong size, more than 2^31 - 1 rows or entries. NumericalError, naming the
/// matrix size and the reason: a non-finite entry; A structurally singular (an empty row or column,
/// an exact zero pivot); A numerically singular (a pivot below n eps times the largest, as the
/// rounding of a rank-deficient matrix such as a pure-Neumann Laplacian leaves); a non-finite
/// solution or one whose backward error ||b - A x|| / (||A||_inf ||x|| + ||b||) (infinity norms)
/// exceeds 1e-8.
template <class Real>
std::vector<Real> sparse_lu_solve(const CsrMatrix<Real>& A, const std::vector<Real>& b);

/// The factorisation kept for many right-hand sides (space-time slabs whose matrix does not change):
/// the constructor factors (the errors above on the matrix), solve() solves (the errors above on
/// the solution).
class SparseLu {
 public:
  template <class Real>
  explicit SparseLu(const CsrMatrix<Real>& A);
  ~SparseLu();
  SparseLu(SparseLu&&) noexcept;
  SparseLu& operator=(SparseLu&&) noexcept;
  template <class Real>
  std::vector<Real> solve(const std::vector<Real>& b) const;
  index_t rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flowdg::linalg
