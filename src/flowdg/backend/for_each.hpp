#pragma once
// One kernel source, two backends. `for_each(backend, n, f)` runs f(i) for i in [0, n): as an
// OpenMP loop on the CPU and as a CUDA grid (one thread per index) on the GPU. Reductions likewise.
// f must be a FLOWDG_HD lambda or functor that captures views and plain structs by value only.
// A translation unit that launches kernels on the CUDA backend must be compiled by nvcc; the build
// does that for every kernel source when CUDA is enabled (see flowdg_kernel_sources in CMake).
#include <algorithm>
#include <limits>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/core/hd.hpp"

#if defined(__CUDACC__)
#include "flowdg/backend/cuda_check.hpp"
#endif

namespace flowdg {

struct SumOp {
  template <class T>
  FLOWDG_HD T operator()(T a, T b) const { return a + b; }
};
struct MinOp {
  template <class T>
  FLOWDG_HD T operator()(T a, T b) const { return b < a ? b : a; }
};
struct MaxOp {
  template <class T>
  FLOWDG_HD T operator()(T a, T b) const { return a < b ? b : a; }
};

namespace detail {
[[noreturn]] void throw_no_cuda_in_this_unit();
/// Device scratch of at least `bytes`, kept between calls (reductions use it for block partials).
void* device_scratch(std::size_t bytes);
/// omp_get_thread_num(), or 0 without OpenMP.
int thread_index() noexcept;

#if defined(__CUDACC__)
/// Programmatic dependent launch (compute capability 9.0): wait until the grid this one follows has
/// finished and its writes are visible, then let the next grid of the stream start placing its
/// blocks (they run up to their own wait while this grid's last blocks finish). Both instructions
/// do nothing in a grid launched without the attribute; every thread runs them first, so a chain
/// of such grids stays ordered.
__device__ FLOWDG_FORCEINLINE void wait_for_previous_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/// kernel<<<grid, block, shared>>>(args...) on the current stream (backend/stream.hpp); with `chained`, as a
/// programmatic dependent of the previous kernel (the kernel must call wait_for_previous_grid()).
template <class... Params, class... Args>
void launch(bool chained, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = static_cast<cudaStream_t>(current_stream());
  cudaLaunchAttribute attribute[1] = {};
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = chained ? 1 : 0;
  FLOWDG_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}
template <class... Params, class... Args>
void launch(bool chained, void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t shared, Args... args) {
  launch(chained, kernel, dim3(grid), dim3(block), shared, args...);
}

constexpr int for_each_block = 256;
constexpr int reduce_block = 256;
constexpr int reduce_max_blocks = 1024;

/// for_each_prefetching's kernels: f.prefetch(i) (only what no kernel writes) before the wait.
template <class F>
__global__ void for_each_prefetching_kernel(index_t n, F f) {
  const index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  decltype(f.prefetch(i)) prefetched{};
  if (i < n) prefetched = f.prefetch(i);
  wait_for_previous_grid();
  if (i < n) f(i, prefetched);
}
template <int MinBlocks, int Block, class F>
__global__ void __launch_bounds__(Block, MinBlocks) for_each_prefetching_bounded_kernel(index_t n, F f) {
  const index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  decltype(f.prefetch(i)) prefetched{};
  if (i < n) prefetched = f.prefetch(i);
  wait_for_previous_grid();
  if (i < n) f(i, prefetched);
}

template <class T, class Op>
__device__ T block_reduce(T value, Op op, T* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (static_cast<int>(threadIdx.x) < stride)
      shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + stride]);
    __syncthreads();
  }
  return shared[0];
}

template <class T, class Op, class F>
__global__ void reduce_blocks_kernel(index_t n, T identity, Op op, F f, T* partial) {
  __shared__ T shared[reduce_block];
  T accumulated = identity;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x)
    accumulated = op(accumulated, f(i));
  const T block_value = block_reduce(accumulated, op, shared);
  if (threadIdx.x == 0) partial[blockIdx.x] = block_value;
}

template <class T, class Op>
__global__ void reduce_partials_kernel(int n_partials, T identity, Op op, T* partial) {
  __shared__ T shared[reduce_block];
  T accumulated = identity;
  for (int i = threadIdx.x; i < n_partials; i += blockDim.x) accumulated = op(accumulated, partial[i]);
  const T total = block_reduce(accumulated, op, shared);
  if (threadIdx.x == 0) partial[reduce_max_blocks] = total;
}
#endif
}  // namespace detail


