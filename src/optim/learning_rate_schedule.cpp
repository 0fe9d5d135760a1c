#include "gplvm/optim/learning_rate_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "gplvm/core/error.hpp"

namespace gplvm {

LearningRateDecay parse_learning_rate_decay(const std::string& name) {
  if (name == "constant") return LearningRateDecay::constant;
  if (name == "cosine") return LearningRateDecay::cosine;
  if (name == "step") return LearningRateDecay::step;
  throw InputError("unknown learning-rate schedule (expected constant, cosine or step)",
                   {"", "train.lr_schedule", name});
}

void validate(const LearningRateSchedule& s) {
  require(std::isfinite(s.base_rate) && s.base_rate > 0, "train.learning_rate must be finite and > 0",
          {"", "train.learning_rate", std::to_string(s.base_rate)});
  require(s.decay != LearningRateDecay::step || s.step_every >= 1, "train.lr_step_every must be >= 1",
          {"", "train.lr_step_every", std::to_string(s.step_every)});
  // A factor of 0 would stop training silently after the first decay; > 1 is growth, not decay.
  require(s.step_factor > 0 && s.step_factor <= 1, "train.lr_step_factor must be in (0, 1]",
          {"", "train.lr_step_factor", std::to_string(s.step_factor)});
}

namespace {

double warmup_factor(const LearningRateSchedule& s, std::uint64_t step) {
  if (step >= s.warmup_steps) return 1.0;
  return static_cast<double>(step + 1) / static_cast<double>(s.warmup_steps);
}

double decay_factor(const LearningRateSchedule& s, std::uint64_t step) {
  switch (s.decay) {
    case LearningRateDecay::constant:
      return 1.0;
    case LearningRateDecay::step:
      return std::pow(s.step_factor, static_cast<double>(step / s.step_every));
    case LearningRateDecay::cosine: {
      if (s.total_steps <= s.warmup_steps || step <= s.warmup_steps) return 1.0;
      const double progress = std::min(1.0, static_cast<double>(step - s.warmup_steps) /
                                                static_cast<double>(s.total_steps - s.warmup_steps));
      return 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
    }
  }
  return 1.0;
}

}  // namespace

double learning_rate_at(const LearningRateSchedule& s, std::uint64_t step) {
  return s.base_rate * warmup_factor(s, step) * decay_factor(s, step);
}

}  // namespace gplvm
