#include "flowdg/linalg/direct.hpp"

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "flowdg/core/error.hpp"

namespace flowdg::linalg {

namespace {
std::size_t at(index_t i) { return static_cast<std::size_t>(i); }
}  // namespace

struct SparseLu::Impl {
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> matrix;
  Eigen::SparseLU<Eigen::SparseMatrix<double, Eigen::ColMajor, int>, Eigen::COLAMDOrdering<int>> lu;
  double norm_inf = 0;  // max row sum of |a_ij|
  index_t n = 0;
  std::string size;
};

template <class Real>
SparseLu::SparseLu(const CsrMatrix<Real>& A) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  const index_t n = A.rows;
  m.n = n;
  m.size = cat(n, " x ", A.cols, " matrix");
  const std::string& size = m.size;
  if (A.rows != A.cols) throw Error(cat("sparse LU: the ", size, " is not square"));
  if (n > std::numeric_limits<int>::max() || A.nonzeros() > std::numeric_limits<int>::max())
    throw Error(cat("sparse LU: the ", size, " with ", A.nonzeros(), " entries is too large for the direct solve"));
  if (n == 0) return;

  const std::vector<index_t> row_start = A.row_start.to_host(), column = A.column.to_host();
  const std::vector<Real> value = A.value.to_host();
  std::vector<Eigen::Triplet<double, int>> entries;
  entries.reserve(value.size());
  std::vector<char> column_used(at(n), 0);
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
    m.norm_inf = std::max(m.norm_inf, row_sum);
  }
  for (index_t j = 0; j < n; ++j)
    if (!column_used[at(j)])
      throw NumericalError(cat("sparse LU: the ", size, " is structurally singular: column ", j, " has no entries"));

  m.matrix.resize(static_cast<int>(n), static_cast<int>(n));
  m.matrix.setFromTriplets(entries.begin(), entries.end());
  m.matrix.makeCompressed();
  m.lu.analyzePattern(m.matrix);
  m.lu.factorize(m.matrix);
  if (m.lu.info() != Eigen::Success)
    throw NumericalError(cat("sparse LU: the ", size, " is singular: the factorisation met an exact zero pivot ",
                             "(Eigen's SparseLU: ", m.lu.lastErrorMessage(), ")"));

  // Pivots (U's diagonal, kept in the supernodes of L) that rounding left instead of an exact zero.
  {
    const auto L = m.lu.matrixL();
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
}

SparseLu::~SparseLu() = default;
SparseLu::SparseLu(SparseLu&&) noexcept = default;
SparseLu& SparseLu::operator=(SparseLu&&) noexcept = default;

index_t SparseLu::rows() const { return impl_->n; }

template <class Real>
std::vector<Real> SparseLu::solve(const std::vector<Real>& b) const {
  Impl& m = *impl_;
  const index_t n = m.n;
  if (static_cast<index_t>(b.size()) != n)
    throw Error(cat("sparse LU: the right-hand side has ", b.size(), " entries for the ", m.size));
  if (n == 0) return {};
  Eigen::VectorXd rhs(static_cast<Eigen::Index>(n));
  for (index_t i = 0; i < n; ++i) rhs(i) = static_cast<double>(b[at(i)]);
  const Eigen::VectorXd x = m.lu.solve(rhs);
  if (m.lu.info() != Eigen::Success || !x.allFinite())
    throw NumericalError(cat("sparse LU: the ", m.size, " is singular: the solve gave a non-finite solution"));
  const double backward_error_denominator = m.norm_inf * x.lpNorm<Eigen::Infinity>() + rhs.lpNorm<Eigen::Infinity>();
  const double residual = (rhs - m.matrix * x).lpNorm<Eigen::Infinity>();
  if (backward_error_denominator > 0 && residual > 1e-8 * backward_error_denominator)
    throw NumericalError(cat("sparse LU: the ", m.size, " is numerically singular: backward error ",
                             residual / backward_error_denominator, " of the solution"));

  std::vector<Real> solution(at(n));
  for (index_t i = 0; i < n; ++i) solution[at(i)] = static_cast<Real>(x(i));
  return solution;
}

template <class Real>
std::vector<Real> sparse_lu_solve(const CsrMatrix<Real>& A, const std::vector<Real>& b) {
  if (A.rows == A.cols && static_cast<index_t>(b.size()) != A.rows)
    throw Error(cat("sparse LU: the right-hand side has ", b.size(), " entries for the ", A.rows, " x ", A.cols, " matrix"));
  return SparseLu(A).solve(b);
}

template SparseLu::SparseLu(const CsrMatrix<float>&);
template SparseLu::SparseLu(const CsrMatrix<double>&);
template std::vector<float> SparseLu::solve(const std::vector<float>&) const;
template std::vector<double> SparseLu::solve(const std::vector<double>&) const;
template std::vector<float> sparse_lu_solve(const CsrMatrix<float>&, const std::vector<float>&);
template std::vector<double> sparse_lu_solve(const CsrMatrix<double>&, const std::vector<double>&);

}  // namespace flowdg::linalg
