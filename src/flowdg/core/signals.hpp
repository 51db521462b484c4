#pragma once
// SIGINT / SIGTERM for a run: while an InterruptGuard lives, the first of these signals only sets a
// flag that the time loop polls after every step (it then finishes that step, writes a checkpoint
// and the summary, and stops with an Interrupted error); a second signal more than 2 s after the
// first restores the default action and re-raises it, so an impatient Ctrl-C twice ends the process
// at once. One within 2 s is taken for the same request delivered twice (coreutils' timeout sends
// its signal to the child and then to its process group) and ignored.
#include <string>

#include "flowdg/core/error.hpp"

namespace flowdg {

class InterruptGuard {
 public:
  InterruptGuard();   ///< installs the handlers (the previous ones are restored by the destructor)
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  /// The signal received since the guard was made (SIGINT or SIGTERM), or 0.
  static int received();
};

/// A run stopped by a signal after saving its state; exit code 128 + the signal, as shells report
/// a process ended by it (130 for SIGINT, 143 for SIGTERM).
class Interrupted : public Error {
 public:
  Interrupted(int signal, const std::string& message) : Error(message), signal_(signal) {}
  int exit_code() const noexcept override { return 128 + signal_; }
  int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

/// "SIGINT", "SIGTERM" or "signal N".
std::string signal_name(int signal);

}  // namespace flowdg
