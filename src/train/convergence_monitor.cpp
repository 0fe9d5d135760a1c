#include "gplvm/train/convergence_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/core/format_number.hpp"

namespace gplvm {
ConvergenceMonitor::ConvergenceMonitor(ConvergenceOptions options, std::uint64_t steps_per_epoch)
    : options_(options) {
  require(std::isfinite(options.tolerance) && options.tolerance >= 0,
          "train.tolerance must be finite and >= 0",
          {"", "train.tolerance", format_number(options.tolerance)});
  require(options.patience >= 1, "train.patience must be >= 1",
          {"", "train.patience", std::to_string(options.patience)});
  require(std::isfinite(options.divergence_drop) && options.divergence_drop >= 0,
          "train.divergence_drop must be finite and >= 0",
          {"", "train.divergence_drop", format_number(options.divergence_drop)});
  require(options.min_window_steps >= 1, "train.min_window_steps must be >= 1",
          {"", "train.min_window_steps", std::to_string(options.min_window_steps)});
  const std::uint64_t epoch = std::max<std::uint64_t>(steps_per_epoch, 1);
  window_ = epoch * ((options.min_window_steps + epoch - 1) / epoch);  // whole epochs, at least the minimum
  alpha_ = 2.0 / (static_cast<double>(window_) + 1.0);
}

StepVerdict ConvergenceMonitor::observe(ConvergenceState& s, std::uint64_t step, double objective,
                                        double gradient_norm) const {
  StepVerdict v;
  if (!std::isfinite(objective) || !std::isfinite(gradient_norm)) {
    v.diverged = true;
    v.divergence = !std::isfinite(objective) ? "objective is " + format_number(objective)
                                             : "gradient norm is " + format_number(gradient_norm);
    return v;
  }
  s.smoothed = s.observed == 0 ? objective : s.smoothed + alpha_ * (objective - s.smoothed);
  ++s.observed;
  // The drop test starts after the first window: early objectives swing by orders of magnitude
  // (a sparse model's q(u) starts at its optimum for the initial parameters, then moves with them).
  if (s.observed < window_) return finish_step(s, step, v);
  if (s.observed == window_) s.first_smoothed = s.peak_smoothed = s.smoothed;
  s.peak_smoothed = std::max(s.peak_smoothed, s.smoothed);
  const double scale = std::max(std::abs(s.peak_smoothed), s.peak_smoothed - s.first_smoothed);
  if (options_.divergence_drop > 0 && s.peak_smoothed - s.smoothed > options_.divergence_drop * scale) {
    v.diverged = true;
    v.divergence = "smoothed objective " + format_number(s.smoothed) + " fell below its peak " +
                   format_number(s.peak_smoothed) +
                   " by more than train.divergence_drop = " + format_number(options_.divergence_drop) +
                   " of " + format_number(scale);
    return v;
  }
  return finish_step(s, step, v);
}

StepVerdict ConvergenceMonitor::finish_step(ConvergenceState& s, std::uint64_t step, StepVerdict v) const {
  if (step % window_ != 0) return v;
  v.window_end = true;
  const bool first_window = s.best_step == 0;
  const double improvement =
      first_window ? INFINITY : (s.smoothed - s.best_smoothed) / std::max(std::abs(s.best_smoothed), 1e-300);
  if (first_window || s.smoothed > s.best_smoothed) {
    v.new_best = true;
    s.best_smoothed = s.smoothed;
    s.best_step = step;
  }
  if (options_.tolerance <= 0) return v;
  if (s.recovering) {
    if (improvement < -options_.tolerance) {
      s.stalled_windows = 0;
      return v;
    }
    s.recovering = false;
  }
  s.stalled_windows = improvement < options_.tolerance ? s.stalled_windows + 1 : 0;
  if (s.stalled_windows >= options_.patience) {
    v.converged = s.converged = true;
    s.converged_step = step;
  }
  return v;
}

}  // namespace gplvm
