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

void CheckpointWriter::submit(const std::string& path, Checkpoint checkpoint) { submit(path, std::move(checkpoint), {}); }

void CheckpointWriter::submit(const std::string& path, Checkpoint checkpoint, std::function<std::vector<double>()> read) {
  std::unique_lock lock(mutex_);
  const auto start = std::chrono::steady_clock::now();
  changed_.wait(lock, [this] { return !busy_ && !job_; });
  waited_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  job_.emplace(Job{path, std::move(checkpoint), std::move(read)});
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
    Job job = std::move(*job_);
    job_.reset();
    busy_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      if (job.read) job.checkpoint.coefficients = job.read();
      write_checkpoint(job.path, job.checkpoint);  // serialised with every other HDF5 call (checkpoint.cpp)
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
