#pragma once
// Streams: the queue a solver's kernels go on. Each operator owns one Stream and makes it the
// current stream of the calling thread (StreamScope) for the duration of each of its calls, so that
// every launch under it (for_each, reduce, the tuned kernels' launchers, timer marks) goes on that
// stream without a stream argument threaded through every kernel call. The CPU backend ignores it.
//
// A Stream is a *blocking* CUDA stream: copies made through Array (cudaMemcpy on the legacy
// default stream) still wait for its kernels and its later kernels wait for them, so host reads
// and device-to-device copies stay ordered with the stepping. A second stream (an MPI halo's
// copies, a checkpoint's read-back) is made the same way and ordered with events.
#include "flowdg/backend/backend.hpp"

namespace flowdg {

class Stream {
 public:
  /// A new CUDA stream on the CUDA backend; nothing (the legacy default stream's handle, nullptr)
  /// on the CPU.
  explicit Stream(Backend backend);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  /// The cudaStream_t, or nullptr.
  void* handle() const noexcept { return handle_; }
  /// Waits until everything launched on the stream so far has finished.
  void synchronize() const;

 private:
  void* handle_ = nullptr;
};

/// Makes `stream` the current stream of this thread until the scope ends (scopes nest; the
/// previous one comes back).
class StreamScope {
 public:
  explicit StreamScope(const Stream& stream) noexcept;
  ~StreamScope();
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  void* previous_;
};

/// The calling thread's current stream (cudaStream_t), nullptr (the legacy default stream) when no
/// StreamScope is active.
void* current_stream() noexcept;

}  // namespace flowdg
