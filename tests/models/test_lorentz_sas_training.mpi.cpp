// Rank-count invariance of data-parallel SAS and Bayesian SAS with latents on the hyperboloid
// (model.latent_space = "lorentz", kernel hyperboloid_exp): one step's objective and gradient,
// and 20 Adam steps, of the distributed step at 1-4 ranks equal the serial model's. N = 61 is not
// divisible by 2, 3 or 4, so ranks hold uneven shares and some batches miss some ranks.
#include <gtest/gtest.h>

#include "gplvm/models/distributed_sas_step.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr std::uint64_t kRows = 61;
constexpr Index kDim = 7, kActive = 3;
constexpr int kSteps = 20;
constexpr AdamOptions kAdam{.learning_rate = 1e-2};

SasModelConfig lorentz_config(bool bayesian, bool reproducible) {
  SasModelConfig c =
      testing::training_test_config(kDim, bayesian, LatentKind::amortised, Precision::float64, {10, 6}, 11);
  c.latent_space = "lorentz";
  c.decoder.kernel = "hyperboloid_exp";
  c.decoder.init.lengthscale = 2.0;
  c.reproducible_sums = reproducible;
  return c;
}

double relative_difference(const ConstVectorRef& a, const ConstVectorRef& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

RowMatrix batch_of(const RowMatrix& Y, const std::vector<std::uint64_t>& rows) {
  RowMatrix batch(rows.size(), Y.cols());
  for (size_t i = 0; i < rows.size(); ++i) batch.row(i) = Y.row(rows[i]);
  return batch;
}

struct Case {
  bool bayesian, reproducible;
};

class LorentzDistributedTraining : public ::testing::TestWithParam<Case> {};

TEST_P(LorentzDistributedTraining, StepAndTwentyAdamStepsEqualSerial) {
  const Communicator comm;
  const Case k = GetParam();
  const RowMatrix Y = testing::random_normal(kRows, kDim, 5);
  const SasModelConfig c = lorentz_config(k.bayesian, k.reproducible);
  const SasModel serial_model(c, kRows, 0, kRows);
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const RowMatrix local = Y.middleRows(begin, count);
  const SasModel model(c, kRows, begin, count);
  const DistributedSasStep distributed(model, comm, partition, local);
  const BatchSchedule schedule(kRows, 8, 11);

  // One step: the objective, its KL and the whole gradient.
  const std::vector<std::uint64_t> rows = schedule.batch_rows(0, 1);
  const Vector p0 = serial_model.initial_parameters();
  Vector g_serial, g_distributed;
  const BatchTerms serial_terms =
      serial_model.evaluate(p0, {rows, batch_of(Y, rows), kActive}, {0, 1}, g_serial);
  const BatchTerms terms = distributed.evaluate(p0, rows, kActive, {0, 1}, g_distributed);
  EXPECT_NEAR(terms.objective, serial_terms.objective, 1e-10 * std::abs(serial_terms.objective));
  EXPECT_NEAR(terms.kl, serial_terms.kl, 1e-10 * (1 + std::abs(serial_terms.kl)));
  if (k.bayesian) {
    EXPECT_GT(std::abs(terms.kl), 0.0);
  }
  EXPECT_LT(relative_difference(g_distributed, g_serial), 1e-10);

  // Twenty steps, Adam serial against Adam sharded over the ranks (what the trainer runs).
  Adam serial_adam(serial_model.num_parameters(), kAdam);
  ShardedAdam sharded(comm, model.num_parameters(), distributed.encoder_block(), kAdam);
  Vector serial = p0, params = model.initial_parameters(), grad;
  for (int s = 0; s < kSteps; ++s) {
    const std::uint64_t epoch = s / schedule.batches_per_epoch(), b = s % schedule.batches_per_epoch();
    const std::vector<std::uint64_t> batch = schedule.batch_rows(epoch, b);
    serial_model.evaluate(serial, {batch, batch_of(Y, batch), kActive}, {epoch, b}, grad);
    serial_adam.ascend(serial, grad);
    distributed.evaluate(params, batch, kActive, {epoch, b}, grad, &sharded.slice_counts());
    sharded.ascend(params, grad);
  }
  EXPECT_LT(relative_difference(params, serial), 1e-8);
}

INSTANTIATE_TEST_SUITE_P(Cases, LorentzDistributedTraining,
                         ::testing::Values(Case{false, false}, Case{true, false}, Case{true, true}),
                         [](const auto& info) {
                           return std::string(info.param.bayesian ? "bayesian_sas" : "sas") +
                                  (info.param.reproducible ? "_reproducible" : "");
                         });

}  // namespace
}  // namespace gplvm
