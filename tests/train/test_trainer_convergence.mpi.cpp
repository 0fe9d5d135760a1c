// Trainer's convergence machinery at 1-4 ranks: the global gradient norm and clipping against hand
// computations, a diverging run caught at the step an independent loop first fails, rollback that
// recovers and finishes, the stopping rule, schedule and clipping giving the serial run's result at
// every rank count, and a run resumed from a checkpoint equal to the uninterrupted one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "gplvm/train/run_file.hpp"
#include "gplvm/train/trainer.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kRows = 61, kBatch = 12;
constexpr Index kDim = 7, kActive = 4;

SasModelConfig config(bool bayesian, LatentKind latents) {
  SasModelConfig c = testing::training_test_config(kDim, bayesian, latents, Precision::float64, {10, 6}, 11);
  c.active_size = kActive;
  return c;
}

RowMatrix data() {
  return testing::random_normal(kRows, kDim, 5);
}

// This rank's model and rows, and the serial model of all rows (every rank holds one).
struct RankSetup {
  const Communicator& comm;
  RowMatrix Y = data();
  RowPartition partition;
  std::uint64_t begin, count;
  RowMatrix local;
  SasModel model, serial_model;
  RankSetup(const Communicator& c, bool bayesian, LatentKind latents)
      : comm(c),
        partition(kRows, c.size()),
        begin(partition.begin(c.rank())),
        count(partition.count(c.rank())),
        local(Y.middleRows(begin, count)),
        model(config(bayesian, latents), kRows, begin, count),
        serial_model(config(bayesian, latents), kRows, 0, kRows) {}
};

TrainerOptions options(double learning_rate, std::uint64_t max_steps) {
  TrainerOptions o;
  o.batch_size = kBatch;
  o.epochs = 1000;
  o.max_steps = max_steps;
  o.adam.learning_rate = learning_rate;
  o.seed = 11;
  o.progress_seconds = 1e9;
  o.convergence.min_window_steps = 10;  // short windows keep these runs short
  return o;
}

// The serial run: Trainer over this process alone, on all rows.
TrainingState serial_run(const RankSetup& s, const TrainerOptions& o, TrainRunStats* stats = nullptr) {
  static const Communicator self(MPI_COMM_SELF);
  const Trainer trainer(s.serial_model, self, RowPartition(kRows, 1), DataRef(s.Y), o);
  TrainingState state = trainer.initial_state();
  const TrainRunStats st = trainer.run(state);
  if (stats) *stats = st;
  return state;
}

