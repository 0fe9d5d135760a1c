// The stopping rule and divergence detection on objective sequences whose verdicts follow in
// closed form from the definitions in train/convergence_monitor.hpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/train/convergence_monitor.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

// Default options with 10-step minimum windows.
constexpr ConvergenceOptions kShort{.min_window_steps = 10};

// Observes objective(step) for steps 1..max_steps; returns the step of the first verdict
// satisfying `stop` (0: none).
template <typename Objective, typename Stop>
std::uint64_t first_step(const ConvergenceMonitor& m, ConvergenceState& s, std::uint64_t max_steps,
                         Objective objective, Stop stop) {
  for (std::uint64_t t = 1; t <= max_steps; ++t)
    if (stop(m.observe(s, t, objective(t), 1.0))) return t;
  return 0;
}

TEST(ConvergenceMonitor, WindowIsWholeEpochsOfAtLeastTheMinimumSteps) {
  // Default minimum: 50 steps.
  EXPECT_EQ(ConvergenceMonitor({}, 58).window_steps(), 58u);
  EXPECT_EQ(ConvergenceMonitor({}, 4).window_steps(), 52u);
  EXPECT_EQ(ConvergenceMonitor({}, 1).window_steps(), 50u);
  EXPECT_EQ(ConvergenceMonitor({}, 7).window_steps(), 56u);
  // A minimum of 10, as the remaining cases use to keep their sequences short.
  EXPECT_EQ(ConvergenceMonitor(kShort, 4).window_steps(), 12u);
  EXPECT_EQ(ConvergenceMonitor(kShort, 1).window_steps(), 10u);
  EXPECT_EQ(ConvergenceMonitor(kShort, 10).window_steps(), 10u);
  EXPECT_DOUBLE_EQ(ConvergenceMonitor(kShort, 4).smoothing(), 2.0 / 13.0);
}

TEST(ConvergenceMonitor, FlatObjectiveConvergesAfterPatienceStalledWindows) {
  // The first window end sets the best; each later one improves by 0 < tolerance.
  for (std::uint64_t patience : {1, 3, 5}) {
    const ConvergenceMonitor m({.tolerance = 1e-3, .patience = patience, .min_window_steps = 10}, 4);
    ConvergenceState s;
    const auto at = first_step(
        m, s, 1000, [](auto) { return -100.0; }, [](const StepVerdict& v) { return v.converged; });
    EXPECT_EQ(at, (patience + 1) * 12) << "patience " << patience;
    EXPECT_TRUE(s.converged);
    EXPECT_EQ(s.converged_step, at);
    EXPECT_EQ(s.best_step, 12u);  // never improved on
  }
}

TEST(ConvergenceMonitor, SteadyProgressAboveToleranceNeverConverges) {
  // +1% of |S| per window or more throughout: no window stalls.
  const ConvergenceMonitor m({.tolerance = 1e-3, .patience = 1, .min_window_steps = 10}, 5);
  ConvergenceState s;
  const auto at = first_step(
      m, s, 2000, [](std::uint64_t t) { return -1e4 * std::exp(-0.002 * t); },
      [](const StepVerdict& v) { return v.converged; });
  EXPECT_EQ(at, 0u);
  EXPECT_EQ(s.best_step, 2000u);  // every window end was a new best
}

TEST(ConvergenceMonitor, DefaultWindowKeepsASlowNoisyClimbGoing) {
  // -1000 + 0.05 t with +-20 batch noise: 0.6 per 12-step window (below 1e-3 of |S|, stalled),
  // 2.6 per 52-step window (above it until t = 2000, where |S| = 900). Short windows stop the run
  // while it is still climbing; the default does not.
  const auto objective = [](std::uint64_t t) { return -1000.0 + 0.05 * t + (t % 2 ? 20.0 : -20.0); };
  const auto converged = [](const StepVerdict& v) { return v.converged; };
  ConvergenceState short_state, default_state;
  EXPECT_GT(first_step(ConvergenceMonitor(kShort, 4), short_state, 2000, objective, converged), 0u);
  EXPECT_EQ(first_step(ConvergenceMonitor({}, 4), default_state, 2000, objective, converged), 0u);
}

TEST(ConvergenceMonitor, MinibatchNoiseOnAPlateauStillConverges) {
  // Alternating +-5% batch noise around a constant: S settles, and the plateau stops the run.
  const ConvergenceMonitor m({.tolerance = 1e-3, .patience = 3, .min_window_steps = 10}, 6);
  ConvergenceState s;
  const auto at = first_step(
      m, s, 600, [](std::uint64_t t) { return t % 2 ? -95.0 : -105.0; },
      [](const StepVerdict& v) { return v.converged; });
  EXPECT_GT(at, 0u);
  EXPECT_LE(at, 8 * 12u);
}

