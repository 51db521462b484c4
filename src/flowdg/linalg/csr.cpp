#include "flowdg/linalg/csr.hpp"

#include <algorithm>
#include <cstddef>

#include "flowdg/core/error.hpp"

namespace flowdg::linalg {

namespace {
std::size_t at(index_t i) { return static_cast<std::size_t>(i); }
}  // namespace

template <class Real>
CsrMatrix<Real>::CsrMatrix(Space space, index_t rows_, index_t cols_, index_t nonzeros)
    : rows(rows_), cols(cols_), row_start(space, rows_ + 1), column(space, nonzeros), value(space, nonzeros) {
  if (rows_ < 0 || cols_ < 0 || nonzeros < 0)
    throw Error(cat("CSR matrix: negative size ", rows_, " x ", cols_, " with ", nonzeros, " entries"));
}

template <class Real>
CsrMatrix<Real>::CsrMatrix(Space space, index_t rows_, index_t cols_, const std::vector<index_t>& row_start_,
                           const std::vector<index_t>& column_, const std::vector<Real>& value_)
    : rows(rows_), cols(cols_) {
  if (rows_ < 0 || cols_ < 0) throw Error(cat("CSR matrix: negative size ", rows_, " x ", cols_));
  if (static_cast<index_t>(row_start_.size()) != rows_ + 1)
    throw Error(cat("CSR matrix: ", row_start_.size(), " row offsets for ", rows_, " rows (expected rows + 1)"));
  if (column_.size() != value_.size())
    throw Error(cat("CSR matrix: ", column_.size(), " columns but ", value_.size(), " values"));
  if (row_start_[0] != 0 || row_start_[at(rows_)] != static_cast<index_t>(column_.size()))
    throw Error(cat("CSR matrix: row offsets run from ", row_start_[0], " to ", row_start_[at(rows_)],
                    ", expected 0 to ", column_.size()));
  for (index_t i = 0; i < rows_; ++i) {
    if (row_start_[at(i + 1)] < row_start_[at(i)])
      throw Error(cat("CSR matrix: row ", i, " ends (", row_start_[at(i + 1)], ") before it starts (",
                      row_start_[at(i)], ")"));
    for (index_t k = row_start_[at(i)]; k < row_start_[at(i + 1)]; ++k) {
      const index_t j = column_[at(k)];
      if (j < 0 || j >= cols_)
        throw Error(cat("CSR matrix: row ", i, " has column ", j, " outside 0..", cols_ - 1));
      if (k > row_start_[at(i)] && j <= column_[at(k - 1)])
        throw Error(cat("CSR matrix: row ", i, "'s columns are not strictly ascending (", column_[at(k - 1)],
                        " then ", j, ")"));
    }
  }
  row_start = Array<index_t>(space, row_start_);
  column = Array<index_t>(space, column_);
  value = Array<Real>(space, value_);
}

template <class Real>
CsrMatrix<Real> CsrMatrix<Real>::to_space(Space destination) const {
  CsrMatrix copy(destination, rows, cols, nonzeros());
  copy.row_start.copy_from(row_start);
  copy.column.copy_from(column);
  copy.value.copy_from(value);
  return copy;
}

template <class Real>
CsrMatrix<Real> csr_from_coo(const CooMatrix<Real>& coo, Space space) {
  const index_t n = coo.entries();
  if (coo.row.size() != coo.value.size() || coo.column.size() != coo.value.size())
    throw Error(cat("COO matrix: ", coo.row.size(), " rows, ", coo.column.size(), " columns and ", coo.value.size(),
                    " values (the three lists must have one entry each)"));
  if (coo.rows < 0 || coo.cols < 0) throw Error(cat("COO matrix: negative size ", coo.rows, " x ", coo.cols));
  // Bucket the entries by row, keeping their order within a row (a stable counting sort).
  std::vector<index_t> count(at(coo.rows) + 1, 0);
  for (index_t k = 0; k < n; ++k) {
    const index_t i = coo.row[at(k)], j = coo.column[at(k)];
    if (i < 0 || i >= coo.rows || j < 0 || j >= coo.cols)
      throw Error(cat("COO matrix: entry ", k, " at (", i, ", ", j, ") lies outside the ", coo.rows, " x ", coo.cols,
                      " matrix"));
    ++count[at(i) + 1];
  }
  for (index_t i = 0; i < coo.rows; ++i) count[at(i) + 1] += count[at(i)];
  std::vector<index_t> order(at(n));
  {
    std::vector<index_t> next(count.begin(), count.end() - 1);
    for (index_t k = 0; k < n; ++k) order[at(next[at(coo.row[at(k)])]++)] = k;
  }
  // Within each row: stable by column, then each run of one column summed in input order.
  std::vector<index_t> row_start(at(coo.rows) + 1, 0), column;
  std::vector<Real> value;
  column.reserve(at(n));
  value.reserve(at(n));
  for (index_t i = 0; i < coo.rows; ++i) {
    const auto first = order.begin() + count[at(i)], last = order.begin() + count[at(i) + 1];
    std::stable_sort(first, last, [&](index_t a, index_t b) { return coo.column[at(a)] < coo.column[at(b)]; });
    for (auto k = first; k != last; ++k) {
      const index_t j = coo.column[at(*k)];
      if (k != first && j == column.back())
        value.back() += coo.value[at(*k)];
      else {
        column.push_back(j);
        value.push_back(coo.value[at(*k)]);
      }
    }
    row_start[at(i) + 1] = static_cast<index_t>(column.size());
  }
  return CsrMatrix<Real>(space, coo.rows, coo.cols, row_start, column, value);
}

template <class Real>
std::vector<Real> to_dense(const CsrMatrix<Real>& matrix) {
  const std::vector<index_t> row_start = matrix.row_start.to_host(), column = matrix.column.to_host();
  const std::vector<Real> value = matrix.value.to_host();
  std::vector<Real> dense(at(matrix.rows) * at(matrix.cols), Real(0));
  for (index_t i = 0; i < matrix.rows; ++i)
    for (index_t k = row_start[at(i)]; k < row_start[at(i + 1)]; ++k)
      dense[at(i) * at(matrix.cols) + at(column[at(k)])] += value[at(k)];
  return dense;
}

std::vector<index_t> uniform_blocks(index_t rows, index_t size) {
  if (size < 1) throw Error(cat("block size ", size, " (must be at least 1)"));
  std::vector<index_t> offsets{0};
  for (index_t start = 0; start < rows; start += size) offsets.push_back(std::min(rows, start + size));
  return offsets;
}

template struct CsrMatrix<float>;
template struct CsrMatrix<double>;
template CsrMatrix<float> csr_from_coo(const CooMatrix<float>&, Space);
template CsrMatrix<double> csr_from_coo(const CooMatrix<double>&, Space);
template std::vector<float> to_dense(const CsrMatrix<float>&);
template std::vector<double> to_dense(const CsrMatrix<double>&);

}  // namespace flowdg::linalg