double relative_difference(const ConstVectorRef& a, const ConstVectorRef& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// This rank's rows of a serial parameter vector: the shared block and its own free latents.
Vector own_view(const RankSetup& s, const Vector& serial) {
  const Index shared = s.model.num_shared_parameters(), q = 2;
  const Index blocks = (s.model.num_parameters() - shared) / std::max<Index>(s.count * q, 1);
  Vector mine(s.model.num_parameters());
  mine.head(shared) = serial.head(shared);
  for (Index b = 0; b < blocks && s.count > 0; ++b)
    mine.segment(shared + b * s.count * q, s.count * q) =
        serial.segment(shared + b * kRows * q + s.begin * q, s.count * q);
  return mine;
}

TEST(TrainerConvergence, GradientNormIsTheSerialNormAndTheSameBitsOnEveryRank) {
  const Communicator comm;
  for (const auto latents : {LatentKind::amortised, LatentKind::free}) {
    const RankSetup s(comm, true, latents);
    const Vector serial_params = s.serial_model.initial_parameters();
    const BatchSchedule schedule(kRows, kBatch, 11);
    const auto rows = schedule.batch_rows(0, 1);
    RowMatrix batch(rows.size(), kDim);
    for (size_t i = 0; i < rows.size(); ++i) batch.row(i) = s.Y.row(rows[i]);
    Vector serial_gradient, gradient;
    s.serial_model.evaluate(serial_params, {rows, batch, kActive}, {0, 1}, serial_gradient);
    double squares = 0;  // by hand
    for (Index i = 0; i < serial_gradient.size(); ++i) squares += serial_gradient[i] * serial_gradient[i];

    const auto step = s.model.make_step(comm, s.partition, DataRef(s.local));
    ShardedAdam adam(comm, s.model.num_parameters(), s.model.summed_block(), {});
    step->evaluate(own_view(s, serial_params), rows, {0, 1}, gradient, &adam.slice_counts(), nullptr);
    const double norm = adam.gradient_norm(gradient, s.model.num_shared_parameters());
    EXPECT_NEAR(norm, std::sqrt(squares), 1e-10 * std::sqrt(squares)) << to_string(latents);
    EXPECT_EQ(comm.allreduce_max(norm), norm);
    EXPECT_EQ(-comm.allreduce_max(-norm), norm);
  }
}

TEST(TrainerConvergence, ClippingScalesTheGradientToTheClipNorm) {
  // Five steps with every gradient clipped, against Adam fed g * c / ||g|| computed here. (Adam's
  // first step is invariant to the gradient's scale, so one step would not show clipping.)
  const Communicator comm;
  const RankSetup s(comm, false, LatentKind::amortised);
  TrainerOptions o = options(1e-2, 5);
  o.clip_norm = 1.0;  // far below the gradients' norms (~1e2)
  const TrainingState clipped = serial_run(s, o);

  Vector p = s.serial_model.initial_parameters(), g;
  Adam adam(p.size(), o.adam);
  const BatchSchedule schedule(kRows, kBatch, 11);
  for (std::uint64_t t = 0; t < 5; ++t) {
    const auto rows = schedule.batch_rows(0, t);
    RowMatrix batch(rows.size(), kDim);
    for (size_t i = 0; i < rows.size(); ++i) batch.row(i) = s.Y.row(rows[i]);
    s.serial_model.evaluate(p, {rows, batch, kActive}, {0, t}, g);
    double squares = 0;
    for (Index i = 0; i < g.size(); ++i) squares += g[i] * g[i];
    ASSERT_GT(std::sqrt(squares), o.clip_norm);
    adam.ascend(p, g * (o.clip_norm / std::sqrt(squares)));
  }
  EXPECT_LT(relative_difference(clipped.params, p), 1e-10);  // rounding of the scaled products
  const TrainingState unclipped = serial_run(s, options(1e-2, 5));
  EXPECT_GT(relative_difference(unclipped.params, p), 1e-6);  // clipping did change the run
}

TEST(TrainerConvergence, DivergenceStopsAtTheFirstFailingStepWithTheLastGoodState) {
  const Communicator comm;
  const RankSetup s(comm, false, LatentKind::amortised);
  TrainerOptions o = options(1e3, 200);
  o.convergence.divergence_drop = 0;  // non-finite values only: the reference below can find them
  o.on_divergence = DivergenceAction::stop;

  // Independent loop: the first step whose objective or gradient is not finite.
  Vector p = s.serial_model.initial_parameters(), g;
  Adam adam(p.size(), o.adam);
  const BatchSchedule schedule(kRows, kBatch, 11);
  std::uint64_t failing = 0;
  for (std::uint64_t t = 0; t < 200 && failing == 0; ++t) {
    const std::uint64_t epoch = t / schedule.batches_per_epoch(), b = t % schedule.batches_per_epoch();
    const auto rows = schedule.batch_rows(epoch, b);
    RowMatrix batch(rows.size(), kDim);
    for (size_t i = 0; i < rows.size(); ++i) batch.row(i) = s.Y.row(rows[i]);
    // A parameter the model refuses (an infinite noise variance) fails the step as well.
    try {
      const double f = s.serial_model.evaluate(p, {rows, batch, kActive}, {epoch, b}, g).objective;
      if (!std::isfinite(f) || !g.allFinite()) failing = t + 1;
    } catch (const Error&) {
      failing = t + 1;
    }
    adam.ascend(p, g);
  }
  ASSERT_GT(failing, 0u) << "a learning rate of 1e3 must break this model";

  const Trainer trainer(s.model, comm, s.partition, DataRef(s.local), o);
  TrainingState state = trainer.initial_state();
  const TrainRunStats stats = trainer.run(state);
  EXPECT_EQ(stats.reason, StopReason::diverged);
  EXPECT_FALSE(stats.finished);
  EXPECT_EQ(stats.divergence_step, failing);
  EXPECT_TRUE(state.params.allFinite());
  EXPECT_LT(state.step, failing);
  EXPECT_EQ(state.step % 10, 0u);  // a window end (window: 10 steps of 5 batches)
  EXPECT_EQ(state.curve.size(), state.step);
}

TEST(TrainerConvergence, RollbackLowersTheRateAndTheRunFinishes) {
  const Communicator comm;
  const RankSetup s(comm, false, LatentKind::amortised);
  TrainerOptions o = options(1e3, 60);
  o.rollback_lr_factor = 1e-3;
  o.max_rollbacks = 4;
  const Trainer trainer(s.model, comm, s.partition, DataRef(s.local), o);
  TrainingState state = trainer.initial_state();
  const TrainRunStats stats = trainer.run(state);
  EXPECT_TRUE(stats.finished) << to_string(stats.reason) << ": " << stats.divergence;
  EXPECT_GE(state.convergence.rollbacks, 1u);
  EXPECT_LE(state.convergence.learning_rate_factor, 1e-3);
  EXPECT_TRUE(state.params.allFinite());
  ASSERT_EQ(state.curve.size(), state.step);
  for (std::size_t i = 0; i < state.curve.size(); ++i) {
    EXPECT_EQ(state.curve[i].step, i + 1);
    EXPECT_TRUE(std::isfinite(state.curve[i].objective));
  }
}

// Everything on at once: warm-up, cosine decay, clipping and the stopping rule.
TrainerOptions full_options() {
  TrainerOptions o = options(2e-2, 400);
  o.schedule.decay = LearningRateDecay::cosine;
  o.schedule.warmup_steps = 8;
  o.clip_norm = 50.0;
  o.convergence.tolerance = 2e-2;
  o.convergence.patience = 2;
  return o;
}

TEST(TrainerConvergence, StoppingRuleScheduleAndClippingGiveTheSerialRunAtEveryRankCount) {
  const Communicator comm;
  for (const auto latents : {LatentKind::amortised, LatentKind::free}) {
    const RankSetup s(comm, true, latents);
    TrainRunStats serial_stats;
    const TrainingState serial = serial_run(s, full_options(), &serial_stats);
    ASSERT_EQ(serial_stats.reason, StopReason::tolerance) << "the stopping rule must fire before step 400";

    const Trainer trainer(s.model, comm, s.partition, DataRef(s.local), full_options());
    TrainingState state = trainer.initial_state();
    const TrainRunStats stats = trainer.run(state);
    EXPECT_EQ(stats.reason, StopReason::tolerance);
    EXPECT_EQ(state.step, serial.step);
    EXPECT_EQ(state.convergence.converged_step, serial.convergence.converged_step);
    EXPECT_EQ(state.convergence.best_step, serial.convergence.best_step);
    EXPECT_LT(relative_difference(state.params, own_view(s, serial.params)), 1e-8) << to_string(latents);
    EXPECT_LT(relative_difference(state.best_params, own_view(s, serial.best_params)), 1e-8);
  }
}

class TrainerResume : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir;
    if (comm_.is_root()) {
      dir = (fs::temp_directory_path() / ("gplvm-trainer-resume-" + std::to_string(::getpid()))).string();
      fs::create_directories(dir);
    }
    dir_ = comm_.broadcast(dir);
  }
  void TearDown() override {
    comm_.barrier();
    if (comm_.is_root()) fs::remove_all(dir_);
  }
  const Communicator comm_;
  std::string dir_;
};

