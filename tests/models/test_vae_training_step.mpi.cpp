// The VAE model's data-parallel step (models/vae_training_step.hpp), under mpirun at 1-4 ranks:
// its value and gradient equal the serial VaeElbo of the whole batch (with the full-data weights
// N/B), reduced by an allreduce or reduce-scattered for sharded Adam; and twenty steps of what the
// trainer runs (the step and ShardedAdam) give the parameters of serial Adam on the serial ELBO,
// the same on every rank. Sizes (B >= 300, D = 50) let a wrong reduction or weight, a row counted
// twice or a rank-dependent draw show far above rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/models/vae_model.hpp"
#include "gplvm/models/vae_training_step.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::max_relative_error;

constexpr double kTolerance = 1e-10;
constexpr std::uint64_t kSeed = 23;
constexpr Index kDataDim = 50;

VaeConfig test_config(Index data_dim) {
  VaeConfig config;
  config.data_dim = data_dim;
  config.latent_dim = 3;
  config.encoder_hidden = {24, 12};
  config.decoder_hidden = {12, 24};
  config.decoder_activation = Activation::tanh;
  return config;
}

// Rows that look like data: a smooth function of a 2-D latent plus noise.
RowMatrix test_data(Index n, Index d) {
  const Matrix latent = testing::random_normal(n, 2, 3);
  const Matrix mixing = testing::random_normal(2, d, 4);
  return (latent * mixing).array().tanh().matrix() + 0.1 * testing::random_normal(n, d, 5);
}

// This rank's block of the rows and the model over it.
struct RankSetup {
  RowPartition partition;
  RowMatrix local;
  VaeModel model;
  RankSetup(const Communicator& comm, const RowMatrix& Y)
      : partition(static_cast<std::uint64_t>(Y.rows()), comm.size()),
        local(Y.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                           static_cast<Index>(partition.count(comm.rank())))),
        model(test_config(Y.cols()), kSeed, static_cast<std::uint64_t>(Y.rows()),
              partition.begin(comm.rank()), partition.count(comm.rank())) {}
};

struct Serial {
  VaeElboTerms terms;
  double weight = 0;
  Vector gradient;
};

// The independent reference: VaeElbo over the whole batch at once, with the step's noise.
Serial serial_elbo(const VaeElbo& elbo, const Vector& params, const RowMatrix& Y,
                   const std::vector<std::uint64_t>& rows, StepKey key) {
  RowMatrix batch(static_cast<Index>(rows.size()), Y.cols());
  for (Index i = 0; i < batch.rows(); ++i) batch.row(i) = Y.row(static_cast<Index>(rows[i]));
  const Matrix eps =
      vae_reparameterisation_noise(CounterRng(kSeed), key.epoch, key.step, rows, elbo.config().latent_dim);
  Serial s;
  s.weight = static_cast<double>(Y.rows()) / static_cast<double>(rows.size());
  s.terms = elbo.evaluate(params, batch, eps, s.weight, s.weight, s.gradient);
  return s;
}

void expect_terms(const BatchTerms& terms, const Serial& serial) {
  EXPECT_NEAR(terms.objective, serial.terms.value, kTolerance * std::abs(serial.terms.value));
  const double data_term = serial.weight * serial.terms.log_likelihood;
  EXPECT_NEAR(terms.sas, data_term, kTolerance * std::abs(data_term));
  EXPECT_NEAR(terms.kl, serial.terms.kl, kTolerance * std::abs(serial.terms.kl));
}

// Parameters away from the initial ones, so that no term is at a special value.
Vector perturbed(const Vector& params) {
  return params + 0.05 * testing::random_normal(params.size(), 1, 9);
}

TEST(VaeTrainingStep, ValueAndGradientEqualSerialElboAllreducedAndReduceScattered) {
  const Communicator comm;
  const Index n = 1000;
  const RowMatrix Y = test_data(n, kDataDim);
  const RankSetup rank(comm, Y);
  const VaeTrainingStep step(rank.model, comm, rank.partition, rank.local);
  const VaeElbo serial(test_config(kDataDim));
  ASSERT_EQ(rank.model.num_parameters(), serial.num_parameters());
  ShardedAdam sharded(comm, rank.model.num_parameters(), rank.model.summed_block(), {});
  const IndexRange slice = sharded.own_slice();
  const BatchSchedule schedule(n, 320, kSeed);  // batches of 320 to 639 rows
  const Vector params = perturbed(rank.model.initial_parameters());
  Vector gradient, sliced;
  for (std::uint64_t epoch = 0; epoch < 2; ++epoch) {
    for (std::uint64_t b = 0; b < schedule.batches_per_epoch(); ++b) {
      const auto rows = schedule.batch_rows(epoch, b);
      ASSERT_GE(rows.size(), 300u);
      const StepKey key{epoch, b};
      const Serial reference = serial_elbo(serial, params, Y, rows, key);
      ASSERT_GT(reference.gradient.cwiseAbs().maxCoeff(), 1e-3) << "gradient is trivially small";
      expect_terms(step.evaluate(params, rows, key, gradient, nullptr, nullptr), reference);
      EXPECT_LT(max_relative_error(gradient, reference.gradient), kTolerance);
      expect_terms(step.evaluate(params, rows, key, sliced, &sharded.slice_counts(), nullptr), reference);
      const Index length = slice.end - slice.begin;
      EXPECT_LT(max_relative_error(sliced.segment(slice.begin, length),
                                   reference.gradient.segment(slice.begin, length), 1e-3),
                kTolerance);
    }
  }
}

