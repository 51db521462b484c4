#pragma once
// Host/device annotations. Physics, bases, quadrature and kernels are written once as FLOWDG_HD
// code; under nvcc they compile for both host and device, under a plain C++ compiler for the host.
#include <cstdint>

#if defined(__CUDACC__)
#define FLOWDG_HD __host__ __device__
#define FLOWDG_FORCEINLINE __forceinline__
#else
#define FLOWDG_HD
#define FLOWDG_FORCEINLINE inline
#endif

// Loop unrolling hint for loops with compile-time trip counts (order-templated kernels).
#if defined(__CUDACC__)
#define FLOWDG_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define FLOWDG_UNROLL _Pragma("GCC unroll 32")
#else
#define FLOWDG_UNROLL
#endif

namespace flowdg {
/// Sizes and global indices (100M triangles x 3 x 4 unknowns exceeds 2^31).
using index_t = std::int64_t;
}  // namespace flowdg
