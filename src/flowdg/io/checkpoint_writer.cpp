#include "flowdg/io/checkpoint_writer.hpp"

#include <chrono>
#include <utility>

namespace flowdg {

CheckpointWriter::CheckpointWriter() : thread_([this] { run(); }) {}

CheckpointWriter::~CheckpointWriter() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !busy_ && !job_; });
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void CheckpointWriter::submit(const std::string& path, Checkpoint checkpoint) {
  std::unique_lock lock(mutex_);
  const auto start = std::chrono::steady_clock::now();
  changed_.wait(lock, [this] { return !busy_ && !job_; });
  waited_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  job_.emplace(path, std::move(checkpoint));
  lock.unlock();
  changed_.notify_all();
}

void CheckpointWriter::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !busy_ && !job_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void CheckpointWriter::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stopping_ || job_.has_value(); });
    if (!job_) return;  // stopping, nothing left
    auto [path, checkpoint] = std::move(*job_);
    job_.reset();
    busy_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      write_checkpoint(path, checkpoint);  // serialised with every other HDF5 call (checkpoint.cpp)
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    busy_ = false;
    if (error) error_ = error;
    changed_.notify_all();
  }
}

}  // namespace flowdg
