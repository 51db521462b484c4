#include "flowdg/backend/timer.hpp"

#include <chrono>

#include "flowdg/backend/memory.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/core/error.hpp"
#if defined(FLOWDG_HAVE_CUDA)
#include "flowdg/backend/cuda_check.hpp"
#endif

namespace flowdg {

DeviceTimer::~DeviceTimer() {
#if defined(FLOWDG_HAVE_CUDA)
  for (void* event : events_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
#endif
}

std::size_t DeviceTimer::mark() {
  if (backend_ == Backend::cuda) {
#if defined(FLOWDG_HAVE_CUDA)
    cudaEvent_t event = nullptr;
    FLOWDG_CUDA_CHECK(cudaEventCreate(&event));
    events_.push_back(event);
    FLOWDG_CUDA_CHECK(cudaEventRecord(event, static_cast<cudaStream_t>(current_stream())));
    return events_.size() - 1;
#else
    throw Error("DeviceTimer: this build has no CUDA backend");
#endif
  }
  times_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count());
  return times_.size() - 1;
}

double DeviceTimer::seconds(std::size_t a, std::size_t b) {
  if (a >= n_marks() || b >= n_marks()) throw Error("DeviceTimer: no such mark");
  if (backend_ == Backend::cuda) {
#if defined(FLOWDG_HAVE_CUDA)
    auto* end = static_cast<cudaEvent_t>(events_[b]);
    FLOWDG_CUDA_CHECK(cudaEventSynchronize(end));
    float milliseconds = 0;
    FLOWDG_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, static_cast<cudaEvent_t>(events_[a]), end));
    return 1e-3 * static_cast<double>(milliseconds);
#endif
  }
  return times_[b] - times_[a];
}

std::size_t device_memory_used() {
#if defined(FLOWDG_HAVE_CUDA)
  if (cuda_device_count() > 0) {
    std::size_t free = 0, total = 0;
    FLOWDG_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return total - free;
  }
#endif
  return 0;
}

}  // namespace flowdg
