// The active set (sparse.active_set_refresh = K) in minibatch training of the sparse and Bayesian
// hGP-LVM at 1-4 ranks: Z starts as refresh 0 of the initial latents (q(u) is fitted to it), and
// after every step it is the M distinct rows that active_set_rows names for refresh
// floor((step - 1) / K), copied from the latents as they were after step r K, on the sheet and
// unchanged between redraws; no gradient or Adam moment reaches it; the trajectory is the same bits
// as one process under train.reproducible (1e-7 relative with per-rank sums); a run stopped just
// before a redraw, or between redraws, and resumed from its state equals the uninterrupted one.
// N = 521 is not divisible by 2, 3 or 4.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/models/active_set.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/objectives/inducing_posterior_transfer.hpp"
#include "gplvm/train/trainer.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 521, kDim = 6, kInducing = 20, kA = 3;  // Q = 2
constexpr Index kEvery = 7;
constexpr std::uint64_t kSteps = 22;  // refreshes 0-3

SparseGplvmConfig active_set_config(bool bayesian, bool reproducible) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.bayesian = bayesian;
  c.latents = LatentKind::free;
  c.latent_space = "lorentz";
  c.decoder.kernel = "hyperboloid_exp";
  c.decoder.init.lengthscale = 2.0;
  c.decoder.noise_variance = 0.1;
  c.free_latent_scale = 0.5;
  c.num_inducing = kInducing;
  c.inducing_init = InducingInit::random;
  c.psi_samples = 3;
  c.active_set_refresh = kEvery;
  c.seed = 9;
  c.reproducible_sums = reproducible;
  return c;
}

TrainerOptions options(std::uint64_t steps) {
  TrainerOptions o;
  o.batch_size = 100;
  o.epochs = 1000;
  o.max_steps = steps;
  o.adam.learning_rate = 2e-2;
  o.seed = 13;
  o.progress_seconds = 1e9;
  return o;
}

RowMatrix problem_data() {
  return testing::sample_gp_problem(EqArdKernel(1.0, (Vector(2) << 1.0, 0.6).finished()), 0.05, kRows, kDim,
                                    17)
      .Y;
}

// A model over this communicator's share of the rows, started from the data.
struct ActiveSetRun {
  const Communicator& comm;
  RowPartition partition;
  RowMatrix local;
  SparseGplvmModel model;
  ActiveSetRun(const Communicator& c, const RowMatrix& Y, const SparseGplvmConfig& config)
      : comm(c),
        partition(kRows, c.size()),
        local(Y.middleRows(static_cast<Index>(partition.begin(c.rank())),
                           static_cast<Index>(partition.count(c.rank())))),
        model(config, kRows, partition.begin(c.rank()), partition.count(c.rank())) {
    model.initialise_from_data(comm, partition, DataRef(local));
  }
  Trainer trainer(std::uint64_t steps) const {
    return {model, comm, partition, DataRef(local), options(steps)};
  }
  // Every row's latent point (the mean, Bayesian), in global row order, on every rank.
  Matrix all_points(const Vector& p) const {
    const Matrix mine = model.local_block_rows(p).leftCols(kA);
    return comm.allgather_rows(ConstMatrixRef(mine));
  }
  // The parameters after every step of a kSteps run: [0] the start, [s] after step s.
  std::vector<Vector> trajectory() const {
    TrainerOptions o = options(kSteps);
    std::vector<Vector> after{model.initial_parameters()};
    o.checkpoint_every = 1;
    const Trainer recording(model, comm, partition, DataRef(local), o);
    TrainingState state = recording.initial_state();
    const TrainRunStats stats =
        recording.run(state, [&](const TrainingState& s) { after.push_back(s.params); });
    EXPECT_EQ(stats.steps, kSteps) << stats.divergence;
    after.push_back(state.params);  // the last step writes no checkpoint
    return after;
  }
};

class MinibatchActiveSet : public ::testing::TestWithParam<bool> {};  // bayesian?

