// The per-phase breakdown of a training run (core/phase_clock.hpp, train/phase_breakdown.hpp) at
// 1-4 ranks: the phases, "other" included, add up to the run's wall time; the named phases hold at
// least 90% of it on a small SAS problem and on the VAE's coarse phases; the SAS step's own phases
// and its collectives are seen; the waiting estimate lies within the collectives' time; and the
// spread over the ranks is ordered and the same on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gplvm/models/vae_model.hpp"
#include "gplvm/train/phase_breakdown.hpp"
#include "gplvm/train/trainer.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr std::uint64_t kRows = 1200, kBatch = 256, kSteps = 12;
constexpr Index kDim = 40;

TrainerOptions options() {
  TrainerOptions o;
  o.batch_size = kBatch;
  o.epochs = 100;
  o.max_steps = kSteps;
  o.adam.learning_rate = 1e-3;
  o.seed = 5;
  o.progress_seconds = 1e9;  // the final line only
  return o;
}

struct Rows {
  RowPartition partition;
  RowMatrix local;
  Rows(const Communicator& comm, const RowMatrix& Y)
      : partition(kRows, comm.size()),
        local(Y.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                           static_cast<Index>(partition.count(comm.rank())))) {}
};

TrainRunStats train(const Model& model, const Communicator& comm, const Rows& rows) {
  const Trainer trainer(model, comm, rows.partition, DataRef(rows.local), options());
  TrainingState state = trainer.initial_state();
  return trainer.run(state);
}

double seconds_of(const PhaseSeconds& p, StepPhase phase) {
  return p.seconds[static_cast<std::size_t>(phase)];
}

double seconds_of_kind(const PhaseSeconds& p, PhaseKind kind) {
  double sum = 0;
  for (std::size_t i = 0; i < kNumStepPhases; ++i)
    if (phase_kind(step_phase(i)) == kind) sum += p.seconds[i];
  return sum;
}

// What every run's breakdown must satisfy, whatever the model.
void expect_accounts_for_the_run(const TrainRunStats& stats) {
  const PhaseSeconds& p = stats.phases;
  double sum = 0;
  for (const double s : p.seconds) {
    EXPECT_GE(s, 0.0);
    sum += s;
  }
  // The sum is the recorded wall time to the rounding of adding doubles (ticks add up exactly).
  EXPECT_NEAR(sum, p.wall, 1e-12 * p.wall);
  // The recording spans the loop that stats.seconds times (no checkpoints here), from clock reads
  // microseconds apart.
  EXPECT_NEAR(p.wall, stats.seconds, 1e-3 + 0.01 * stats.seconds);
  EXPECT_GE(p.wall - seconds_of(p, StepPhase::other), 0.9 * p.wall) << "named phases below 90% of the run";
  EXPECT_GE(p.wait, 0.0);
  EXPECT_LE(p.wait, seconds_of_kind(p, PhaseKind::collective) + 1e-3);
}

void expect_ordered_and_shared(const Communicator& comm, const PhaseBreakdown& b, const PhaseSeconds& mine) {
  for (std::size_t i = 0; i < kNumStepPhases; ++i) {
    const Spread& s = b.seconds[i];
    EXPECT_LE(s.min, s.median);
    EXPECT_LE(s.median, s.max);
    EXPECT_LE(s.min, mine.seconds[i]);
    EXPECT_GE(s.max, mine.seconds[i]);
    EXPECT_EQ(comm.allreduce_max(s.median), s.median) << phase_name(step_phase(i));
  }
  EXPECT_LE(b.wall.min, mine.wall);
  EXPECT_GE(b.wall.max, mine.wall);
  if (comm.size() == 1) {
    EXPECT_EQ(b.wait.max, 0.0);  // no rank to wait for
  }
}

TEST(PhaseBreakdown, SasPhasesAddUpToTheRunAndNameTheStep) {
  const Communicator comm;
  const RowMatrix Y = testing::random_normal(kRows, kDim, 3);
  const Rows rows(comm, Y);
  SasModelConfig c =
      testing::training_test_config(kDim, true, LatentKind::amortised, Precision::float64, {32, 16}, 7);
  c.active_size = 64;
  const SasModel model(c, kRows, rows.partition.begin(comm.rank()), rows.partition.count(comm.rank()));
  const TrainRunStats stats = train(model, comm, rows);
  ASSERT_EQ(stats.steps, kSteps);
  expect_accounts_for_the_run(stats);
  for (const StepPhase phase :
       {StepPhase::encoder_forward, StepPhase::active_factor, StepPhase::active_whiten, StepPhase::remainder,
        StepPhase::combine, StepPhase::encoder_backward, StepPhase::gradient_norm, StepPhase::adam,
        StepPhase::progress})
    EXPECT_GT(seconds_of(stats.phases, phase), 0.0) << phase_name(phase);
  if (comm.size() > 1) {  // collectives only move data between ranks
    for (const StepPhase phase :
         {StepPhase::active_gather, StepPhase::whitened_gather, StepPhase::partials_sum,
          StepPhase::combine_gather, StepPhase::gradient_sum, StepPhase::adam_allgather})
      EXPECT_GT(seconds_of(stats.phases, phase), 0.0) << phase_name(phase);
  }
  expect_ordered_and_shared(comm, spread_over_ranks(comm, stats.phases), stats.phases);
}

TEST(PhaseBreakdown, VaeCoarsePhasesAddUpToTheRun) {
  const Communicator comm;
  const RowMatrix Y = testing::random_normal(kRows, kDim, 4);
  const Rows rows(comm, Y);
  VaeConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.encoder_hidden = {32, 16};
  c.decoder_hidden = {16, 32};
  const VaeModel model(c, 9, kRows, rows.partition.begin(comm.rank()), rows.partition.count(comm.rank()));
  const TrainRunStats stats = train(model, comm, rows);
  expect_accounts_for_the_run(stats);
  EXPECT_GT(seconds_of(stats.phases, StepPhase::model), 0.0);
  EXPECT_GT(seconds_of(stats.phases, StepPhase::adam), 0.0);
  if (comm.size() > 1) {
    EXPECT_GT(seconds_of(stats.phases, StepPhase::collectives), 0.0);
  }
  expect_ordered_and_shared(comm, spread_over_ranks(comm, stats.phases), stats.phases);
}

TEST(PhaseBreakdown, LeadingPhasesAreTheLargestShares) {
  PhaseTicks ticks{};
  ticks[static_cast<std::size_t>(StepPhase::remainder)] = 600;
  ticks[static_cast<std::size_t>(StepPhase::adam)] = 300;
  ticks[static_cast<std::size_t>(StepPhase::other)] = 100;
  EXPECT_EQ(leading_phases(ticks, 2), "remainder 60% adam 30%");
  EXPECT_EQ(leading_phases(ticks, 5), "remainder 60% adam 30% other 10%");  // no empty phases
  EXPECT_EQ(leading_phases(PhaseTicks{}, 3), "");
}

}  // namespace
}  // namespace gplvm
