#pragma once
// The learning rate as a function of the global step alone, so a run resumed from a checkpoint
// continues its schedule exactly: an optional linear warm-up times a decay (constant, cosine to
// zero at the last step, or a factor every so many steps).
#include <cstdint>
#include <string>

namespace gplvm {

enum class LearningRateDecay { constant, cosine, step };
LearningRateDecay parse_learning_rate_decay(const std::string& name);  // "constant" | "cosine" | "step"

struct LearningRateSchedule {
  LearningRateDecay decay = LearningRateDecay::constant;
  double base_rate = 1e-3;
  std::uint64_t warmup_steps = 0;   // linear ramp base/W, 2 base/W, ..., base over the first W steps
  std::uint64_t step_every = 1000;  // step decay: the rate is multiplied by step_factor every this many steps
  double step_factor = 0.5;
  std::uint64_t total_steps = 0;  // cosine: the rate reaches zero here (the run's upper bound on steps)
};

// Throws InputError naming the train.* key of an invalid field.
void validate(const LearningRateSchedule& schedule);

// The rate of the update that takes the run from `step` completed steps to step + 1:
//   warm-up:  (step + 1) / W while step < W, else 1
//   constant: base
//   step:     base * step_factor^floor(step / step_every)
//   cosine:   base * (1 + cos(pi * p)) / 2, p = (step - W) / (total_steps - W) clamped to [0, 1]
// The result is the warm-up factor times the decay.
double learning_rate_at(const LearningRateSchedule& schedule, std::uint64_t step);

}  // namespace gplvm
