// The phase clock (core/phase_clock.hpp): nested guards split time exclusively, the phases add up
// to the elapsed ticks exactly, nothing is charged while no run is recorded, and a collective's
// guard leaves a phase its caller named in place.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>

#include "gplvm/core/phase_clock.hpp"

namespace gplvm {
namespace {

std::int64_t ticks(StepPhase phase) {
  return phase_clock().totals()[static_cast<std::size_t>(phase)];
}

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

TEST(PhaseClock, NestedGuardsSplitTimeExclusivelyAndAddUpToTheElapsedTime) {
  {
    const PhaseRecording recording;
    {
      const ScopedPhase outer(StepPhase::encoder_backward);
      {
        const ScopedPhase inner(StepPhase::gradient_sum);
        sleep_ms(30);
      }
      EXPECT_EQ(phase_clock().current(), StepPhase::encoder_backward);
    }
    EXPECT_EQ(phase_clock().current(), StepPhase::other);
  }
  const PhaseTicks& t = phase_clock().totals();
  EXPECT_EQ(std::accumulate(t.begin(), t.end(), std::int64_t{0}), phase_clock().elapsed_ticks());
  EXPECT_GE(ticks(StepPhase::gradient_sum), 30'000'000);
  // The inner phase's time is not the outer's too: the outer phase held only the guards' switches
  // (the bound leaves room for the thread being descheduled on a busy machine).
  EXPECT_GT(ticks(StepPhase::encoder_backward), 0);
  EXPECT_LT(ticks(StepPhase::encoder_backward), 15'000'000);
}

TEST(PhaseClock, NothingIsChargedWhileNoRunIsRecorded) {
  { const PhaseRecording recording; }
  const PhaseTicks before = phase_clock().totals();
  {
    const ScopedPhase phase(StepPhase::adam);
    sleep_ms(2);
  }
  EXPECT_EQ(phase_clock().totals(), before);
  EXPECT_FALSE(phase_clock().running());
}

TEST(PhaseClock, ACollectiveKeepsThePhaseItsCallerNamed) {
  const PhaseRecording recording;
  {
    const ScopedCollective unnamed;
    EXPECT_EQ(phase_clock().current(), StepPhase::collectives);
  }
  {
    const ScopedPhase named(StepPhase::active_gather);
    const ScopedCollective timed;
    EXPECT_EQ(phase_clock().current(), StepPhase::active_gather);
  }
  {
    const ScopedPhase writing(StepPhase::checkpoint);
    const ScopedCollective timed;
    EXPECT_EQ(phase_clock().current(), StepPhase::checkpoint);
  }
  EXPECT_EQ(phase_clock().current(), StepPhase::other);
}

TEST(PhaseClock, EveryPhaseHasANameAndAKind) {
  for (std::size_t i = 0; i < kNumStepPhases; ++i) EXPECT_FALSE(phase_name(step_phase(i)).empty());
  EXPECT_EQ(phase_name(StepPhase::other), "other");
  EXPECT_EQ(phase_name(StepPhase::checkpoint), "checkpoint");
  EXPECT_EQ(phase_kind(StepPhase::active_gather), PhaseKind::collective);
  EXPECT_EQ(phase_kind(StepPhase::active_factor), PhaseKind::compute);
  EXPECT_EQ(phase_kind(StepPhase::progress), PhaseKind::io);
}

}  // namespace
}  // namespace gplvm
