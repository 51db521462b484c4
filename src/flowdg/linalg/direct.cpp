#include "flowdg/linalg/direct.hpp"

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>

#include "flowdg/core/error.hpp"

namespace flowdg::linalg {

namespace {
std::size_t at(index_t i) { return static_cast<std::size_t>(i); }
}  // namespace

template <class Real>
std::vector<Real> sparse_lu_solve(const CsrMatrix<Real>& A, const std::vector<Real>& b) {
  const index_t n = A.rows;
  const std::string size = cat(n, " x ", A.cols, " matrix");
  if (A.rows != A.cols) throw Error(cat("sparse LU: the ", size, " is not square"));
  if (static_cast<index_t>(b.size()) != n)
    throw Error(cat("sparse LU: the right-hand side has ", b.size(), " entries for the ", size));
  if (n > std::numeric_limits<int>::max() || A.nonzeros() > std::numeric_limits<int>::max())
    throw Error(cat("sparse LU: the ", size, " with ", A.nonzeros(), " entries is too large for the direct solve"));
  if (n == 0) return {};

  const std::vector<index_t> row_start = A.row_start.to_host(), column = A.column.to_host();
  const std::vector<Real> value = A.value.to_host();
  std::vector<Eigen::Triplet<double, int>> entries;
  entries.reserve(value.size());
  std::vector<char> column_used(at(n), 0);
  double norm_inf = 0;  // max row sum of |a_ij|
  for (index_t i = 0; i < n; ++i) {
    if (row_start[at(i)] == row_start[at(i) + 1])
      throw NumericalError(cat("sparse LU: the ", size, " is structurally singular: row ", i, " has no entries"));
    double row_sum = 0;
    for (index_t k = row_start[at(i)]; k < row_start[at(i) + 1]; ++k) {
      const double a = static_cast<double>(value[at(k)]);
      if (!std::isfinite(a))
        throw NumericalError(cat("sparse LU: the ", size, " has a non-finite entry at (", i, ", ", column[at(k)], ")"));
      entries.emplace_back(static_cast<int>(i), static_cast<int>(column[at(k)]), a);
      column_used[at(column[at(k)])] = 1;
      row_sum += std::abs(a);
    }
    norm_inf = std::max(norm_inf, row_sum);
  }
  for (index_t j = 0; j < n; ++j)
    if (!column_used[at(j)])
      throw NumericalError(cat("sparse LU: the ", size, " is structurally singular: column ", j, " has no entries"));

  Eigen::SparseMatrix<double, Eigen::ColMajor, int> matrix(static_cast<int>(n), static_cast<int>(n));
  matrix.setFromTriplets(entries.begin(), entries.end());
  matrix.makeCompressed();
  Eigen::SparseLU<Eigen::SparseMatrix<double, Eigen::ColMajor, int>, Eigen::COLAMDOrdering<int>> lu;
  lu.analyzePattern(matrix);
  lu.factorize(matrix);
  if (lu.info() != Eigen::Success)
    throw NumericalError(cat("sparse LU: the ", size, " is singular: the factorisation met an exact zero pivot ",
                             "(Eigen's SparseLU: ", lu.lastErrorMessage(), ")"));

  // Pivots (U's diagonal, kept in the supernodes of L) that rounding left instead of an exact zero.
  {
    const auto L = lu.matrixL();
    using Supernodal = std::remove_cvref_t<decltype(L.m_mapL)>;
    double largest = 0, smallest = std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(n); ++j)
      for (typename Supernodal::InnerIterator it(L.m_mapL, j); it; ++it)
        if (it.row() == j) {
          largest = std::max(largest, std::abs(it.value()));
          smallest = std::min(smallest, std::abs(it.value()));
          break;
        }
    if (!(smallest > static_cast<double>(n) * std::numeric_limits<double>::epsilon() * largest))
      throw NumericalError(cat("sparse LU: the ", size, " is numerically singular: its smallest pivot is ",
                               smallest, " against a largest of ", largest));
  }

  Eigen::VectorXd rhs(static_cast<Eigen::Index>(n));
  for (index_t i = 0; i < n; ++i) rhs(i) = static_cast<double>(b[at(i)]);
  const Eigen::VectorXd x = lu.solve(rhs);
  if (lu.info() != Eigen::Success || !x.allFinite())
    throw NumericalError(cat("sparse LU: the ", size, " is singular: the solve gave a non-finite solution"));
  const double backward_error_denominator = norm_inf * x.lpNorm<Eigen::Infinity>() + rhs.lpNorm<Eigen::Infinity>();
  const double residual = (rhs - matrix * x).lpNorm<Eigen::Infinity>();
  if (backward_error_denominator > 0 && residual > 1e-8 * backward_error_denominator)
    throw NumericalError(cat("sparse LU: the ", size, " is numerically singular: backward error ",
                             residual / backward_error_denominator, " of the solution"));

  std::vector<Real> solution(at(n));
  for (index_t i = 0; i < n; ++i) solution[at(i)] = static_cast<Real>(x(i));
  return solution;
}

template std::vector<float> sparse_lu_solve(const CsrMatrix<float>&, const std::vector<float>&);
template std::vector<double> sparse_lu_solve(const CsrMatrix<double>&, const std::vector<double>&);

}  // namespace flowdg::linalg
