#pragma once
// The tensor-core kernels' A matrices in fragment order (host side): the FP64 tensor-core product
// (tensor_core.hpp: dmma_8x8x4) takes A[l / 4][l % 4] of an 8 x 4 tile from lane l, so a warp that
// reads a row-major A touches 8 rows of 32 bytes each, 8 cache lines apart (8 L1 wavefronts per
// fragment). Stored tile by tile, (row tile, column tile, lane), a fragment is 256 contiguous bytes
// (2 lines): the same values and products, fewer L1 wavefronts.
#include <cstddef>
#include <vector>

#include "flowdg/core/hd.hpp"

namespace flowdg {

/// The value of row-major A (M x K, both multiples of 8 and 4) at row tile mt, column tile ks and
/// lane l sits at fragment_index(mt, ks, l, K) (the tables are small: int arithmetic, as the
/// kernels' other indices).
FLOWDG_HD constexpr int fragment_index(int mt, int ks, int lane, int K) { return (mt * (K / 4) + ks) * 32 + lane; }

/// Reorders the M x K row-major matrix at a[offset, offset + M K) into fragment order, in place.
inline void to_fragment_order(std::vector<double>& a, std::size_t offset, int M, int K) {
  const std::vector<double> row_major(a.begin() + static_cast<std::ptrdiff_t>(offset),
                                      a.begin() + static_cast<std::ptrdiff_t>(offset + static_cast<std::size_t>(M) * K));
  for (int mt = 0; mt < M / 8; ++mt)
    for (int ks = 0; ks < K / 4; ++ks)
      for (int lane = 0; lane < 32; ++lane)
        a[offset + static_cast<std::size_t>(fragment_index(mt, ks, lane, K))] = row_major[static_cast<std::size_t>(mt * 8 + lane / 4) * K + ks * 4 + lane % 4];
}

}  // namespace flowdg
