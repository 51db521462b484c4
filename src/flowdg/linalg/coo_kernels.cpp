// The coordinate list to CSR conversion of linalg/coo.hpp on either backend (nvcc compiles this file
// when CUDA is on; the CUDA part uses CUB, shipped with the toolkit).
//
// Both backends give the host csr_from_coo's bits: entries ordered by (row, column) with a stable
// sort, so each (row, column)'s duplicates stay in their input order, and each run of duplicates
// summed by one thread from its first entry to its last, `sum += value` in Real, as the host does.
#include "flowdg/linalg/coo.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/backend/timer.hpp"
#include "flowdg/core/error.hpp"

#if defined(__CUDACC__)
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "flowdg/backend/cuda_check.hpp"
#endif

namespace flowdg::linalg {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::size_t at(index_t i) { return static_cast<std::size_t>(i); }

[[noreturn]] void throw_outside(index_t k, index_t i, index_t j, index_t rows, index_t cols) {
  throw Error(cat("COO matrix: entry ", k, " at (", i, ", ", j, ") lies outside the ", rows, " x ", cols, " matrix"));
}

// ---- the CPU backend: the host algorithm (linalg/csr.cpp), rows in parallel ------------------------

template <class Real>
CsrMatrix<Real> cpu_csr_from_coo(index_t rows, index_t cols, View<const index_t> row, View<const index_t> column,
                                 View<const Real> value, CooToCsrTimes* times) {
  const auto start = Clock::now();
  const index_t n = value.size();
  // Bucket the entries by row, keeping their order within a row (a stable counting sort).
  std::vector<index_t> row_entries(at(rows) + 1, 0);
  for (index_t k = 0; k < n; ++k) {
    const index_t i = row[k], j = column[k];
    if (i < 0 || i >= rows || j < 0 || j >= cols) throw_outside(k, i, j, rows, cols);
    ++row_entries[at(i) + 1];
  }
  for (index_t i = 0; i < rows; ++i) row_entries[at(i) + 1] += row_entries[at(i)];
  std::vector<index_t> order(at(n));
  {
    std::vector<index_t> next(row_entries.begin(), row_entries.end() - 1);
    for (index_t k = 0; k < n; ++k) order[at(next[at(row[k])]++)] = k;
  }
  // Within each row: stable by column.
#pragma omp parallel for schedule(dynamic, 64)
  for (index_t i = 0; i < rows; ++i)
    std::stable_sort(order.begin() + row_entries[at(i)], order.begin() + row_entries[at(i) + 1],
                     [&](index_t a, index_t b) { return column[a] < column[b]; });
  if (times != nullptr) times->sort = seconds_since(start);

  // The distinct columns of each row, their offsets, then each run of one column summed in input order.
  const auto reduce_start = Clock::now();
  std::vector<index_t> row_start(at(rows) + 1, 0);
#pragma omp parallel for schedule(dynamic, 64)
  for (index_t i = 0; i < rows; ++i) {
    index_t distinct = 0;
    for (index_t k = row_entries[at(i)]; k < row_entries[at(i) + 1]; ++k)
      if (k == row_entries[at(i)] || column[order[at(k)]] != column[order[at(k - 1)]]) ++distinct;
    row_start[at(i) + 1] = distinct;
  }
  for (index_t i = 0; i < rows; ++i) row_start[at(i) + 1] += row_start[at(i)];
  CsrMatrix<Real> matrix(Space::host, rows, cols, row_start[at(rows)]);
  matrix.row_start.assign(row_start);
  index_t* const out_column = matrix.column.data();
  Real* const out_value = matrix.value.data();
#pragma omp parallel for schedule(dynamic, 64)
  for (index_t i = 0; i < rows; ++i) {
    index_t u = row_start[at(i)] - 1;
    for (index_t k = row_entries[at(i)]; k < row_entries[at(i) + 1]; ++k) {
      const index_t entry = order[at(k)], j = column[entry];
      if (k == row_entries[at(i)] || j != out_column[u]) {
        ++u;
        out_column[u] = j;
        out_value[u] = value[entry];
      } else {
        out_value[u] += value[entry];
      }
    }
  }
  if (times != nullptr) times->reduce = seconds_since(reduce_start);
  return matrix;
}

// ---- the CUDA backend -------------------------------------------------------------------------------

#if defined(__CUDACC__)
constexpr int block_threads = 256;

unsigned blocks_for(index_t n) { return static_cast<unsigned>((n + block_threads - 1) / block_threads); }

__device__ index_t thread_index() { return static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; }

/// key[k] = row * cols + column and perm[k] = k; an entry out of range takes key 0 and lowers
/// *first_outside to its index (the smallest such index is reported, as the host does).
template <class Perm>
__global__ void key_kernel(index_t n, index_t rows, index_t cols, const index_t* row, const index_t* column,
                           std::uint64_t* key, Perm* perm, unsigned long long* first_outside) {
  const index_t k = thread_index();
  if (k >= n) return;
  const index_t i = row[k], j = column[k];
  const bool inside = i >= 0 && i < rows && j >= 0 && j < cols;
  if (!inside) atomicMin(first_outside, static_cast<unsigned long long>(k));
  key[k] = inside ? static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(cols) + static_cast<std::uint64_t>(j)
                  : std::uint64_t{0};
  perm[k] = static_cast<Perm>(k);
}

/// head[k] = 1 where a run of equal sorted keys begins.
template <class Perm>
__global__ void head_kernel(index_t n, const std::uint64_t* key, Perm* head) {
  const index_t k = thread_index();
  if (k < n) head[k] = (k == 0 || key[k] != key[k - 1]) ? Perm{1} : Perm{0};
}

/// For each run: its first sorted position and its key; *runs = the number of runs.
template <class Perm>
__global__ void run_kernel(index_t n, const std::uint64_t* key, const Perm* head, const Perm* position,
                           Perm* run_start, std::uint64_t* run_key, unsigned long long* runs) {
  const index_t k = thread_index();
  if (k >= n) return;
  if (head[k] != 0) {
    run_start[position[k]] = static_cast<Perm>(k);
    run_key[position[k]] = key[k];
  }
  if (k == n - 1) *runs = static_cast<unsigned long long>(position[k]) + head[k];
}

/// Run u's column and the sum of its values, from its first entry to its last in input order.
template <class Real, class Perm>
__global__ void sum_kernel(index_t runs, index_t n, index_t cols, const Perm* run_start, const std::uint64_t* run_key,
                           const Perm* perm, const Real* value, index_t* column, Real* sum) {
  const index_t u = thread_index();
  if (u >= runs) return;
  const index_t first = static_cast<index_t>(run_start[u]);
  const index_t last = u + 1 < runs ? static_cast<index_t>(run_start[u + 1]) : n;
  Real total = value[perm[first]];
  for (index_t k = first + 1; k < last; ++k) total += value[perm[k]];
  sum[u] = total;
  column[u] = static_cast<index_t>(run_key[u] % static_cast<std::uint64_t>(cols));
}

/// row_start[i] = the number of runs whose row is below i (a binary search of the sorted keys for i * cols).
__global__ void row_start_kernel(index_t rows, index_t runs, index_t cols, const std::uint64_t* run_key,
                                 index_t* row_start) {
  const index_t i = thread_index();
  if (i > rows) return;
  const std::uint64_t first_key = static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(cols);
  index_t low = 0, high = runs;
  while (low < high) {
    const index_t middle = low + (high - low) / 2;
    if (run_key[middle] < first_key)
      low = middle + 1;
    else
      high = middle;
  }
  row_start[i] = low;
}

/// The lists must be in device (or managed) memory: a host pointer would fault in the kernels.
void check_on_device(const void* pointer, const char* what) {
  if (pointer == nullptr) return;
  cudaPointerAttributes attributes{};
  FLOWDG_CUDA_CHECK(cudaPointerGetAttributes(&attributes, pointer));
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
    throw Error(cat("COO matrix: the ", what, " list is in host memory but the backend is cuda"));
}

template <class Real, class Perm>
CsrMatrix<Real> cuda_csr_from_coo(index_t rows, index_t cols, View<const index_t> row, View<const index_t> column,
                                  View<const Real> value, CooToCsrTimes* times) {
  const index_t n = value.size();
  const auto stream = static_cast<cudaStream_t>(current_stream());
  std::optional<DeviceTimer> timer;
  if (times != nullptr) {
    timer.emplace(Backend::cuda);
    timer->mark();
  }
  if (n == 0) {
    CsrMatrix<Real> matrix(Space::device, rows, cols, 0);
    FLOWDG_CUDA_CHECK(cudaMemsetAsync(matrix.row_start.data(), 0, matrix.row_start.bytes(), stream));
    if (timer) {
      timer->mark();
      times->sort = 0;
      times->reduce = timer->seconds(0, 1);
    }
    return matrix;
  }
  check_on_device(row.data, "row");
  check_on_device(column.data, "column");
  check_on_device(value.data, "value");

  // Keys and the identity permutation, then the stable radix sort of the bits the keys use.
  Array<std::uint64_t> key(Space::device, n), sorted_key(Space::device, n);
  Array<Perm> perm(Space::device, n), sorted_perm(Space::device, n), position(Space::device, n),
      run_start(Space::device, n);
  Array<unsigned long long> status(Space::device, 2);  // the first entry outside, the number of runs
  FLOWDG_CUDA_CHECK(cudaMemsetAsync(status.data(), 0xff, status.bytes(), stream));
  key_kernel<<<blocks_for(n), block_threads, 0, stream>>>(n, rows, cols, row.data, column.data, key.data(),
                                                          perm.data(), status.data());
  FLOWDG_CUDA_CHECK_LAUNCH();
  const std::uint64_t keys = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  const int end_bit = keys <= 1 ? 1 : static_cast<int>(std::bit_width(keys - 1));
  const auto items = static_cast<Perm>(n);
  std::size_t sort_bytes = 0, scan_bytes = 0;
  FLOWDG_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, key.data(), sorted_key.data(), perm.data(),
                                                    sorted_perm.data(), items, 0, end_bit, stream));
  FLOWDG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, perm.data(), position.data(), items, stream));
  Array<unsigned char> temporary(Space::device, static_cast<index_t>(std::max(sort_bytes, scan_bytes)));
  FLOWDG_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temporary.data(), sort_bytes, key.data(), sorted_key.data(),
                                                    perm.data(), sorted_perm.data(), items, 0, end_bit, stream));
  if (timer) timer->mark();

  // The runs of equal keys: heads (into perm, free after the sort), their positions, starts and keys
  // (into key, likewise free).
  Perm* const head = perm.data();
  std::uint64_t* const run_key = key.data();
  head_kernel<<<blocks_for(n), block_threads, 0, stream>>>(n, sorted_key.data(), head);
  FLOWDG_CUDA_CHECK_LAUNCH();
  FLOWDG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temporary.data(), scan_bytes, head, position.data(), items, stream));
  run_kernel<<<blocks_for(n), block_threads, 0, stream>>>(n, sorted_key.data(), head, position.data(),
                                                          run_start.data(), run_key, status.data() + 1);
  FLOWDG_CUDA_CHECK_LAUNCH();
  if (timer) timer->mark();

  // One read of the status: an entry outside is reported now (its row and column read back).
  unsigned long long host_status[2] = {0, 0};
  FLOWDG_CUDA_CHECK(cudaMemcpyAsync(host_status, status.data(), sizeof host_status, cudaMemcpyDeviceToHost, stream));
  FLOWDG_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_status[0] != std::numeric_limits<unsigned long long>::max()) {
    const auto k = static_cast<index_t>(host_status[0]);
    index_t i = 0, j = 0;
    FLOWDG_CUDA_CHECK(cudaMemcpyAsync(&i, row.data + k, sizeof i, cudaMemcpyDeviceToHost, stream));
    FLOWDG_CUDA_CHECK(cudaMemcpyAsync(&j, column.data + k, sizeof j, cudaMemcpyDeviceToHost, stream));
    FLOWDG_CUDA_CHECK(cudaStreamSynchronize(stream));
    throw_outside(k, i, j, rows, cols);
  }
  const auto runs = static_cast<index_t>(host_status[1]);

  // The matrix: each run's column and sum, and the row offsets.
  CsrMatrix<Real> matrix(Space::device, rows, cols, runs);
  if (timer) timer->mark();
  sum_kernel<<<blocks_for(runs), block_threads, 0, stream>>>(runs, n, cols, run_start.data(), run_key,
                                                             sorted_perm.data(), value.data, matrix.column.data(),
                                                             matrix.value.data());
  FLOWDG_CUDA_CHECK_LAUNCH();
  row_start_kernel<<<blocks_for(rows + 1), block_threads, 0, stream>>>(rows, runs, cols, run_key,
                                                                       matrix.row_start.data());
  FLOWDG_CUDA_CHECK_LAUNCH();
  if (timer) {
    timer->mark();
    times->sort = timer->seconds(0, 1);
    times->reduce = timer->seconds(1, 2) + timer->seconds(3, 4);
  }
  // The temporaries are freed (cudaFree waits for the kernels) when this returns.
  return matrix;
}
#endif

}  // namespace

