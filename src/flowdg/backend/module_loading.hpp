#pragma once
// CUDA module loading for the executables: eager unless the user chose (CUDA_MODULE_LOADING).
//
// Since CUDA 12.2 the runtime loads each kernel lazily, at its first launch. Lazy loading also
// slows every later launch: with flowdg's few hundred kernels, launching the 2D Euler stage took
// 15-26 us per kernel against 3 us eagerly (H100, session 27), and at p = 1 a stage's two kernels
// run 100-190 us, so the host fell behind the device: `flowdg run` on 798,848 triangles, RK4, p = 1
// went from 2.7-3.0e10 to 3.5e10 DOF-stage updates/s with eager loading (docs/performance.md).
// Eager loading costs the loading of every kernel at start (see docs/performance.md for the
// measured time); an exported CUDA_MODULE_LOADING (LAZY, EAGER) is left as it is.
#include <cstdlib>

namespace flowdg {

/// Call first thing in main(), before anything initialises CUDA (MPI_Init may).
inline void prefer_eager_module_loading() noexcept {
#if defined(FLOWDG_HAVE_CUDA)
  (void)setenv("CUDA_MODULE_LOADING", "EAGER", 0);  // 0: an exported value wins
#endif
}

}  // namespace flowdg
