#pragma once
// CUDA device helpers shared by the tensor-core kernels (the tuned triangle kernel in
// dg/euler2d/element_kernels.hpp and the core's in dg/core_tensor_kernels.hpp): the FP64 tensor-core
// product and asynchronous global -> shared copies. Device code: include under __CUDACC__ only.
#include "flowdg/core/hd.hpp"

namespace flowdg::device {

/// D += A B on the FP64 tensor cores for an 8 x 4 A, a 4 x 8 B and an 8 x 8 D, a warp together:
/// lane l holds A[l / 4][l % 4], B[l % 4][l / 4] and D[l / 4][2 (l % 4) + c], c = 0, 1.
__device__ FLOWDG_FORCEINLINE void dmma_8x8x4(double (&d)[2], double a, double b) {
#if __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a), "d"(b));
#else
  __trap();  // the host never selects a tensor-core kernel below compute capability 8.0
#endif
}

/// Two 8 x 8 x 4 products sharing B in one instruction (mma.m16n8k4: a 16 x 4 A of two 8-row tiles,
/// compute capability 9.0's FP64 shape): top += A_top B, bottom += A_bottom B, each fragment as
/// dmma_8x8x4's (a_top, a_bottom lane l's A_top[l / 4][l % 4], A_bottom[l / 4][l % 4]). On the H100
/// m8n8k4 issues at half the FP64 tensor rate: 33 TFLOP/s against m16n8k4's 66 (session 44's
/// microbenchmark, docs/performance.md), so two m8n8k4 take twice as long as this one.
__device__ FLOWDG_FORCEINLINE void dmma_16x8x4(double (&top)[2], double (&bottom)[2], double a_top, double a_bottom, double b) {
#if __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
      : "+d"(top[0]), "+d"(top[1]), "+d"(bottom[0]), "+d"(bottom[1])
      : "d"(a_top), "d"(a_bottom), "d"(b));
#else
  dmma_8x8x4(top, a_top, b);
  dmma_8x8x4(bottom, a_bottom, b);
#endif
}

/// Global -> shared copies that bypass the registers (cp.async, compute capability 8.0): issued,
/// then committed as a group, then waited for by the issuing thread (a barrier makes them visible
/// to the others). One value of 4 or 8 bytes (float or double), through L1 (.ca: copies under 16
/// bytes cannot skip it).
template <class Real>
__device__ FLOWDG_FORCEINLINE void copy_async(Real* shared_destination, const Real* global_source) {
  static_assert(sizeof(Real) == 4 || sizeof(Real) == 8, "cp.async copies 4, 8 or 16 bytes");
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared_destination))),
               "l"(global_source), "n"(static_cast<int>(sizeof(Real)))
               : "memory");
#else
  *shared_destination = *global_source;
#endif
}
__device__ FLOWDG_FORCEINLINE void copy_async_8(double* shared_destination, const void* global_source) {
  copy_async(shared_destination, static_cast<const double*>(global_source));
}
/// The same for 16 bytes through L2 only (.cg): safe for data that a kernel before the previous
/// one wrote.
__device__ FLOWDG_FORCEINLINE void copy_async_16(double* shared_destination, const void* global_source) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared_destination))),
               "l"(global_source)
               : "memory");
#else
  shared_destination[0] = static_cast<const double*>(global_source)[0];
  shared_destination[1] = static_cast<const double*>(global_source)[1];
#endif
}
/// Two neighbouring elements' values of one row, source[0] and source[1] (elements el and el + 1 of
/// a block of n_local), into shared memory with zeros past the block's end: one 16-byte
/// asynchronous copy when both exist in double storage, plain loads otherwise (float converted).
template <class Value, class Real>
__device__ FLOWDG_FORCEINLINE void copy_pair(Value* shared_destination, const Real* global_source, int el, int n_local) {
  if constexpr (sizeof(Real) == 8) {
    static_assert(sizeof(Value) == 8, "double storage: double rows");
    if (el + 1 < n_local) {
      copy_async_16(shared_destination, global_source);
    } else {
      shared_destination[0] = el < n_local ? global_source[0] : Real(0);
      shared_destination[1] = Value(0);
    }
  } else {
    shared_destination[0] = el < n_local ? static_cast<Value>(global_source[0]) : Value(0);
    shared_destination[1] = el + 1 < n_local ? static_cast<Value>(global_source[1]) : Value(0);
  }
}
/// Waits for every committed group but the last.
__device__ FLOWDG_FORCEINLINE void copy_async_wait_prior() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#endif
}
__device__ FLOWDG_FORCEINLINE void copy_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ FLOWDG_FORCEINLINE void copy_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace flowdg::device
