#include "flowdg/backend/stream.hpp"

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

StreamScope::StreamScope(const Stream& stream) noexcept : previous_(current) { current = stream.handle(); }
StreamScope::~StreamScope() { current = previous_; }

void* current_stream() noexcept { return current; }

}  // namespace flowdg
