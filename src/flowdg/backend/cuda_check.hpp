#pragma once
// Checked CUDA runtime calls: every call's error is reported with file and line.
#if defined(FLOWDG_HAVE_CUDA)
#include <cuda_runtime.h>

#include "flowdg/core/error.hpp"

namespace flowdg::detail {
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expression, const char* file,
                                   int line);
}

#define FLOWDG_CUDA_CHECK(expression)                                                    \
  do {                                                                                   \
    cudaError_t flowdg_cuda_status_ = (expression);                                      \
    if (flowdg_cuda_status_ != cudaSuccess)                                              \
      ::flowdg::detail::throw_cuda_error(flowdg_cuda_status_, #expression, __FILE__, __LINE__); \
  } while (0)

/// After a kernel launch: reports launch errors (bad configuration, too many resources).
#define FLOWDG_CUDA_CHECK_LAUNCH() FLOWDG_CUDA_CHECK(cudaGetLastError())
#endif
