#pragma once
// 2D Euler solver, internal: one stage's face and element launches, shared by the Solver's stage
// graph (euler2d_stage_kernels.cpp) and the core's tuned triangle groups (tuned_triangles_kernels.cpp):
// which kernel variant runs (KernelChoice) and how the boundary ranges split into launches. Device
// code: included only by *_kernels.cpp files (compiled by nvcc when CUDA is on).
#include <vector>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/dg/euler2d/common.hpp"
#include "flowdg/dg/euler2d/element_kernels.hpp"
#include "flowdg/dg/euler2d/face_kernels.hpp"

namespace flowdg::euler2d::impl {

/// The fluxes of faces [first, last): the boundary ranges (covering [first, ranges.back().end),
/// none of them empty), then interior faces up to `last`; one launch per BoundaryRanges::max_ranges
/// boundary conditions, the last also covering every interior face.
template <int P, class Flux>
void launch_faces(Backend backend, const KernelChoice& choice, View<const double> u, View<double> flux, const FaceData& faces,
                  const Tables& tables, index_t Ks, const Gas& gas, const std::vector<BoundaryRange>& ranges, index_t first,
                  index_t last, double t) {
  const index_t Nfq = P + 1;
  const index_t interior = ranges.empty() ? first : ranges.back().end;
  std::size_t next = 0;
  do {
    BoundaryRanges group;
    const index_t begin = next < ranges.size() ? ranges[next].begin : interior;
    while (next < ranges.size() && group.n < BoundaryRanges::max_ranges) {
      group.end[group.n] = ranges[next].end;
      group.condition[group.n++] = ranges[next++].condition;
    }
    const index_t end = next < ranges.size() ? ranges[next].begin : last;
    const FacePointKernel<P, Flux> kernel{u, flux, faces, tables, Ks, gas, group, begin, t};
#if defined(__CUDACC__)
    if constexpr (face_block_faces(P) > 0) {
      if (choice.face == GpuFaceKernel::block) {
        launch_face_block_kernel(kernel, end - begin, choice.chained);
        continue;
      }
    }
    if (choice.face == GpuFaceKernel::warp) {
      launch_face_warp_kernel(kernel, end - begin, choice.chained);
      continue;
    }
#endif
    // 72 registers at p = 1 allowed 3 blocks per SM (37.5% occupancy, ncu); ask for 4.
    for_each_prefetching<FLOWDG_FACE_POINT_MIN_BLOCKS>(backend, (end - begin) * Nfq, kernel, choice.chained);
  } while (next < ranges.size());
}

/// The thread-per-element kernels over elements [first, first + n_elements) (ElementKernel::first).
template <int P>
struct ElementRange {
  ElementKernel<P> kernel;
  using Prefetched = typename ElementKernel<P>::Prefetched;
  FLOWDG_HD FLOWDG_FORCEINLINE Prefetched prefetch(index_t i) const { return kernel.prefetch(kernel.first + i); }
  FLOWDG_HD void operator()(index_t i) const { kernel(kernel.first + i); }
  FLOWDG_HD void operator()(index_t i, const Prefetched& pre) const { kernel(kernel.first + i, pre); }
};

/// The element kernel of a stage in the chosen variant (n_elements of them from element.first).
template <int P>
void launch_element(Backend backend, [[maybe_unused]] const KernelChoice& choice, const ElementKernel<P>& element,
                    [[maybe_unused]] const double* tensor_tables) {
#if defined(__CUDACC__)
  // (capping p = 1 at 85 registers for 3 blocks per SM measured slower: 68% vs 74% of copy)
  if constexpr (P >= 1) {
    if (choice.element == GpuElementKernel::tensor) {
      launch_element_tensor_kernel<P>(element, tensor_tables, choice.chained);
    } else if (choice.element == GpuElementKernel::block) {
      launch_element_block_kernel<P>(element, choice.chained);
    } else {
      // 168 registers at p = 1 with the coefficients prefetched: 128-thread blocks fit 3 per SM
      // (384 threads) where 256-thread blocks fit 1.
      for_each_prefetching<FLOWDG_ELEMENT_THREAD_MIN_BLOCKS, FLOWDG_ELEMENT_THREAD_BLOCK>(backend, element.n_elements,
                                                                                          ElementRange<P>{element}, choice.chained);
    }
  } else {
    for_each(backend, element.n_elements, ElementRange<P>{element});
  }
#else
  for_each(backend, element.n_elements, ElementRange<P>{element});
#endif
}

}  // namespace flowdg::euler2d::impl
