#pragma once
// SIGTERM and SIGUSR1 as requests to stop cleanly: the handler only records the signal; the
// training loop polls it after each step, agrees on it across ranks, checkpoints and exits with
// kExitStopped (see apps/commands.hpp). SLURM sends SIGTERM on cancel and timeout, and SIGUSR1
// ahead of time with `#SBATCH --signal=USR1@120`.
namespace gplvm {

void install_stop_signal_handlers();
bool stop_requested();
int stop_signal();          // the signal number received, or 0
void reset_stop_request();  // for tests

}  // namespace gplvm
