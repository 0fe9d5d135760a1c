#pragma once
// A training run's per-phase breakdown (core/phase_clock.hpp): one rank's seconds per phase, their
// spread over the ranks (min / median / max) for the --json summary, and the leading phases as
// shares of the time for the progress lines.
#include <array>
#include <string>

#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/phase_clock.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// One rank's breakdown of a run.
struct PhaseSeconds {
  std::array<double, kNumStepPhases> seconds{};  // per StepPhase; they add up to wall
  double wall = 0.0;                             // the recorded run's wall time
  double wait = 0.0;  // waiting for the slowest rank (train/rank_wait_meter.hpp): part of the collectives'
};

PhaseSeconds phase_seconds(const PhaseTicks& ticks, double wait);

struct Spread {
  double min = 0.0, median = 0.0, max = 0.0;
};

struct PhaseBreakdown {
  std::array<Spread, kNumStepPhases> seconds;
  Spread wall, wait;
};

// Collective: every rank's figures gathered; the same breakdown on every rank.
PhaseBreakdown spread_over_ranks(const Communicator& comm, const PhaseSeconds& mine);

// Into an open object: "phase_seconds": {"<phase>": {"min", "median", "max"}, ...} (every phase, in
// StepPhase order), "phase_wall_seconds" and "waiting_for_slowest_rank_seconds" alike.
void write_phase_breakdown(JsonWriter& w, const PhaseBreakdown& breakdown);

// The `count` largest phases as shares of the time so far: "remainder 31% encoder_backward 22%".
std::string leading_phases(const PhaseTicks& ticks, int count);

}  // namespace gplvm
