#include "flowdg/linalg/preconditioner.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstddef>

#include "flowdg/core/error.hpp"

namespace flowdg::linalg {

namespace {
std::size_t at(index_t i) { return static_cast<std::size_t>(i); }
}  // namespace

template <class Real>
void IdentityPreconditioner<Real>::apply(Backend backend, View<const Real> r, View<Real> z) const {
  copy<Real>(backend, r, z);
}

template <class Real>
BlockJacobi<Real>::BlockJacobi(const CsrMatrix<Real>& A, const std::vector<index_t>& block_row, Space space) {
  if (A.rows > A.cols) throw Error(cat("block Jacobi: the matrix is ", A.rows, " x ", A.cols, ", more rows than columns"));
  if (block_row.empty() || block_row.front() != 0 || block_row.back() > A.rows)
    throw Error(cat("block Jacobi: the block offsets must run from 0 to at most the matrix's ", A.rows, " rows (",
                    block_row.size(), " offsets given, the last ", block_row.empty() ? index_t{0} : block_row.back(), ")"));
  const index_t n_blocks = static_cast<index_t>(block_row.size()) - 1;
  std::vector<index_t> block_of_row(at(block_row.back())), inverse_start(at(n_blocks) + 1, 0);
  for (index_t k = 0; k < n_blocks; ++k) {
    const index_t n = block_row[at(k) + 1] - block_row[at(k)];
    if (n < 1)
      throw Error(cat("block Jacobi: block ", k, " is empty or reversed (rows ", block_row[at(k)], " to ",
                      block_row[at(k) + 1], ")"));
    for (index_t i = block_row[at(k)]; i < block_row[at(k) + 1]; ++i) block_of_row[at(i)] = k;
    inverse_start[at(k) + 1] = inverse_start[at(k)] + n * n;
  }

  const CsrMatrix<Real> host_copy = A.space() == Space::host ? CsrMatrix<Real>() : A.to_space(Space::host);
  const CsrMatrix<Real>& host = A.space() == Space::host ? A : host_copy;
  const Real* value = host.value.data();
  const index_t* row_start = host.row_start.data();
  const index_t* column = host.column.data();

  std::vector<Real> inverse(at(inverse_start.back()));
  Eigen::MatrixXd block;
  for (index_t k = 0; k < n_blocks; ++k) {
    const index_t r0 = block_row[at(k)], n = block_row[at(k) + 1] - r0;
    block.setZero(n, n);
    for (index_t i = 0; i < n; ++i)
      for (index_t e = row_start[r0 + i]; e < row_start[r0 + i + 1]; ++e) {
        const index_t j = column[e] - r0;
        if (j >= 0 && j < n) block(i, j) += static_cast<double>(value[e]);
      }
    if (!block.allFinite())
      throw NumericalError(cat("block Jacobi: diagonal block ", k, " (rows ", r0, " to ", r0 + n - 1,
                               ") has a non-finite entry"));
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(block);
    if (!lu.isInvertible())
      throw NumericalError(cat("block Jacobi: diagonal block ", k, " (rows ", r0, " to ", r0 + n - 1, ", ", n, " x ",
                               n, ") is singular: rank ", lu.rank(), " of ", n));
    const Eigen::MatrixXd block_inverse = lu.inverse();
    Real* out = inverse.data() + inverse_start[at(k)];
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) out[i * n + j] = static_cast<Real>(block_inverse(i, j));
  }

  block_row_ = Array<index_t>(space, block_row);
  block_of_row_ = Array<index_t>(space, block_of_row);
  inverse_start_ = Array<index_t>(space, inverse_start);
  inverse_ = Array<Real>(space, inverse);
}

template <class Real>
void BlockJacobi<Real>::apply(Backend backend, View<const Real> r, View<Real> z) const {
  if (inverse_.space() != space_of(backend))
    throw Error(cat("block Jacobi: the inverses are in ", inverse_.space() == Space::host ? "host" : "device",
                    " memory but the backend is ", to_string(backend)));
  apply_block_inverse(backend, view(), r, z);
}

template <class Real>
std::string BlockJacobi<Real>::name() const {
  return cat("block Jacobi (", blocks(), " blocks)");
}

template class IdentityPreconditioner<float>;
template class IdentityPreconditioner<double>;
template class BlockJacobi<float>;
template class BlockJacobi<double>;

}  // namespace flowdg::linalg
