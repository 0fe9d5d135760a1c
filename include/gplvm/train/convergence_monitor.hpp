#pragma once
// When step-based training has converged or diverged, judged from the per-step objective (a
// minibatch estimate: noisy) and the gradient norm. Every input is the same on every rank (the
// batch objective is, and ShardedAdam::gradient_norm is), so every rank reaches the same verdict.
//
// The smoothed objective S is an exponential moving average of the batch objectives with a span
// of one window (alpha = 2 / (window + 1)), started at the first objective. A window is a whole
// number of epochs holding at least min_window_steps steps, so its batches cover every data row
// equally and the noise of single batches averages out (a short window on a small data set lets
// a few lucky batches look like a plateau: the minimum defaults to 50 steps). Windows end at global steps
// that are multiples of the window, so a resumed run judges at the same steps.
//   Stopping: at each window end, the improvement of S over the best S of earlier window ends,
//   relative to |best|, below `tolerance` counts the window as stalled; a window above it resets
//   the count. `patience` stalled windows in a row: converged. After a rollback (`recovering`),
//   windows count only once S is back within `tolerance` of the best: a run climbing back from a
//   divergence is below its best without being on a plateau.
//   Best: the parameters at the window end with the highest S (the caller keeps them).
//   Divergence: a non-finite objective or gradient norm, or (from the end of the first window on)
//   S falling below its highest value since then by more than divergence_drop * max(|peak|,
//   peak - S at the first window's end): a fraction of the objective's magnitude or of the
//   progress made, whichever is larger (an objective near zero has no scale of its own).
#include <cstdint>
#include <string>

namespace gplvm {

struct ConvergenceOptions {
  double tolerance = 1e-3;              // 0: never converge by the stopping rule
  std::uint64_t patience = 3;           // stalled windows in a row that stop the run
  double divergence_drop = 0.5;         // 0: no drop test (non-finite values are still divergence)
  std::uint64_t min_window_steps = 50;  // a window holds whole epochs and at least this many steps
};

// What a checkpoint stores to continue the judgement exactly.
struct ConvergenceState {
  std::uint64_t observed = 0;   // objectives seen
  double smoothed = 0.0;        // S after the last one
  double first_smoothed = 0.0;  // S after the first
  double peak_smoothed = 0.0;   // highest S so far
  double best_smoothed = 0.0;   // highest S at a window end (valid when best_step > 0)
  std::uint64_t best_step = 0;  // the step of that window end; 0: none yet
  std::uint64_t stalled_windows = 0;
  bool recovering = false;  // set by a rollback; cleared when S is back within tolerance of the best
  bool converged = false;
  std::uint64_t converged_step = 0;
  double learning_rate_factor = 1.0;  // lowered by each rollback
  std::uint64_t rollbacks = 0;
};

// The verdict on one step.
struct StepVerdict {
  bool diverged = false;
  std::string divergence;  // why, when diverged
  bool window_end = false;
  bool new_best = false;   // window end with the highest S so far: keep these parameters
  bool converged = false;  // the stopping rule fired at this step
};

class ConvergenceMonitor {
 public:
  // Throws InputError naming the train.* key of an invalid option.
  ConvergenceMonitor(ConvergenceOptions options, std::uint64_t steps_per_epoch);

  std::uint64_t window_steps() const noexcept { return window_; }
  double smoothing() const noexcept { return alpha_; }

  // The objective and gradient norm of the step that made `step` steps completed (step >= 1).
  StepVerdict observe(ConvergenceState& state, std::uint64_t step, double objective,
                      double gradient_norm) const;

 private:
  // The window-end part of observe(): the best so far and the stopping rule.
  StepVerdict finish_step(ConvergenceState& state, std::uint64_t step, StepVerdict verdict) const;

  ConvergenceOptions options_;
  std::uint64_t window_;
  double alpha_;
};

}  // namespace gplvm
