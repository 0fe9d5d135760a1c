// Rank-count invariance to the last bit for the sparse and Bayesian GPLVMs under train.reproducible
// (SparseGplvmConfig::reproducible_sums): 300 minibatch Adam steps at N = 2,000 (batches of 256,
// so four row blocks per batch, M = 25 inducing inputs), amortised and free latents, from the
// data-dependent start (PCA latents or the encoders' latents, k-means Z, q(u) at its optimum), must
// give exactly the parameters of the same training on one rank; so must the start alone. The reference is
// trained inside the test on rank 0 with a one-rank communicator (MPI_COMM_SELF) and broadcast; one differing
// bit fails.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr std::uint64_t kRows = 2000;
constexpr Index kDim = 8, kBatch = 256;
constexpr int kSteps = 300;

struct Variant {
  bool bayesian;
  LatentKind latents;
  Index pretraining_steps = 0;
};
void PrintTo(const Variant& v, std::ostream* os) {
  *os << (v.bayesian ? "bayesian_gplvm_" : "sparse_gplvm_") << to_string(v.latents)
      << (v.pretraining_steps > 0 ? "_pretrained" : "");
}

SparseGplvmConfig config_for(const Variant& v, bool reproducible = true, Index num_inducing = 25) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.bayesian = v.bayesian;
  c.latents = v.latents;
  c.encoder_hidden = {16};
  c.encoder_activation = Activation::tanh;
  c.num_inducing = num_inducing;
  c.training = SparseTraining::minibatch;
  c.seed = 3;
  c.encoder_pretraining.steps = v.pretraining_steps;
  c.encoder_pretraining.batch_size = 300;  // several row blocks, the last one short
  c.encoder_pretraining.adam.learning_rate = 1e-2;
  c.reproducible_sums = reproducible;
  return c;
}

RowMatrix problem_data() {
  return testing::sample_gp_problem(EqArdKernel(1.0, (Vector(2) << 1.0, 0.6).finished()), 0.05, kRows, kDim,
                                    21)
      .Y;
}

// The shared parameters followed by every row's free latents in global row order.
Vector gathered(const Communicator& comm, const SparseGplvmModel& model, const Vector& params) {
  const RowMatrix rows = comm.allgather_rows(DataRef(model.local_block_rows(params)));
  Vector all(model.num_shared_parameters() + rows.size());
  all << params.head(model.num_shared_parameters()), rows.reshaped<Eigen::RowMajor>();
  return all;
}

struct TrainedValues {
  Vector start, end;  // gathered
};

// The start, then kSteps steps with sharded Adam, as Trainer runs them.
TrainedValues train(const Communicator& comm, const Variant& v, const RowMatrix& Y) {
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  SparseGplvmModel model(config_for(v), kRows, begin, count);
  model.initialise_from_data(comm, partition, DataRef(local));
  const std::unique_ptr<TrainingStep> step = model.make_step(comm, partition, DataRef(local));
  ShardedAdam adam(comm, model.num_parameters(), model.summed_block(), {.learning_rate = 1e-2});
  const BatchSchedule schedule(kRows, kBatch, 23);
  Vector params = model.initial_parameters(), gradient;
  TrainedValues run{gathered(comm, model, params), {}};
  for (int s = 0; s < kSteps; ++s) {
    const std::uint64_t epoch = s / schedule.batches_per_epoch(), b = s % schedule.batches_per_epoch();
    step->evaluate(params, schedule.batch_rows(epoch, b), StepKey{epoch, b}, gradient, &adam.slice_counts(),
                   nullptr);
    adam.ascend(params, gradient);
  }
  run.end = gathered(comm, model, params);
  return run;
}

Index differing_values(const Vector& a, const Vector& b) {
  Index differing = 0;
  for (Index i = 0; i < a.size(); ++i) differing += a[i] != b[i];
  return differing;
}

// The block sums are still the batch's bound and gradient: one step at the start against the
// per-rank evaluation of the same batch on one rank (rows in batch order), to rounding. Few
// inducing inputs: the stand-in start's 25 random ones give K_ZZ a condition number that turns the
// rounding of the sums into 1e-7 of the bound, which would hide nothing but prove little.
class ReproducibleSparseStep : public ::testing::TestWithParam<Variant> {};

