#pragma once
#include "flowdg/backend/backend.hpp"
#include "flowdg/core/hd.hpp"

namespace flowdg {

/// Memory bandwidth of a plain copy kernel (for_each, y[i] = x[i]) over n doubles, counting the
/// bytes read plus the bytes written; the median of `repeats` timed copies after one warm-up.
/// The reference the benchmark's bandwidth efficiencies are measured against.
double copy_bandwidth(Backend backend, index_t n, int repeats = 9);

}  // namespace flowdg
