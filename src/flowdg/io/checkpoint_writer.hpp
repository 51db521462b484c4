#pragma once
// Checkpoints written in the background: the run hands over a copy of the state and goes on
// stepping while a writer thread puts it into the file (PATH.tmp, then a rename over PATH, so a
// crash or a kill during the write leaves the previous checkpoint whole). At most one write is in
// flight: a submit while one is still being written waits for it first. An error of the writer
// thread is kept and thrown by the next submit() or wait(), never lost.
#include <condition_variable>
#include <exception>
#include <functional>
#include <vector>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "flowdg/io/checkpoint.hpp"

namespace flowdg {

class CheckpointWriter {
 public:
  CheckpointWriter();
  /// Waits for the write in flight (its error, if any, is dropped: a destructor cannot throw;
  /// call wait() first to see it).
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  /// Takes the checkpoint (moved, so its coefficients are the writer's own copy) and writes it to
  /// `path` on the writer thread. Returns once the write has been handed over.
  void submit(const std::string& path, Checkpoint checkpoint);
  /// The same, with the coefficients read by `read` on the writer thread first (a copy of the state
  /// the caller keeps unchanged until `read` returns, e.g. a device snapshot it does not overwrite
  /// meanwhile): the run then pays for neither the copy to the host nor the write.
  void submit(const std::string& path, Checkpoint metadata, std::function<std::vector<double>()> read);
  /// Blocks until no write is in flight; rethrows the last write's error.
  void wait();
  /// Seconds the submitting thread spent waiting for an earlier write (the only cost of a
  /// checkpoint on the run besides copying the state).
  double waited_seconds() const { return waited_seconds_; }

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable changed_;
  struct Job {
    std::string path;
    Checkpoint checkpoint;
    std::function<std::vector<double>()> read;  ///< empty: the coefficients are in the checkpoint
  };
  std::optional<Job> job_;
  bool busy_ = false, stopping_ = false;
  std::exception_ptr error_;
  double waited_seconds_ = 0;
  std::thread thread_;
};

}  // namespace flowdg