TEST_P(ReproducibleSparseStep, GradientEqualsTheSerialEvaluationToRounding) {
  const Communicator comm;
  const Communicator self(MPI_COMM_SELF);
  const Variant v = GetParam();
  const RowMatrix Y = problem_data();
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  constexpr Index kFewInducing = 6;
  const SparseGplvmModel model(config_for(v, true, kFewInducing), kRows, begin, count);
  const SparseGplvmModel serial(config_for(v, false, kFewInducing), kRows, 0, kRows);
  const Vector serial_params = serial.initial_parameters();
  Vector params = model.initial_parameters();  // this rank's rows of the same latents
  model.set_local_block_rows(params, serial.local_block_rows(serial_params)
                                         .middleRows(static_cast<Index>(begin), static_cast<Index>(count)));
  const std::vector<std::uint64_t> batch = BatchSchedule(kRows, kBatch, 23).batch_rows(0, 0);
  Vector gradient, serial_gradient;
  const BatchTerms terms = model.evaluate_batch_in_blocks(comm, partition, params, batch, local, gradient);
  std::vector<Index> rows(batch.begin(), batch.end());
  RowMatrix batch_data(static_cast<Index>(rows.size()), kDim);  // B to 2B - 1 rows
  for (Index i = 0; i < batch_data.rows(); ++i) batch_data.row(i) = Y.row(rows[static_cast<std::size_t>(i)]);
  const double scale = static_cast<double>(kRows) / static_cast<double>(rows.size());
  const BatchTerms expected = serial.evaluate_rows(self, serial_params, rows, batch_data, scale,
                                                   SparseGplvmModel::Bound::uncollapsed, serial_gradient);
  EXPECT_NEAR(terms.objective, expected.objective, 1e-11 * std::abs(expected.objective));
  EXPECT_NEAR(terms.kl, expected.kl, 1e-11 * std::abs(expected.kl) + 1e-300);
  const Index shared = model.num_shared_parameters();
  EXPECT_LT((gradient.head(shared) - serial_gradient.head(shared)).norm(),
            1e-10 * serial_gradient.head(shared).norm());
  const RowMatrix latent_gradient = model.local_block_rows(gradient);
  const RowMatrix serial_latent_gradient =
      serial.local_block_rows(serial_gradient)
          .middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  EXPECT_LE((latent_gradient - serial_latent_gradient).norm(),
            1e-10 * serial.local_block_rows(serial_gradient).norm());
  if (v.latents == LatentKind::free) {  // the batch's latents have gradients, on their owners
    EXPECT_GT(comm.allreduce_sum(latent_gradient.squaredNorm()), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, ReproducibleSparseStep,
                         ::testing::Values(Variant{false, LatentKind::amortised},
                                           Variant{true, LatentKind::amortised},
                                           Variant{false, LatentKind::free},
                                           Variant{true, LatentKind::free}));

class ReproducibleSparseTraining : public ::testing::TestWithParam<Variant> {};

TEST_P(ReproducibleSparseTraining, ParametersAfterThreeHundredStepsEqualOneRankBitForBit) {
  const Communicator comm;
  const Variant v = GetParam();
  const RowMatrix Y = problem_data();
  const TrainedValues mine = train(comm, v, Y);
  TrainedValues reference{Vector(mine.start.size()), Vector(mine.end.size())};
  if (comm.is_root()) reference = train(Communicator(MPI_COMM_SELF), v, Y);
  comm.broadcast(reference.start.data(), reference.start.size());
  comm.broadcast(reference.end.data(), reference.end.size());
  ASSERT_TRUE(mine.end.allFinite());
  EXPECT_EQ(differing_values(mine.start, reference.start), 0)
      << "of " << mine.start.size() << " initial values at " << comm.size() << " ranks";
  EXPECT_EQ(differing_values(mine.end, reference.end), 0)
      << "of " << mine.end.size() << " parameters; largest difference "
      << (mine.end - reference.end).cwiseAbs().maxCoeff() << " at " << comm.size() << " ranks";
  // The run moved: equal parameters that never changed would prove nothing.
  EXPECT_GT((mine.end - mine.start).norm(), 1e-2);
}

// Amortised latents from the random encoder and from one pre-trained to the PCA latents
// (model.encoder_pretraining: 50 batches of 300 rows, blocks of 64 summed exactly), whose weights
// are part of the compared start.
INSTANTIATE_TEST_SUITE_P(Variants, ReproducibleSparseTraining,
                         ::testing::Values(Variant{false, LatentKind::amortised},
                                           Variant{false, LatentKind::amortised, 50},
                                           Variant{true, LatentKind::amortised, 50},
                                           Variant{false, LatentKind::free},
                                           Variant{true, LatentKind::free}));

}  // namespace
}  // namespace gplvm