template <class Real>
CsrMatrix<Real> csr_from_coo(Backend backend, index_t rows, index_t cols, View<const index_t> row,
                             View<const index_t> column, View<const Real> value, CooToCsrTimes* times) {
  const auto start = Clock::now();
  if (row.size() != value.size() || column.size() != value.size())
    throw Error(cat("COO matrix: ", row.size(), " rows, ", column.size(), " columns and ", value.size(),
                    " values (the three lists must have one entry each)"));
  if (rows < 0 || cols < 0) throw Error(cat("COO matrix: negative size ", rows, " x ", cols));
  constexpr std::uint64_t largest_key = std::numeric_limits<std::uint64_t>::max();
  if (cols > 0 && static_cast<std::uint64_t>(rows) > largest_key / static_cast<std::uint64_t>(cols))
    throw Error(cat("COO matrix: ", rows, " x ", cols, " is too large for 64-bit (row, column) keys"));
  if (times != nullptr) *times = CooToCsrTimes{};
  CsrMatrix<Real> matrix;
  if (backend == Backend::cuda) {
#if defined(__CUDACC__)
    if (value.size() <= static_cast<index_t>(std::numeric_limits<std::uint32_t>::max()))
      matrix = cuda_csr_from_coo<Real, std::uint32_t>(rows, cols, row, column, value, times);
    else
      matrix = cuda_csr_from_coo<Real, std::uint64_t>(rows, cols, row, column, value, times);
    if (times != nullptr) FLOWDG_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(current_stream())));
#else
    detail::throw_no_cuda_in_this_unit();
#endif
  } else {
    matrix = cpu_csr_from_coo(rows, cols, row, column, value, times);
  }
  if (times != nullptr) times->total = seconds_since(start);
  return matrix;
}

template CsrMatrix<float> csr_from_coo(Backend, index_t, index_t, View<const index_t>, View<const index_t>,
                                       View<const float>, CooToCsrTimes*);
template CsrMatrix<double> csr_from_coo(Backend, index_t, index_t, View<const index_t>, View<const index_t>,
                                        View<const double>, CooToCsrTimes*);

}  // namespace flowdg::linalg
