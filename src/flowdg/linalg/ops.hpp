#pragma once
// Vector primitives and SpMV of the Krylov solvers, on either backend: each is one for_each or
// reduce launch (defined in linalg_kernels.cpp, which nvcc compiles when CUDA is on) of a functor
// below. Vectors are Views of n entries in the backend's space (space_of(backend)); Real is float or
// double. Reductions accumulate in double and are deterministic (backend/for_each.hpp: the same
// thread count gives the same bits on the CPU, the fixed block tree on the GPU). Real is deduced
// from the matrix or the output view (inputs and scalars convert); dot and norm2 have none, so name
// it when passing mutable views: dot<Real>(backend, x, y).
#include <type_traits>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/core/hd.hpp"
#include "flowdg/linalg/csr.hpp"

namespace flowdg::linalg {

/// A read-only vector parameter that does not take part in deducing Real (a View<Real> converts to
/// it), so that calls with mutable and read-only views mix freely.
template <class Real>
using InputView = View<const std::type_identity_t<Real>>;

/// y = A x: a thread per row, each row summed in column order. x has A.cols entries, y A.rows.
template <class Real>
void spmv(Backend backend, const CsrMatrix<Real>& A, InputView<Real> x, View<Real> y);
/// y = the first `rows` rows of A x (a distributed rank's own rows: linalg/distributed.hpp); x has
/// A.cols entries, y `rows`.
template <class Real>
void spmv_rows(Backend backend, const CsrMatrix<Real>& A, index_t rows, InputView<Real> x, View<Real> y);
/// out[i] = x[index[i]] (packing a halo's send entries).
template <class Real>
void gather(Backend backend, View<const index_t> index, InputView<Real> x, View<Real> out);
/// y[index[i]] = values[i] (unpacking a halo's received entries).
template <class Real>
void scatter(Backend backend, View<const index_t> index, InputView<Real> values, View<Real> y);
/// r = b - A x (one pass; A square).
template <class Real>
void residual(Backend backend, const CsrMatrix<Real>& A, InputView<Real> b, InputView<Real> x, View<Real> r);
/// The inner product x . y, accumulated in double.
template <class Real>
double dot(Backend backend, View<const Real> x, View<const Real> y);
/// The Euclidean norm ||x||_2, accumulated in double.
template <class Real>
double norm2(Backend backend, View<const Real> x);
/// h[k] = V_k . w for the `count` vectors V_k = basis + k stride (w.size() entries each), in
/// double: on the device one pair of launches and one transfer for all of them (GMRES's classical
/// Gram-Schmidt), deterministic like dot. h: `count` host values.
template <class Real>
void multi_dot(Backend backend, const Real* basis, index_t stride, int count, InputView<Real> w, double* h);
/// w -= sum_k h[k] V_k (the same vectors; h: `count` values in space_of(backend)).
template <class Real>
void multi_axpy(Backend backend, const Real* basis, index_t stride, int count, View<const double> h, View<Real> w);
/// y = a x + y.
template <class Real>
void axpy(Backend backend, std::type_identity_t<Real> a, InputView<Real> x, View<Real> y);
/// y = x + a y.
template <class Real>
void xpay(Backend backend, InputView<Real> x, std::type_identity_t<Real> a, View<Real> y);
/// y = x.
template <class Real>
void copy(Backend backend, InputView<Real> x, View<Real> y);
/// x = a x.
template <class Real>
void scale(Backend backend, std::type_identity_t<Real> a, View<Real> x);
/// x = value everywhere.
template <class Real>
void fill(Backend backend, std::type_identity_t<Real> value, View<Real> x);

/// The arrays of a block-diagonal inverse (BlockJacobi): block k covers rows [block_row[k],
/// block_row[k+1]) and its n_k x n_k inverse lies row-major at inverse[inverse_start[k]...].
template <class Real>
struct BlockInverseView {
  View<const index_t> block_row;      ///< blocks + 1 row offsets
  View<const index_t> block_of_row;   ///< per row: its block
  View<const index_t> inverse_start;  ///< blocks + 1 offsets into inverse (sum of n_k^2)
  View<const Real> inverse;           ///< the inverses, one after the other, each row-major
};
/// z = D^-1 r with D^-1 the block-diagonal inverse: a thread per row.
template <class Real>
void apply_block_inverse(Backend backend, const BlockInverseView<Real>& blocks, InputView<Real> r, View<Real> z);

// ---- the functors (one thread per index) ----------------------------------------------------

/// y[i] = sum_k value[k] x[column[k]] over row i.
template <class Real>
struct SpmvRow {
  CsrView<Real> A;
  View<const Real> x;
  View<Real> y;
  FLOWDG_HD void operator()(index_t i) const {
    Real sum = 0;
    for (index_t k = A.row_start[i]; k < A.row_start[i + 1]; ++k) sum += A.value[k] * x[A.column[k]];
    y[i] = sum;
  }
};

/// out[i] = x[index[i]].
template <class Real>
struct GatherEntry {
  View<const index_t> index;
  View<const Real> x;
  View<Real> out;
  FLOWDG_HD void operator()(index_t i) const { out[i] = x[index[i]]; }
};

/// y[index[i]] = values[i].
template <class Real>
struct ScatterEntry {
  View<const index_t> index;
  View<const Real> values;
  View<Real> y;
  FLOWDG_HD void operator()(index_t i) const { y[index[i]] = values[i]; }
};

/// r[i] = b[i] - (A x)[i].
template <class Real>
struct ResidualRow {
  CsrView<Real> A;
  View<const Real> b, x;
  View<Real> r;
  FLOWDG_HD void operator()(index_t i) const {
    Real sum = 0;
    for (index_t k = A.row_start[i]; k < A.row_start[i + 1]; ++k) sum += A.value[k] * x[A.column[k]];
    r[i] = b[i] - sum;
  }
};

/// x[i] y[i] in double (a reduce_sum term).
template <class Real>
struct DotTerm {
  View<const Real> x, y;
  FLOWDG_HD double operator()(index_t i) const { return static_cast<double>(x[i]) * static_cast<double>(y[i]); }
};

/// w[i] -= sum_k h[k] V_k[i].
template <class Real>
struct MultiAxpyEntry {
  const Real* basis;
  index_t stride;
  int count;
  View<const double> h;
  View<Real> w;
  FLOWDG_HD void operator()(index_t i) const {
    double sum = 0;
    for (int k = 0; k < count; ++k) sum += h[k] * static_cast<double>(basis[k * stride + i]);
    w[i] = static_cast<Real>(static_cast<double>(w[i]) - sum);
  }
};

/// y[i] = a x[i] + y[i].
template <class Real>
struct Axpy {
  Real a;
  View<const Real> x;
  View<Real> y;
  FLOWDG_HD void operator()(index_t i) const { y[i] = a * x[i] + y[i]; }
};

/// y[i] = x[i] + a y[i].
template <class Real>
struct Xpay {
  View<const Real> x;
  Real a;
  View<Real> y;
  FLOWDG_HD void operator()(index_t i) const { y[i] = x[i] + a * y[i]; }
};

/// y[i] = x[i].
template <class Real>
struct CopyEntry {
  View<const Real> x;
  View<Real> y;
  FLOWDG_HD void operator()(index_t i) const { y[i] = x[i]; }
};

/// x[i] = a x[i].
template <class Real>
struct ScaleEntry {
  Real a;
  View<Real> x;
  FLOWDG_HD void operator()(index_t i) const { x[i] = a * x[i]; }
};

/// x[i] = value.
template <class Real>
struct FillEntry {
  Real value;
  View<Real> x;
  FLOWDG_HD void operator()(index_t i) const { x[i] = value; }
};

/// z[i] = sum_j inverse_k[i - r0][j] r[r0 + j] over row i's block k (rows r0..r0 + n_k - 1).
template <class Real>
struct BlockInverseRow {
  BlockInverseView<Real> blocks;
  View<const Real> r;
  View<Real> z;
  FLOWDG_HD void operator()(index_t i) const {
    const index_t k = blocks.block_of_row[i];
    const index_t r0 = blocks.block_row[k], n = blocks.block_row[k + 1] - r0;
    const Real* row = blocks.inverse.data + blocks.inverse_start[k] + (i - r0) * n;
    Real sum = 0;
    for (index_t j = 0; j < n; ++j) sum += row[j] * r[r0 + j];
    z[i] = sum;
  }
};

}  // namespace flowdg::linalg
