#include "gplvm/core/stop_signals.hpp"

#include <csignal>

namespace gplvm {
namespace {

volatile std::sig_atomic_t received = 0;

extern "C" void record_signal(int signal) {
  received = signal;
}

}  // namespace

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // do not interrupt MPI or file system calls in progress
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
}

bool stop_requested() {
  return received != 0;
}

int stop_signal() {
  return received;
}

void reset_stop_request() {
  received = 0;
}

}  // namespace gplvm
