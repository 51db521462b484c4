#pragma once
// Preconditioners of the Krylov solvers (linalg/krylov.hpp): the identity, and block Jacobi, the
// inverses of the matrix's diagonal blocks (one dense block per DG element, sizes may differ per
// element), computed on the host and applied on either backend by a thread per row.
#include <string>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/linalg/csr.hpp"
#include "flowdg/linalg/ops.hpp"

namespace flowdg::linalg {

/// z = M^-1 r for an approximation M of the matrix. Real is float or double.
template <class Real>
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  /// z = M^-1 r; r and z (distinct) have the matrix's rows entries in space_of(backend).
  virtual void apply(Backend backend, View<const Real> r, View<Real> z) const = 0;
  /// A short name for messages: "identity", "block Jacobi (1200 blocks)".
  virtual std::string name() const = 0;
};

/// M = I: z = r.
template <class Real>
class IdentityPreconditioner final : public Preconditioner<Real> {
 public:
  void apply(Backend backend, View<const Real> r, View<Real> z) const override;
  std::string name() const override { return "identity"; }
};

/// M = the block diagonal of A. Block k is rows and columns [block_row[k], block_row[k+1]) of A
/// (entries of those rows outside the block are ignored); its inverse is computed on the host in
/// double precision (LU with full pivoting), rounded to Real and stored row-major, all blocks in
/// one flat array in `space`. Move-only.
template <class Real>
class BlockJacobi final : public Preconditioner<Real> {
 public:
  /// The inverses of A's diagonal blocks (A in any space: copied to the host to read them), stored
  /// in `space`. block_row: blocks + 1 ascending row offsets from 0 to A.rows (uniform_blocks for
  /// equal blocks), or to fewer rows: the blocks of A's leading rows, which is what a distributed
  /// rank applies to its own rows (linalg/distributed.hpp; its matrix has its own rows and every
  /// local column). Error: more rows than columns, block_row malformed (an empty block, not from 0,
  /// past A.rows). NumericalError: a singular (or non-finite) block, naming it and its rows.
  BlockJacobi(const CsrMatrix<Real>& A, const std::vector<index_t>& block_row, Space space);
  /// As above, stored in A's space.
  BlockJacobi(const CsrMatrix<Real>& A, const std::vector<index_t>& block_row)
      : BlockJacobi(A, block_row, A.space()) {}

  /// z = D^-1 r (a thread per row). Error: the inverses are not in space_of(backend).
  void apply(Backend backend, View<const Real> r, View<Real> z) const override;
  std::string name() const override;

  /// Number of diagonal blocks.
  index_t blocks() const { return block_row_.size() - 1; }
  /// Number of rows covered (block_row's last offset).
  index_t rows() const { return block_of_row_.size(); }
  /// The stored inverses and their offsets, for kernels.
  BlockInverseView<Real> view() const {
    return {block_row_.view(), block_of_row_.view(), inverse_start_.view(), inverse_.view()};
  }
  /// Bytes of the stored arrays.
  std::size_t bytes() const {
    return block_row_.bytes() + block_of_row_.bytes() + inverse_start_.bytes() + inverse_.bytes();
  }

 private:
  Array<index_t> block_row_;      ///< blocks + 1 row offsets
  Array<index_t> block_of_row_;   ///< per row: its block
  Array<index_t> inverse_start_;  ///< blocks + 1 offsets into inverse_
  Array<Real> inverse_;           ///< each block's inverse, row-major, one after the other
};

}  // namespace flowdg::linalg