// A batch of the first 300 rows of 1200: at 2 or more ranks, some ranks own none of it and must
// contribute zeros (and still join both reductions).
TEST(VaeTrainingStep, RanksOwningNoBatchRowContributeNothing) {
  const Communicator comm;
  const Index n = 1200;
  const RowMatrix Y = test_data(n, kDataDim);
  const RankSetup rank(comm, Y);
  const VaeTrainingStep step(rank.model, comm, rank.partition, rank.local);
  std::vector<std::uint64_t> rows(300);
  std::iota(rows.begin(), rows.end(), 0);
  const Vector params = perturbed(rank.model.initial_parameters());
  const Serial reference = serial_elbo(VaeElbo(test_config(kDataDim)), params, Y, rows, {1, 4});
  Vector gradient;
  expect_terms(step.evaluate(params, rows, {1, 4}, gradient, nullptr, nullptr), reference);
  EXPECT_LT(max_relative_error(gradient, reference.gradient), kTolerance);
}

// What the trainer runs: the step reduce-scattering into ShardedAdam, over the whole parameter
// vector (the noise included). N = 61 is not divisible by 2, 3 or 4 and batches of 8-15 rows
// leave some ranks without rows. Adam carries the rank-count-dependent order of the sums into the
// parameters at the 1e-10 level; a real error (a wrong weight, a missed row) moves them by O(lr).
TEST(VaeTrainingStep, TwentyShardedAdamStepsEqualSerialAdam) {
  const Communicator comm;
  const Index n = 61, d = 7;
  const RowMatrix Y = test_data(n, d);
  const RankSetup rank(comm, Y);
  const VaeTrainingStep step(rank.model, comm, rank.partition, rank.local);
  const VaeElbo serial_elbo_(test_config(d));
  const AdamOptions options{.learning_rate = 1e-2};
  const BatchSchedule schedule(n, 8, kSeed);
  Vector serial = rank.model.initial_parameters(), params = serial, gradient;
  Adam adam(serial.size(), options);
  ShardedAdam sharded(comm, params.size(), rank.model.summed_block(), options);
  for (std::uint64_t s = 0; s < 20; ++s) {
    const StepKey key{s / schedule.batches_per_epoch(), s % schedule.batches_per_epoch()};
    const auto rows = schedule.batch_rows(key.epoch, key.step);
    adam.ascend(serial, serial_elbo(serial_elbo_, serial, Y, rows, key).gradient);
    step.evaluate(params, rows, key, gradient, &sharded.slice_counts(), nullptr);
    sharded.ascend(params, gradient);
  }
  EXPECT_LT((params - serial).norm() / serial.norm(), 1e-8);
  EXPECT_GT((serial - rank.model.initial_parameters()).norm(), 1e-2) << "training moved nothing";
  // Every rank holds the same parameters, the replicated noise variance included.
  Vector mean = params;
  comm.allreduce_sum(mean.data(), mean.size());
  EXPECT_LT((mean / comm.size() - params).norm() / params.norm(), 1e-15);
  const double noise = rank.model.decoder_noise_variance(params);
  EXPECT_EQ(comm.allreduce_max(noise), noise);
}

// The step's gradient against central differences of its own (reduced) objective, in fp64 on
// every coordinate of a small model: the decoder, the noise and both encoders.
TEST(VaeTrainingStep, GradientMatchesFiniteDifferencesOfTheStepObjective) {
  const Communicator comm;
  const Index n = 40, d = 5;
  const RowMatrix Y = test_data(n, d);
  VaeConfig config = test_config(d);
  config.encoder_hidden = {4};
  config.decoder_hidden = {4};
  const RowPartition partition(n, comm.size());
  const RowMatrix local = Y.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                                       static_cast<Index>(partition.count(comm.rank())));
  const VaeModel model(config, kSeed, n, partition.begin(comm.rank()), partition.count(comm.rank()));
  const VaeTrainingStep step(model, comm, partition, local);
  std::vector<std::uint64_t> rows(25);
  std::iota(rows.begin(), rows.end(), 10);
  const Vector params = perturbed(model.initial_parameters());
  Vector gradient, scratch;
  step.evaluate(params, rows, {0, 3}, gradient, nullptr, nullptr);
  const Vector fd = testing::finite_difference_gradient(
      [&](const Vector& p) {
        return step.evaluate(p, rows, {0, 3}, scratch, nullptr, nullptr).objective;
      },
      params);
  EXPECT_LT(max_relative_error(gradient, fd), 1e-6);
}

// A NaN on one rank's rows: every rank throws, naming the global row.
TEST(VaeTrainingStep, NonFiniteRowIsNamedOnEveryRank) {
  const Communicator comm;
  RowMatrix Y = test_data(100, 6);
  Y(77, 3) = std::nan("");
  const RankSetup rank(comm, Y);
  try {
    const VaeTrainingStep step(rank.model, comm, rank.partition, rank.local);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_TRUE(testing::contains(e.what(), "77")) << e.what();
  }
}

}  // namespace
}  // namespace gplvm