TEST(ConvergenceMonitor, ZeroToleranceTurnsTheStoppingRuleOff) {
  const ConvergenceMonitor m({.tolerance = 0.0, .patience = 1, .min_window_steps = 10}, 4);
  ConvergenceState s;
  EXPECT_EQ(first_step(
                m, s, 500, [](auto) { return 1.0; }, [](const StepVerdict& v) { return v.converged; }),
            0u);
}

TEST(ConvergenceMonitor, NonFiniteObjectiveOrGradientDivergesAtThatStep) {
  const ConvergenceMonitor m(kShort, 4);
  ConvergenceState s;
  const auto at = first_step(
      m, s, 100, [](std::uint64_t t) { return t == 17 ? std::numeric_limits<double>::quiet_NaN() : -10.0; },
      [](const StepVerdict& v) { return v.diverged; });
  EXPECT_EQ(at, 17u);
  ConvergenceState fresh;
  const StepVerdict v = m.observe(fresh, 1, -10.0, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(v.diverged);
  EXPECT_TRUE(testing::contains(v.divergence, "gradient norm"));
}

TEST(ConvergenceMonitor, DropOfTheSmoothedObjectiveDivergesAtTheClosedFormStep) {
  // Constant -100 for 20 steps, then -200: S_k = -200 + 100 (1 - a)^(k - 20), a = 2 / 13. The drop
  // below the peak (-100) exceeds 0.5 * |peak| = 50 first where (1 - a)^n < 1/2: n = 5.
  const ConvergenceMonitor m({.divergence_drop = 0.5, .min_window_steps = 10}, 4);
  const double a = m.smoothing();
  const auto expected = 20 + static_cast<std::uint64_t>(std::ceil(std::log(0.5) / std::log(1 - a)));
  ASSERT_EQ(expected, 25u);
  ConvergenceState s;
  const auto at = first_step(
      m, s, 100, [](std::uint64_t t) { return t <= 20 ? -100.0 : -200.0; },
      [](const StepVerdict& v) { return v.diverged; });
  EXPECT_EQ(at, expected);
  // A single catastrophic batch is caught at once: a * 1e6 > 50.
  ConvergenceState t;
  EXPECT_EQ(first_step(
                m, t, 100, [](std::uint64_t k) { return k == 30 ? -1e6 : -100.0; },
                [](const StepVerdict& v) { return v.diverged; }),
            30u);
  // With the drop test off only non-finite values count.
  const ConvergenceMonitor off({.divergence_drop = 0.0, .min_window_steps = 10}, 4);
  ConvergenceState u;
  EXPECT_EQ(first_step(
                off, u, 100, [](std::uint64_t k) { return k > 20 ? -1e9 : -100.0; },
                [](const StepVerdict& v) { return v.diverged; }),
            0u);
}

TEST(ConvergenceMonitor, AfterARollbackOnlyWindowsBackAtTheBestCountAsStalled) {
  // A plateau at -100 for 36 steps (window 12: best at 12, stalled at 24 and 36), a rollback there,
  // then the objective at -300 climbing by 2 a step back to -100 (step 136) and staying. S lags a
  // ramp of slope 2 by 2 (1 - a) / a = 11 and then closes that gap by (1 - a) = 11/13 a step, so it is
  // within 1e-3 of |best| = 0.1 first at a window end at step 168 (11 (11/13)^32 = 0.05; at 156,
  // 0.38): stalled there, at 180 and at 192, converged. Without the rollback mark the first window
  // of the climb (step 48) would be the third stalled one and end the run.
  const ConvergenceMonitor m(
      {.tolerance = 1e-3, .patience = 3, .divergence_drop = 0.0, .min_window_steps = 10}, 4);
  const auto objective = [](std::uint64_t t) {
    return t <= 36 ? -100.0 : t <= 136 ? -300.0 + 2.0 * static_cast<double>(t - 36) : -100.0;
  };
  for (const bool rollback : {false, true}) {
    ConvergenceState s;
    std::uint64_t converged_at = 0;
    for (std::uint64_t t = 1; t <= 400 && converged_at == 0; ++t) {
      if (m.observe(s, t, objective(t), 1.0).converged) converged_at = t;
      if (t == 36) {
        EXPECT_EQ(s.stalled_windows, 2u);
        s.recovering = rollback;
      }
    }
    EXPECT_EQ(converged_at, rollback ? 192u : 48u) << "rollback " << rollback;
    EXPECT_FALSE(s.recovering);
    EXPECT_EQ(s.best_step, 12u);
  }
}

TEST(ConvergenceMonitor, RejectsInvalidOptionsNamingTheKey) {
  try {
    ConvergenceMonitor({.tolerance = 1e-3, .patience = 0, .min_window_steps = 10}, 4);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "train.patience");
  }
  EXPECT_THROW(ConvergenceMonitor({.tolerance = -1.0, .min_window_steps = 10}, 4), InputError);
  try {
    ConvergenceMonitor({.min_window_steps = 0}, 4);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "train.min_window_steps");
  }
}

}  // namespace
}  // namespace gplvm
