#include "gplvm/core/phase_clock.hpp"

namespace gplvm {
namespace {

struct PhaseInfo {
  std::string_view name;
  PhaseKind kind;
};

// Indexed by StepPhase; what each phase covers is in docs/guide/training.md.
constexpr std::array<PhaseInfo, kNumStepPhases> kPhases{{
    {"other", PhaseKind::compute},
    {"batch_draw", PhaseKind::compute},
    {"model", PhaseKind::compute},
    {"batch_rows", PhaseKind::compute},
    {"row_exchange", PhaseKind::collective},
    {"encoder_forward", PhaseKind::compute},
    {"latent_exchange", PhaseKind::collective},
    {"active_gather", PhaseKind::collective},
    {"active_factor", PhaseKind::compute},
    {"active_whiten", PhaseKind::compute},
    {"whitened_gather", PhaseKind::collective},
    {"remainder", PhaseKind::compute},
    {"partials_sum", PhaseKind::collective},
    {"combine", PhaseKind::compute},
    {"combine_gather", PhaseKind::collective},
    {"combine_sum", PhaseKind::collective},
    {"encoder_backward", PhaseKind::compute},
    {"gradient_sum", PhaseKind::collective},
    {"collectives", PhaseKind::collective},
    {"gradient_norm", PhaseKind::compute},
    {"norm_gather", PhaseKind::collective},
    {"adam", PhaseKind::compute},
    {"adam_allgather", PhaseKind::collective},
    {"stop_poll", PhaseKind::collective},
    {"progress", PhaseKind::io},
    {"checkpoint", PhaseKind::io},
}};

PhaseClock process_clock;

}  // namespace

std::string_view phase_name(StepPhase phase) {
  return kPhases[static_cast<std::size_t>(phase)].name;
}

PhaseKind phase_kind(StepPhase phase) {
  return kPhases[static_cast<std::size_t>(phase)].kind;
}

void PhaseClock::start() {
  ticks_.fill(0);
  current_ = StepPhase::other;
  started_ = since_ = Clock::now();
  running_ = true;
}

void PhaseClock::stop() {
  if (!running_) return;
  charge(Clock::now());
  running_ = false;
}

void PhaseClock::charge(Clock::time_point now) noexcept {
  ticks_[static_cast<std::size_t>(current_)] +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - since_).count();
  since_ = now;
}

StepPhase PhaseClock::switch_to(StepPhase phase) noexcept {
  const StepPhase previous = current_;
  if (!running_) return previous;
  charge(Clock::now());
  current_ = phase;
  return previous;
}

const PhaseTicks& PhaseClock::totals() {
  if (running_) charge(Clock::now());
  return ticks_;
}

std::int64_t PhaseClock::ticks_of(PhaseKind kind) {
  const PhaseTicks& t = totals();
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < kNumStepPhases; ++i)
    if (kPhases[i].kind == kind) sum += t[i];
  return sum;
}

std::int64_t PhaseClock::elapsed_ticks() const noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(since_ - started_).count();
}

PhaseClock& phase_clock() noexcept {
  return process_clock;
}

ScopedCollective::ScopedCollective() noexcept : previous_(phase_clock().current()) {
  if (phase_kind(previous_) != PhaseKind::compute) return;
  phase_clock().switch_to(StepPhase::collectives);
  switched_ = true;
}

ScopedCollective::~ScopedCollective() {
  if (switched_) phase_clock().switch_to(previous_);
}

}  // namespace gplvm