TEST_P(MinibatchActiveSet, ZIsTheDrawnRowsOfTheLatentsAtItsLastRedrawAndHasNoGradient) {
  const Communicator comm;
  const RowMatrix Y = problem_data();
  for (const bool reproducible : {false, true}) {
    SCOPED_TRACE(reproducible ? "reproducible" : "per-rank sums");
    const SparseGplvmConfig c = active_set_config(GetParam(), reproducible);
    const ActiveSetRun s(comm, Y, c);
    ASSERT_EQ(s.model.curved_shared_points().rows, 0);  // Z is not moved as points
    const std::vector<Vector> after = s.trajectory();
    ASSERT_EQ(after.size(), kSteps + 1);
    // The start's Z, to which q(u) was fitted, is already refresh 0.
    const std::vector<std::uint64_t> first = active_set_rows(kRows, kInducing, c.seed, 0);
    const Matrix X0 = s.all_points(after[0]);
    const Matrix Z0 = s.model.inducing_inputs(after[0]);
    for (Index k = 0; k < kInducing; ++k) EXPECT_TRUE(Z0.row(k) == X0.row(first[k])) << k;
    for (std::uint64_t step = 1; step <= kSteps; ++step) {
      const std::uint64_t refresh = (step - 1) / kEvery;
      const std::vector<std::uint64_t> rows = active_set_rows(kRows, kInducing, c.seed, refresh);
      ASSERT_EQ(std::set<std::uint64_t>(rows.begin(), rows.end()).size(),
                static_cast<std::size_t>(kInducing));
      const Matrix drawn_from = s.all_points(after[refresh * kEvery]);
      const Matrix Z = s.model.inducing_inputs(after[step]);
      for (Index k = 0; k < kInducing; ++k)
        ASSERT_TRUE(Z.row(k) == drawn_from.row(rows[k])) << "step " << step << " row " << k;
      ASSERT_EQ(lorentz::first_row_off_sheet(Z, 1e-12), -1) << step;
      if (step % kEvery != 1) {  // no redraw before this step: Z as the step before left it
        EXPECT_TRUE(Z == s.model.inducing_inputs(after[step - 1])) << step;
      }
    }
    // Each refresh draws other rows, and the latents move on after a redraw (Z is a copy of them).
    EXPECT_NE(active_set_rows(kRows, kInducing, c.seed, 1), first);
    EXPECT_GT((s.all_points(after[kSteps]) - s.all_points(after[3 * kEvery])).norm(), 0.0);
    EXPECT_FALSE(s.model.inducing_inputs(after[kSteps]) == s.model.inducing_inputs(after[kEvery]));
    // No gradient reaches Z, so its Adam moments stay zero while the points' and the rest's do not.
    const std::unique_ptr<TrainingStep> step = s.model.make_step(comm, s.partition, DataRef(s.local));
    Vector gradient;
    std::vector<std::uint64_t> batch(100);
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = 5 * i;
    step->evaluate(after[kEvery], batch, {0, 1}, gradient, nullptr, nullptr);
    EXPECT_TRUE(gradient.head(kInducing * kA).isZero(0.0));
    EXPECT_GT(gradient.segment(s.model.kernel_offset(), 2).norm(), 0.0);
    TrainingState state = s.trainer(kSteps).initial_state();
    s.trainer(kSteps).run(state);
    EXPECT_TRUE(state.adam.first_moment.head(kInducing * kA).isZero(0.0));
    EXPECT_TRUE(state.adam.second_moment.head(kInducing * kA).isZero(0.0));
    EXPECT_GT(state.adam.first_moment.segment(s.model.kernel_offset(), 2).norm(), 0.0);
  }
}

