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
#include <cstddef>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"

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

/// A marker in a stream's queue (cudaEvent_t, without timing): the host or another stream waits
/// for the work queued before it. On the CPU every call returns at once (the work is done).
class Event {
 public:
  explicit Event(Backend backend);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  /// Marks the end of what is queued on `stream` now.
  void record(const Stream& stream);
  /// The host waits for the marked work.
  void synchronize() const;
  /// Work queued on `stream` from now on waits for the marked work (the host does not wait).
  void make_wait(const Stream& stream) const;

 private:
  void* handle_ = nullptr;
};

/// copy_bytes queued on `stream` (cudaMemcpyAsync): the host does not wait; host memory should be
/// page-locked (allocate_pinned) for the copy to run beside kernels. A plain copy on the host.
void copy_bytes_async(void* destination, Space destination_space, const void* source, Space source_space,
                      std::size_t bytes, const Stream& stream);

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
