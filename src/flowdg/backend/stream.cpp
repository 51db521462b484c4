#include "flowdg/backend/stream.hpp"

#include <cstring>

#if defined(FLOWDG_HAVE_CUDA)
#include "flowdg/backend/cuda_check.hpp"
#endif

namespace flowdg {

namespace {
thread_local void* current = nullptr;
}

Stream::Stream(Backend backend) {
#if defined(FLOWDG_HAVE_CUDA)
  if (backend == Backend::cuda) {
    cudaStream_t stream = nullptr;
    FLOWDG_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));  // blocking: see the header
    handle_ = stream;
  }
#else
  (void)backend;
#endif
}

Stream::~Stream() {
#if defined(FLOWDG_HAVE_CUDA)
  if (handle_ != nullptr) (void)cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
#endif
}

void Stream::synchronize() const {
#if defined(FLOWDG_HAVE_CUDA)
  if (handle_ != nullptr) FLOWDG_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
#endif
}

Event::Event(Backend backend) {
#if defined(FLOWDG_HAVE_CUDA)
  if (backend == Backend::cuda) {
    cudaEvent_t event = nullptr;
    FLOWDG_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    handle_ = event;
  }
#else
  (void)backend;
#endif
}

Event::~Event() {
#if defined(FLOWDG_HAVE_CUDA)
  if (handle_ != nullptr) (void)cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
#endif
}

void Event::record(const Stream& stream) {
#if defined(FLOWDG_HAVE_CUDA)
  if (handle_ != nullptr) FLOWDG_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(handle_), static_cast<cudaStream_t>(stream.handle())));
#else
  (void)stream;
#endif
}

void Event::synchronize() const {
#if defined(FLOWDG_HAVE_CUDA)
  if (handle_ != nullptr) FLOWDG_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(handle_)));
#endif
}

void Event::make_wait(const Stream& stream) const {
#if defined(FLOWDG_HAVE_CUDA)
  if (handle_ != nullptr)
    FLOWDG_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream.handle()), static_cast<cudaEvent_t>(handle_), 0));
#else
  (void)stream;
#endif
}

void copy_bytes_async(void* destination, Space destination_space, const void* source, Space source_space, std::size_t bytes,
                      const Stream& stream) {
  if (bytes == 0) return;
  if (destination_space == Space::host && source_space == Space::host) {
    std::memcpy(destination, source, bytes);
    return;
  }
#if defined(FLOWDG_HAVE_CUDA)
  const cudaMemcpyKind kind = destination_space == Space::host
                                  ? cudaMemcpyDeviceToHost
                                  : (source_space == Space::host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
  FLOWDG_CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, kind, static_cast<cudaStream_t>(stream.handle())));
#else
  (void)stream;
  copy_bytes(destination, destination_space, source, source_space, bytes);  // explains that CUDA is missing
#endif
}

StreamScope::StreamScope(const Stream& stream) noexcept : previous_(current) { current = stream.handle(); }
StreamScope::~StreamScope() { current = previous_; }

void* current_stream() noexcept { return current; }

}  // namespace flowdg
