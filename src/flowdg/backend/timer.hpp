#pragma once
// Timing of work on a backend: CUDA events recorded in the stream (so the times are the device's,
// without host synchronisation between marks), or the steady clock on the CPU.
#include <cstddef>
#include <vector>

#include "flowdg/backend/backend.hpp"

namespace flowdg {

class DeviceTimer {
 public:
  explicit DeviceTimer(Backend backend) : backend_(backend) {}
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;

  /// Records a mark after all work launched so far; returns its index.
  std::size_t mark();
  /// Seconds between marks a and b (waits for b to complete).
  double seconds(std::size_t a, std::size_t b);
  std::size_t n_marks() const { return backend_ == Backend::cuda ? events_.size() : times_.size(); }

 private:
  Backend backend_;
  std::vector<void*> events_;   ///< cudaEvent_t
  std::vector<double> times_;   ///< CPU: steady-clock seconds
};

/// Device memory the whole process uses now (the driver's count: total - free, so it includes the
/// CUDA context), or 0 on the CPU.
std::size_t device_memory_used();

}  // namespace flowdg