/// Reduces op(identity, f(0), ..., f(n-1)); op must be associative and commutative.
template <class T, class Op, class F>
T reduce(Backend backend, index_t n, T identity, Op op, F f) {
  if (n <= 0) return identity;
  if (backend == Backend::cuda) {
#if defined(__CUDACC__)
    using namespace detail;
    const int blocks = static_cast<int>(
        std::min<index_t>(reduce_max_blocks, (n + reduce_block - 1) / reduce_block));
    T* partial = static_cast<T*>(device_scratch(sizeof(T) * (reduce_max_blocks + 1)));
    const auto stream = static_cast<cudaStream_t>(current_stream());
    reduce_blocks_kernel<<<blocks, reduce_block, 0, stream>>>(n, identity, op, f, partial);
    FLOWDG_CUDA_CHECK_LAUNCH();
    reduce_partials_kernel<<<1, reduce_block, 0, stream>>>(blocks, identity, op, partial);
    FLOWDG_CUDA_CHECK_LAUNCH();
    T result;
    FLOWDG_CUDA_CHECK(cudaMemcpyAsync(&result, partial + reduce_max_blocks, sizeof(T), cudaMemcpyDeviceToHost, stream));
    FLOWDG_CUDA_CHECK(cudaStreamSynchronize(stream));
    return result;
#else
    detail::throw_no_cuda_in_this_unit();
#endif
  }
  // Per-thread partials combined in thread order: the same thread count gives the same bits.
  std::vector<T> partial(static_cast<std::size_t>(cpu_threads()), identity);
#pragma omp parallel num_threads(static_cast<int>(partial.size()))
  {
    T local = identity;
#pragma omp for schedule(static) nowait
    for (index_t i = 0; i < n; ++i) local = op(local, f(i));
    partial[static_cast<std::size_t>(detail::thread_index())] = local;
  }
  T result = identity;
  for (const T& value : partial) result = op(result, value);
  return result;
}

template <class T, class F>
T reduce_sum(Backend backend, index_t n, F f) { return reduce(backend, n, T(0), SumOp{}, f); }
template <class T, class F>
T reduce_min(Backend backend, index_t n, F f) {
  return reduce(backend, n, std::numeric_limits<T>::max(), MinOp{}, f);
}
template <class T, class F>
T reduce_max(Backend backend, index_t n, F f) {
  return reduce(backend, n, std::numeric_limits<T>::lowest(), MaxOp{}, f);
}

/// for_each for a functor that splits its work into `auto r = f.prefetch(i)`, loads of data that
/// no kernel writes, and `f(i, r)`: with `chained` (CUDA), the prefetch runs before the wait for
/// the previous kernel, so those loads overlap its last blocks. The CPU runs f(i, f.prefetch(i)).
/// Block: CUDA threads per block (smaller blocks let a kernel of many registers fit more threads
/// per SM: at 168 registers, one block of 256 but three of 128).
template <int MinBlocks = 0, int Block = 256, class F>
void for_each_prefetching(Backend backend, index_t n, F f, [[maybe_unused]] bool chained = false) {
  if (n <= 0) return;
  if (backend == Backend::cuda) {
#if defined(__CUDACC__)
    const auto blocks = static_cast<unsigned>((n + Block - 1) / Block);
    if constexpr (MinBlocks > 0)
      detail::launch(chained, detail::for_each_prefetching_bounded_kernel<MinBlocks, Block, F>, blocks, Block, 0, n, f);
    else
      detail::launch(chained, detail::for_each_prefetching_kernel<F>, blocks, Block, 0, n, f);
#else
    detail::throw_no_cuda_in_this_unit();
#endif
  } else {
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) f(i, f.prefetch(i));
  }
}

namespace detail {
/// A functor with nothing to load before the wait, for for_each.
template <class F>
struct NothingToPrefetch {
  struct Nothing {};
  F f;
  FLOWDG_HD Nothing prefetch(index_t) const { return {}; }
  FLOWDG_HD void operator()(index_t i, Nothing) const { f(i); }
};
}  // namespace detail

/// f(i) for i in [0, n). MinBlocks > 0 asks the CUDA compiler to fit that many 256-thread blocks
/// per SM (a register budget of 65536 / (256 MinBlocks) per thread) for kernels whose occupancy
/// limits them. `chained`: on CUDA, launch as a programmatic dependent of the previous kernel (see
/// detail::wait_for_previous_grid; compute capability 9.0 and up only, the caller checks).
template <int MinBlocks = 0, class F>
void for_each(Backend backend, index_t n, F f, bool chained = false) {
  for_each_prefetching<MinBlocks>(backend, n, detail::NothingToPrefetch<F>{f}, chained);
}

}  // namespace flowdg
