// Preemption of Riemannian full-batch training (sparse and Bayesian hGP-LVM, free latents on the
// hyperboloid): a run stopped after some iterations, checkpointed with its optimiser's state
// (Riemannian Adam's moments, the paper method's rate) through write_run_file / read_checkpoint and
// resumed, is the uninterrupted run to the last bit, also where the stop falls just before an
// active-set refresh (Adam; the paper method's refresh resets its rate, so there the stop falls
// between refreshes) and where every iteration draws fresh Monte Carlo noise. Without that state
// the resumed run differs: the state is what makes it the same.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/train/riemannian_full_batch_trainer.hpp"
#include "gplvm/train/run_file.hpp"
#include "support/bitwise_compare.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 61, kDim = 4;
constexpr int kIterations = 14, kStop = 8;

SparseGplvmConfig lorentz_config(bool bayesian, Index refresh) {
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
  c.num_inducing = 7;
  c.inducing_init = InducingInit::random;
  c.psi_samples = 3;
  c.psi_noise = bayesian ? PsiNoise::fresh : PsiNoise::fixed;
  c.training = SparseTraining::full_batch;
  c.active_set_refresh = refresh;
  c.seed = 4;
  c.reproducible_sums = true;
  return c;
}

struct Setup {
  RowPartition partition;
  RowMatrix local;
  SparseGplvmModel model;
  std::unique_ptr<FullBatchObjective> objective;
  RunMetadata metadata;
  Setup(const Communicator& comm, const RowMatrix& Y, const SparseGplvmConfig& config)
      : partition(kRows, comm.size()),
        local(Y.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                           static_cast<Index>(partition.count(comm.rank())))),
        model(config, kRows, partition.begin(comm.rank()), partition.count(comm.rank())) {
    model.initialise_from_data(comm, partition, DataRef(local));
    objective = model.make_full_batch_objective(comm, partition, DataRef(local));
    metadata.config_toml = "# test";
    metadata.data = fingerprint_data(comm, DataRef(local), partition.begin(comm.rank()), kRows);
  }
};

RiemannianFullBatchOptions options(RiemannianMethod method, int iterations) {
  RiemannianFullBatchOptions o;
  o.method = method;
  // paper_gd's rate large enough that trials are rejected (the rate falls) before the stop.
  o.adam.learning_rate = method == RiemannianMethod::adam ? 2e-2 : 0.3;
  o.tolerance = 0;
  o.max_iterations = iterations;
  return o;
}

// The stopped run's checkpoint as the train command writes it, read back.
TrainingState checkpoint_round_trip(const Communicator& comm, const Setup& s, const FullBatchResult& stopped,
                                    const RiemannianState& state_at_stop, const std::string& name) {
  const std::string file =
      ::testing::TempDir() + "riemannian_resume_" + name + "_np" + std::to_string(comm.size()) + ".h5";
  if (comm.is_root()) std::remove(file.c_str());
  comm.barrier();
  TrainingState state;
  state.params = stopped.params;
  state.adam = state_at_stop.moments;
  if (state.adam.first_moment.size() == 0)
    state.adam = {Vector::Zero(s.model.num_parameters()), Vector::Zero(s.model.num_parameters()), 0};
  state.step_rate = state_at_stop.rate;
  state.step = state_at_stop.iteration;
  const LocalLatents latents = encode_local_latents(s.model, state.params, DataRef(s.local));
  write_run_file(file, comm, {s.model, state, latents, nullptr, s.metadata}, true);
  return read_checkpoint(file, comm, s.model, s.metadata);
}

void expect_resume_is_uninterrupted(bool bayesian, Index refresh, RiemannianMethod method,
                                    const std::string& name) {
  const Communicator comm;
  const RowMatrix Y = testing::random_normal(kRows, kDim, 21);
  const Setup s(comm, Y, lorentz_config(bayesian, refresh));
  const Vector start = s.model.initial_parameters();
  const FullBatchResult full =
      train_full_batch_riemannian(s.model, *s.objective, comm, start, options(method, kIterations));
  ASSERT_EQ(full.iterations, kIterations);

  RiemannianFullBatchOptions stopping = options(method, kIterations);
  int seen = 0;
  stopping.should_stop = [&seen] { return ++seen >= kStop; };
  RiemannianState at_stop;
  const FullBatchResult stopped =
      train_full_batch_riemannian(s.model, *s.objective, comm, start, stopping, &at_stop);
  ASSERT_EQ(stopped.reason, TaoStopReason::stop_requested);
  ASSERT_EQ(stopped.iterations, kStop);
  EXPECT_EQ(at_stop.iteration, static_cast<std::uint64_t>(kStop));
  if (method == RiemannianMethod::paper_gd)  // else the state would be the start's, and prove nothing
    ASSERT_NE(at_stop.rate, stopping.adam.learning_rate);

  const TrainingState state = checkpoint_round_trip(comm, s, stopped, at_stop, name);
  const RiemannianState kept{state.step, state.adam, state.step_rate};
  RiemannianFullBatchOptions resuming = options(method, kIterations - kStop);
  resuming.resume = &kept;
  RiemannianState at_end;
  const FullBatchResult resumed =
      train_full_batch_riemannian(s.model, *s.objective, comm, state.params, resuming, &at_end);
  EXPECT_EQ(resumed.iterations, kIterations - kStop);
  EXPECT_EQ(at_end.iteration, static_cast<std::uint64_t>(kIterations));
  EXPECT_EQ(testing::bitwise_differences(testing::parameters_in_row_order(comm, s.model, resumed.params),
                                         testing::parameters_in_row_order(comm, s.model, full.params)),
            0)
      << "parameters at " << comm.size() << " ranks";
  ASSERT_EQ(resumed.curve.size(), static_cast<std::size_t>(kIterations - kStop + 1));
  for (int i = 0; i <= kIterations - kStop; ++i)
    EXPECT_EQ(resumed.curve[static_cast<std::size_t>(i)], full.curve[static_cast<std::size_t>(kStop + i)])
        << "objective after iteration " << kStop + i;

  // Resumed from the iterate alone (a checkpoint without the optimiser's state), it differs.
  const RiemannianState iterate_only{state.step, {}, 0.0};
  resuming.resume = &iterate_only;
  const FullBatchResult afresh =
      train_full_batch_riemannian(s.model, *s.objective, comm, state.params, resuming);
  EXPECT_GT(testing::bitwise_differences(testing::parameters_in_row_order(comm, s.model, afresh.params),
                                         testing::parameters_in_row_order(comm, s.model, full.params)),
            0);
}

TEST(RiemannianFullBatchResume, AdamWithAnActiveSetRefreshDueAtTheStopIsBitwiseTheUninterruptedRun) {
  expect_resume_is_uninterrupted(false, 4, RiemannianMethod::adam, "adam_refresh");
}

TEST(RiemannianFullBatchResume, PaperMethodWithAnActiveSetIsBitwiseTheUninterruptedRun) {
  expect_resume_is_uninterrupted(false, 3, RiemannianMethod::paper_gd, "paper_refresh");
}

TEST(RiemannianFullBatchResume, BayesianAdamUnderFreshNoiseIsBitwiseTheUninterruptedRun) {
  expect_resume_is_uninterrupted(true, 0, RiemannianMethod::adam, "bayesian_adam");
}

TEST(RiemannianFullBatchResume, BayesianPaperMethodUnderFreshNoiseIsBitwiseTheUninterruptedRun) {
  expect_resume_is_uninterrupted(true, 0, RiemannianMethod::paper_gd, "bayesian_paper");
}

}  // namespace
}  // namespace gplvm
