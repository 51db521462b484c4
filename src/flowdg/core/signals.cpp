#include "flowdg/core/signals.hpp"

#include <csignal>
#include <ctime>

namespace flowdg {

namespace {

volatile std::sig_atomic_t received_signal = 0;
struct timespec first_signal {};
struct sigaction previous_int {}, previous_term {};

extern "C" void on_interrupt(int signal) {
  struct timespec now {};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  if (received_signal != 0) {
    // A second signal within 2 s is the same request delivered twice (coreutils' timeout signals
    // the child and then its whole process group; batch systems signal every process of a job):
    // ignored, so the state is still saved. Later, it is a user insisting: the default action now
    // (terminate), as if no handler had been there.
    const double since = static_cast<double>(now.tv_sec - first_signal.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec - first_signal.tv_nsec);
    if (since < 2.0) return;
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  first_signal = now;
  received_signal = signal;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  received_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a write or read in flight is not cut short by the first signal
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
}

int InterruptGuard::received() { return received_signal; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return cat("signal ", signal);
}

}  // namespace flowdg
