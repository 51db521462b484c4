#pragma once
// Sparse matrices of the implicit solvers (issue 18): a host coordinate list (COO) as assembly
// writes it, duplicates included, and the compressed sparse row (CSR) matrix that SpMV, the
// preconditioners and the direct solve read, in one memory space. Real is float or double.
#include <vector>

#include "flowdg/backend/memory.hpp"
#include "flowdg/core/hd.hpp"

namespace flowdg::linalg {

/// A host coordinate list: entry k is (row[k], column[k], value[k]). Duplicates are allowed and are
/// summed by csr_from_coo; the order of the entries is the order of that sum.
template <class Real>
struct CooMatrix {
  index_t rows = 0;             ///< the matrix's rows
  index_t cols = 0;             ///< the matrix's columns
  std::vector<index_t> row;     ///< per entry: its row
  std::vector<index_t> column;  ///< per entry: its column
  std::vector<Real> value;      ///< per entry: its value

  CooMatrix() = default;
  /// An empty list for a rows x cols matrix.
  CooMatrix(index_t rows_, index_t cols_) : rows(rows_), cols(cols_) {}
  /// Appends the entry (i, j, v).
  void add(index_t i, index_t j, Real v) {
    row.push_back(i);
    column.push_back(j);
    value.push_back(v);
  }
  /// Number of entries, duplicates counted.
  index_t entries() const { return static_cast<index_t>(value.size()); }
};

/// The read-only arrays of a CSR matrix, copied by value into kernels.
template <class Real>
struct CsrView {
  index_t rows = 0;               ///< the matrix's rows
  index_t cols = 0;               ///< the matrix's columns
  View<const index_t> row_start;  ///< rows + 1 offsets into column/value
  View<const index_t> column;     ///< per stored entry: its column, ascending within a row
  View<const Real> value;         ///< per stored entry: its value
};

/// A compressed sparse row matrix in one memory space (move-only, as its Arrays). Row i's entries
/// are k in [row_start[i], row_start[i+1]), at columns column[k] (strictly ascending within the row)
/// with values value[k]. Explicit zeros are kept: the pattern is what assembly produced.
template <class Real>
struct CsrMatrix {
  index_t rows = 0;          ///< the matrix's rows
  index_t cols = 0;          ///< the matrix's columns
  Array<index_t> row_start;  ///< rows + 1 offsets into column and value
  Array<index_t> column;     ///< per stored entry: its column, strictly ascending within a row
  Array<Real> value;         ///< per stored entry: its value

  CsrMatrix() = default;
  /// A matrix of `rows` x `cols` with `nonzeros` stored entries in `space`, arrays uninitialised.
  CsrMatrix(Space space, index_t rows_, index_t cols_, index_t nonzeros);
  /// From host arrays (row_start of rows + 1 entries from 0 to column.size(), columns in range and
  /// strictly ascending within each row, as many values as columns), copied to `space`. Error: a
  /// malformed structure, naming the first offending row.
  CsrMatrix(Space space, index_t rows_, index_t cols_, const std::vector<index_t>& row_start_,
            const std::vector<index_t>& column_, const std::vector<Real>& value_);

  /// Number of stored entries.
  index_t nonzeros() const { return value.size(); }
  /// The space the arrays live in.
  Space space() const { return row_start.space(); }
  /// A copy of the matrix in `space` (same space: a plain copy).
  CsrMatrix to_space(Space destination) const;
  /// The arrays as views, for kernels.
  CsrView<Real> view() const { return {rows, cols, row_start.view(), column.view(), value.view()}; }
  /// Bytes of the three arrays.
  std::size_t bytes() const { return row_start.bytes() + column.bytes() + value.bytes(); }
};

/// The CSR matrix of a coordinate list, in `space`: the entries sorted by (row, column) and each
/// (row, column)'s duplicates summed in the order they appear in `coo`, so the result is the same
/// bits for the same list whatever the machine. Error: an entry outside rows x cols, arrays of
/// different lengths.
template <class Real>
CsrMatrix<Real> csr_from_coo(const CooMatrix<Real>& coo, Space space = Space::host);

/// The matrix as a dense row-major rows x cols host array (tests and small debugging only).
template <class Real>
std::vector<Real> to_dense(const CsrMatrix<Real>& matrix);

/// Block offsets of equal blocks: 0, size, 2 size, ..., rows (the last block shorter when size does
/// not divide rows); the block rows of BlockJacobi for elements of one basis size. Error: size < 1.
std::vector<index_t> uniform_blocks(index_t rows, index_t size);

}  // namespace flowdg::linalg