TEST_F(TrainerResume, ResumedRunEqualsTheUninterruptedOne) {
  for (const auto latents : {LatentKind::amortised, LatentKind::free}) {
    const RankSetup s(comm_, false, latents);
    const Trainer trainer(s.model, comm_, s.partition, DataRef(s.local), full_options());
    TrainingState whole = trainer.initial_state();
    const TrainRunStats whole_stats = trainer.run(whole);
    ASSERT_EQ(whole_stats.reason, StopReason::tolerance);
    ASSERT_GT(whole.step, 27u);

    // Stopped after 27 steps (mid-window, past the warm-up, with best and stall state),
    // checkpointed, read back and continued.
    TrainingState first = trainer.initial_state();
    int calls = 0;
    const TrainRunStats stopped = trainer.run(first, {}, [&] { return ++calls == 27; });
    ASSERT_EQ(stopped.reason, StopReason::stopped);
    const LocalLatents latents_now = encode_local_latents(s.model, first.params, DataRef(s.local));
    RunMetadata meta;
    meta.data = fingerprint_data(comm_, DataRef(s.local), s.begin, kRows);
    meta.data_file = "y.h5";
    const std::string file = dir_ + "/checkpoint.h5";
    write_run_file(file, comm_, {s.model, first, latents_now, nullptr, meta}, true);
    TrainingState resumed = read_checkpoint(file, comm_, s.model, meta);
    EXPECT_EQ(resumed.convergence.best_step, first.convergence.best_step);
    EXPECT_TRUE(resumed.best_params == first.best_params);
    const TrainRunStats rest = trainer.run(resumed);
    EXPECT_EQ(rest.reason, StopReason::tolerance);
    EXPECT_EQ(resumed.step, whole.step);
    EXPECT_EQ(resumed.convergence.converged_step, whole.convergence.converged_step);
    EXPECT_EQ(resumed.convergence.smoothed, whole.convergence.smoothed);
    EXPECT_TRUE(resumed.params == whole.params) << relative_difference(resumed.params, whole.params);
    EXPECT_TRUE(resumed.best_params == whole.best_params);
  }
}