TEST_P(MinibatchActiveSet, SameTrajectoryAsOneProcess) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  for (const bool reproducible : {false, true}) {
    SCOPED_TRACE(reproducible ? "reproducible" : "per-rank sums");
    const SparseGplvmConfig c = active_set_config(GetParam(), reproducible);
    const ActiveSetRun s(comm, Y, c), serial(self, Y, c);
    TrainingState state = s.trainer(kSteps).initial_state(), one = serial.trainer(kSteps).initial_state();
    s.trainer(kSteps).run(state);
    serial.trainer(kSteps).run(one);
    const Index shared = s.model.num_shared_parameters();
    const Matrix X = s.all_points(state.params), X_one = serial.all_points(one.params);
    const double scale = std::max(one.params.head(shared).norm(), 1e-300);
    if (reproducible) {
      EXPECT_TRUE(state.params.head(shared) == one.params.head(shared));
      EXPECT_TRUE(X == X_one);
    } else {  // per-rank sums round differently, and Adam carries the difference
      EXPECT_LT((state.params.head(shared) - one.params.head(shared)).norm() / scale, 1e-7);
      EXPECT_LT((X - X_one).norm() / X_one.norm(), 1e-7);
    }
  }
}

// At a redraw q(u) follows Z: it becomes the carried posterior of the old q(u) at the new rows
// (objectives/inducing_posterior_transfer.hpp, whose own tests check what that is), the same on
// every rank.
TEST_P(MinibatchActiveSet, ARedrawCarriesQuToTheNewRows) {
  const Communicator comm;
  const ActiveSetRun s(comm, problem_data(), active_set_config(GetParam(), true));
  TrainingState state = s.trainer(kEvery).initial_state();
  s.trainer(kEvery).run(state);  // the next step redraws
  Vector redrawn = state.params;
  refresh_active_set(s.model, comm, redrawn, 1);
  const Matrix Z = s.model.inducing_inputs(state.params), Z_new = s.model.inducing_inputs(redrawn);
  ASSERT_FALSE(Z == Z_new);
  const InducingPosterior before = s.model.inducing_posterior(state.params);
  const InducingPosterior carried =
      transferred_inducing_posterior(before, *s.model.kernel(state.params), Z, Z_new);
  const InducingPosterior after = s.model.inducing_posterior(redrawn);
  EXPECT_LT((after.mean - carried.mean).norm(), 1e-12 * carried.mean.norm());
  EXPECT_LT((after.scale - carried.scale).norm(), 1e-12 * carried.scale.norm());
  EXPECT_GT((after.mean - before.mean).norm(), 1e-3 * before.mean.norm());
  // Everything else is as it was.
  const Index posterior = s.model.posterior_offset();
  EXPECT_TRUE(redrawn.segment(kInducing * kA, posterior - kInducing * kA) ==
              state.params.segment(kInducing * kA, posterior - kInducing * kA));
  EXPECT_TRUE(redrawn.tail(redrawn.size() - s.model.num_shared_parameters()) ==
              state.params.tail(state.params.size() - s.model.num_shared_parameters()));
  Vector mine = redrawn.head(s.model.num_shared_parameters());
  comm.broadcast(mine.data(), mine.size(), 0);
  EXPECT_TRUE(mine == redrawn.head(s.model.num_shared_parameters()));
}

// Z is stored with the shared parameters, so a state saved after step 7 (the next step redraws)
// or step 10 (between redraws) continues to the uninterrupted run's Z and parameters, bit for bit.
TEST_P(MinibatchActiveSet, ResumedRunEqualsTheUninterruptedOneAcrossARedraw) {
  const Communicator comm;
  const ActiveSetRun s(comm, problem_data(), active_set_config(GetParam(), true));
  TrainingState whole = s.trainer(kSteps).initial_state();
  s.trainer(kSteps).run(whole);
  for (const std::uint64_t stop : {static_cast<std::uint64_t>(kEvery), std::uint64_t{10}}) {
    SCOPED_TRACE("stopped after step " + std::to_string(stop));
    TrainingState resumed = s.trainer(stop).initial_state();
    s.trainer(stop).run(resumed);
    ASSERT_EQ(resumed.step, stop);
    s.trainer(kSteps).run(resumed);
    EXPECT_EQ(resumed.step, kSteps);
    EXPECT_TRUE(s.model.inducing_inputs(resumed.params) == s.model.inducing_inputs(whole.params));
    EXPECT_TRUE(resumed.params == whole.params);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, MinibatchActiveSet, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "bayesian_gplvm" : "sparse_gplvm"; });

}  // namespace
}  // namespace gplvm
