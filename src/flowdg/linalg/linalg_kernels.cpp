// The launches of linalg/ops.hpp's functors (nvcc compiles this file when CUDA is on).
#include <algorithm>
#include <cmath>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/linalg/ops.hpp"

namespace flowdg::linalg {

namespace {
void check_sizes(const char* what, index_t a, index_t b) {
  if (a != b) throw Error(cat("linalg ", what, ": vector sizes ", a, " and ", b, " differ"));
}
template <class Real>
void check_matrix(const char* what, Backend backend, const CsrMatrix<Real>& A) {
  if (A.space() != space_of(backend))
    throw Error(cat("linalg ", what, ": the matrix is in ", A.space() == Space::host ? "host" : "device",
                    " memory but the backend is ", to_string(backend)));
}
}  // namespace

template <class Real>
void spmv(Backend backend, const CsrMatrix<Real>& A, InputView<Real> x, View<Real> y) {
  check_matrix("spmv", backend, A);
  check_sizes("spmv (x against the matrix's columns)", x.size(), A.cols);
  check_sizes("spmv (y against the matrix's rows)", y.size(), A.rows);
  for_each(backend, A.rows, SpmvRow<Real>{A.view(), x, y});
}

template <class Real>
void spmv_rows(Backend backend, const CsrMatrix<Real>& A, index_t rows, InputView<Real> x, View<Real> y) {
  check_matrix("spmv_rows", backend, A);
  check_sizes("spmv_rows (x against the matrix's columns)", x.size(), A.cols);
  check_sizes("spmv_rows (y against the rows asked for)", y.size(), rows);
  if (rows < 0 || rows > A.rows) throw Error(cat("linalg spmv_rows: ", rows, " rows of a matrix of ", A.rows));
  for_each(backend, rows, SpmvRow<Real>{A.view(), x, y});
}

template <class Real>
void gather(Backend backend, View<const index_t> index, InputView<Real> x, View<Real> out) {
  check_sizes("gather (indices against the output)", index.size(), out.size());
  for_each(backend, out.size(), GatherEntry<Real>{index, x, out});
}

template <class Real>
void scatter(Backend backend, View<const index_t> index, InputView<Real> values, View<Real> y) {
  check_sizes("scatter (indices against the values)", index.size(), values.size());
  for_each(backend, values.size(), ScatterEntry<Real>{index, values, y});
}

template <class Real>
void residual(Backend backend, const CsrMatrix<Real>& A, InputView<Real> b, InputView<Real> x, View<Real> r) {
  check_matrix("residual", backend, A);
  check_sizes("residual (x against the matrix's columns)", x.size(), A.cols);
  check_sizes("residual (b against the matrix's rows)", b.size(), A.rows);
  check_sizes("residual (r against the matrix's rows)", r.size(), A.rows);
  for_each(backend, A.rows, ResidualRow<Real>{A.view(), b, x, r});
}

template <class Real>
double dot(Backend backend, View<const Real> x, View<const Real> y) {
  check_sizes("dot", x.size(), y.size());
  return reduce_sum<double>(backend, x.size(), DotTerm<Real>{x, y});
}

template <class Real>
double norm2(Backend backend, View<const Real> x) {
  return std::sqrt(reduce_sum<double>(backend, x.size(), DotTerm<Real>{x, x}));
}

#if defined(__CUDACC__)
namespace {
constexpr int multi_dot_block = 256;

/// Block (x, k): the partial sum of V_k . w over its grid-stride share, into partial[k * gridDim.x + x].
template <class Real>
__global__ void multi_dot_blocks(const Real* basis, index_t stride, index_t n, const Real* w, double* partial) {
  __shared__ double shared[multi_dot_block];
  const int k = blockIdx.y;
  const Real* v = basis + k * stride;
  double sum = 0;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += static_cast<index_t>(gridDim.x) * blockDim.x)
    sum += static_cast<double>(v[i]) * static_cast<double>(w[i]);
  const double total = detail::block_reduce(sum, SumOp{}, shared);
  if (threadIdx.x == 0) partial[k * gridDim.x + blockIdx.x] = total;
}

/// Block k: the sum of vector k's partials, into out[k].
__global__ void multi_dot_partials(int blocks, const double* partial, double* out) {
  __shared__ double shared[multi_dot_block];
  double sum = 0;
  for (int i = threadIdx.x; i < blocks; i += blockDim.x) sum += partial[blockIdx.x * blocks + i];
  const double total = detail::block_reduce(sum, SumOp{}, shared);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
}  // namespace
#endif

template <class Real>
void multi_dot(Backend backend, const Real* basis, index_t stride, int count, InputView<Real> w, double* h) {
  if (count <= 0) return;
  const index_t n = w.size();
  if (backend == Backend::cuda) {
#if defined(__CUDACC__)
    // about 2048 blocks in all, at least one per 256-entry stretch
    const int blocks = static_cast<int>(std::max<index_t>(1, std::min<index_t>((n + multi_dot_block - 1) / multi_dot_block, std::max(8, 2048 / count))));
    double* partial = static_cast<double*>(detail::device_scratch(sizeof(double) * (static_cast<std::size_t>(count) * blocks + count)));
    double* out = partial + static_cast<std::size_t>(count) * blocks;
    const auto stream = static_cast<cudaStream_t>(current_stream());
    multi_dot_blocks<Real><<<dim3(blocks, count), multi_dot_block, 0, stream>>>(basis, stride, n, w.data, partial);
    FLOWDG_CUDA_CHECK_LAUNCH();
    multi_dot_partials<<<count, multi_dot_block, 0, stream>>>(blocks, partial, out);
    FLOWDG_CUDA_CHECK_LAUNCH();
    FLOWDG_CUDA_CHECK(cudaMemcpyAsync(h, out, sizeof(double) * count, cudaMemcpyDeviceToHost, stream));
    FLOWDG_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
#else
    detail::throw_no_cuda_in_this_unit();
#endif
  }
  for (int k = 0; k < count; ++k) h[k] = dot<Real>(backend, View<const Real>{basis + k * stride, n}, w);
}

template <class Real>
void multi_axpy(Backend backend, const Real* basis, index_t stride, int count, View<const double> h, View<Real> w) {
  if (h.size() < count) throw Error(cat("linalg multi_axpy: ", h.size(), " coefficients for ", count, " vectors"));
  for_each(backend, w.size(), MultiAxpyEntry<Real>{basis, stride, count, h, w});
}

template <class Real>
void axpy(Backend backend, std::type_identity_t<Real> a, InputView<Real> x, View<Real> y) {
  check_sizes("axpy", x.size(), y.size());
  for_each(backend, y.size(), Axpy<Real>{a, x, y});
}

template <class Real>
void xpay(Backend backend, InputView<Real> x, std::type_identity_t<Real> a, View<Real> y) {
  check_sizes("xpay", x.size(), y.size());
  for_each(backend, y.size(), Xpay<Real>{x, a, y});
}

template <class Real>
void copy(Backend backend, InputView<Real> x, View<Real> y) {
  check_sizes("copy", x.size(), y.size());
  for_each(backend, y.size(), CopyEntry<Real>{x, y});
}

template <class Real>
void scale(Backend backend, std::type_identity_t<Real> a, View<Real> x) {
  for_each(backend, x.size(), ScaleEntry<Real>{a, x});
}

template <class Real>
void fill(Backend backend, std::type_identity_t<Real> value, View<Real> x) {
  for_each(backend, x.size(), FillEntry<Real>{value, x});
}

template <class Real>
void apply_block_inverse(Backend backend, const BlockInverseView<Real>& blocks, InputView<Real> r, View<Real> z) {
  check_sizes("block inverse (r against the blocks' rows)", r.size(), blocks.block_of_row.size());
  check_sizes("block inverse (z against the blocks' rows)", z.size(), blocks.block_of_row.size());
  for_each(backend, z.size(), BlockInverseRow<Real>{blocks, r, z});
}

#define FLOWDG_LINALG_INSTANTIATE(Real)                                                                          \
  template void spmv<Real>(Backend, const CsrMatrix<Real>&, View<const Real>, View<Real>);                       \
  template void residual<Real>(Backend, const CsrMatrix<Real>&, View<const Real>, View<const Real>, View<Real>); \
  template void spmv_rows<Real>(Backend, const CsrMatrix<Real>&, index_t, View<const Real>, View<Real>);       \
  template void gather<Real>(Backend, View<const index_t>, View<const Real>, View<Real>);                      \
  template void multi_dot<Real>(Backend, const Real*, index_t, int, View<const Real>, double*);                 \
  template void multi_axpy<Real>(Backend, const Real*, index_t, int, View<const double>, View<Real>);           \
  template void scatter<Real>(Backend, View<const index_t>, View<const Real>, View<Real>);                     \
  template double dot<Real>(Backend, View<const Real>, View<const Real>);                                        \
  template double norm2<Real>(Backend, View<const Real>);                                                        \
  template void axpy<Real>(Backend, Real, View<const Real>, View<Real>);                                         \
  template void xpay<Real>(Backend, View<const Real>, Real, View<Real>);                                         \
  template void copy<Real>(Backend, View<const Real>, View<Real>);                                               \
  template void scale<Real>(Backend, Real, View<Real>);                                                          \
  template void fill<Real>(Backend, Real, View<Real>);                                                           \
  template void apply_block_inverse<Real>(Backend, const BlockInverseView<Real>&, View<const Real>, View<Real>);

FLOWDG_LINALG_INSTANTIATE(float)
FLOWDG_LINALG_INSTANTIATE(double)
#undef FLOWDG_LINALG_INSTANTIATE

}  // namespace flowdg::linalg
