#pragma once
// The process exit codes of every gplvm command (docs/guide/outputs.md, "Exit codes").

namespace gplvm {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;   // a numerical or system failure
constexpr int kExitBadInput = 2;  // bad input, config or command line
constexpr int kExitStopped = 3;   // stopped by SIGTERM/SIGUSR1 after writing a checkpoint: resume it

}  // namespace gplvm
