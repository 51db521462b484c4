#include "flowdg/core/signals.hpp"

#include <csignal>

namespace flowdg {

namespace {

volatile std::sig_atomic_t received_signal = 0;
struct sigaction previous_int {}, previous_term {};

extern "C" void on_interrupt(int signal) {
  if (received_signal != 0) {
    // The second signal: the default action now (terminate), as if no handler had been there.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
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