// Checkpoints record their parameter layout: a model whose layout differs (another kernel, so a
// longer "kernel" block) is refused naming the first block that differs, on every rank alike,
// rather than reading values into the wrong places.
TEST_F(TrainerResume, ACheckpointOfAnotherLayoutIsRefusedNamingTheBlock) {
  const RankSetup s(comm_, false, LatentKind::free);
  const Trainer trainer(s.model, comm_, s.partition, DataRef(s.local), options(1e-3, 5));
  TrainingState state = trainer.initial_state();
  trainer.run(state);
  RunMetadata meta;
  meta.data = fingerprint_data(comm_, DataRef(s.local), s.begin, kRows);
  const std::string file = dir_ + "/checkpoint.h5";
  write_run_file(
      file, comm_,
      {s.model, state, encode_local_latents(s.model, state.params, DataRef(s.local)), nullptr, meta}, true);
  SasModelConfig other = config(false, LatentKind::free);
  other.decoder.kernel = "eq_ard+linear";
  const SasModel model(other, kRows, s.begin, s.count);
  try {
    read_checkpoint(file, comm_, model, meta);
    ADD_FAILURE() << "a checkpoint of another layout was read";
  } catch (const CheckpointMismatch& e) {
    EXPECT_EQ(e.context().key, "parameter layout");
    const auto block = [](const SasModel& m) {
      return "kernel: replicated " + std::to_string(m.kernel_prototype().num_hyperparameters()) + "x1, log";
    };
    EXPECT_EQ(e.context().value, block(s.model));
    EXPECT_NE(std::string(e.what()).find("this run: " + block(model)), std::string::npos) << e.what();
  }
  // The model it was written for reads it back.
  EXPECT_TRUE(read_checkpoint(file, comm_, s.model, meta).params == state.params);
}

}  // namespace
}  // namespace gplvm
