#pragma once
// Approach 1 of the GPU assembly (issue 18 item 4): a coordinate list written in place by the
// assembly kernels (one thread per sub-simplex / sub-face, duplicates included) converted to CSR in
// the backend's memory, without a trip to the host. Defined in coo_kernels.cpp (nvcc compiles it
// when CUDA is on).
#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/linalg/csr.hpp"

namespace flowdg::linalg {

/// Timings of the conversion (seconds, device synchronised), for the assembly tables. sort: the
/// keys, their range check and the stable sort; reduce: the runs of equal keys found, summed and
/// the row offsets built; total: the whole call, allocations and the host reads included.
struct CooToCsrTimes {
  double sort = 0, reduce = 0, total = 0;
};

/// The CSR matrix of the coordinate list (row[k], column[k], value[k]), k < entries, which lie in
/// space_of(backend): the same result as csr_from_coo on the host (entries sorted by (row, column),
/// duplicates summed in the order they appear — a stable sort — so the same bits on either backend
/// and every run). On the CUDA backend: a CUB stable radix sort of the 64-bit key row * cols + column
/// with the entries' permutation, then each run of equal keys summed in order by one thread; on the
/// CPU backend the host algorithm (rows bucketed, each row stable-sorted by column, OpenMP over rows).
/// The matrix is in space_of(backend); on CUDA its last kernels are queued on the current stream
/// (backend/stream.hpp). Error: an entry out of range (checked on the device, the first one reported
/// after), lists of different lengths, a negative size, a rows x cols too large for a 64-bit key,
/// host lists given to the CUDA backend.
template <class Real>
CsrMatrix<Real> csr_from_coo(Backend backend, index_t rows, index_t cols, View<const index_t> row,
                             View<const index_t> column, View<const Real> value, CooToCsrTimes* times = nullptr);

}  // namespace flowdg::linalg
