// Rank-count invariance of data-parallel training: 20 Adam steps of the distributed step at 1-4
// ranks must give the parameters of the serial model (computed on every rank), for SAS and
// Bayesian SAS, amortised and free latents. N = 61 is not divisible by 2, 3 or 4, and batches of
// 8-15 rows over 61 rows leave some ranks without any row of some batches.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/optim/adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "gplvm/train/distributed_sas_step.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

struct Variant {
  bool bayesian;
  LatentKind latents;
};

void PrintTo(const Variant& v, std::ostream* os) {
  *os << (v.bayesian ? "bayesian_" : "sas_") << to_string(v.latents);
}

class DistributedTraining : public ::testing::TestWithParam<Variant> {};

constexpr std::uint64_t kRows = 61;
constexpr Index kDim = 7, kActive = 3;
constexpr int kSteps = 20;

SasModelConfig config(const Variant& v) {
  SasModelConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.bayesian = v.bayesian;
  c.latents = v.latents;
  c.encoder_hidden = {10, 6};
  c.lengthscale = 1.0;
  c.seed = 11;
  return c;
}

// Runs kSteps Adam steps; `step(params, rows, key, grad)` evaluates one batch.
template <typename StepFn>
Vector train(Vector params, StepFn step) {
  Adam adam(params.size(), {.learning_rate = 1e-2});
  const BatchSchedule schedule(kRows, 8, 11);
  Vector grad;
  for (int s = 0; s < kSteps; ++s) {
    const std::uint64_t epoch = s / schedule.batches_per_epoch(), b = s % schedule.batches_per_epoch();
    step(params, schedule.batch_rows(epoch, b), StepKey{epoch, b}, grad);
    adam.ascend(params, grad);
  }
  return params;
}

double relative_difference(const ConstVectorRef& a, const ConstVectorRef& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

TEST_P(DistributedTraining, ParametersAfterTwentyStepsEqualSerial) {
  const Communicator comm;
  const Variant v = GetParam();
  const RowMatrix Y = testing::random_normal(kRows, kDim, 5);

  const SasModel serial_model(config(v), kRows, 0, kRows);
  const Vector serial =
      train(serial_model.initial_parameters(), [&](Vector& p, const auto& rows, StepKey key, Vector& g) {
        RowMatrix batch(rows.size(), kDim);
        for (size_t i = 0; i < rows.size(); ++i) batch.row(i) = Y.row(rows[i]);
        serial_model.evaluate(p, {rows, batch, kActive}, key, g);
      });

  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const SasModel model(config(v), kRows, begin, count);
  const RowMatrix local = Y.middleRows(begin, count);
  const DistributedSasStep distributed(model, comm, partition, local);
  const Vector params =
      train(model.initial_parameters(), [&](Vector& p, const auto& rows, StepKey key, Vector& g) {
        distributed.evaluate(p, rows, kActive, key, g);
      });

  const Index shared = model.num_shared_parameters();
  EXPECT_LT(relative_difference(params.head(shared), serial.head(shared)), 1e-9);
  if (v.latents == LatentKind::free) {
    const Index q = 2, blocks = v.bayesian ? 2 : 1;
    for (Index block = 0; block < blocks; ++block) {
      const auto mine = params.segment(shared + block * count * q, count * q);
      const auto theirs = serial.segment(shared + block * kRows * q + begin * q, count * q);
      if (count > 0) EXPECT_LT(relative_difference(mine, theirs), 1e-9) << "block " << block;
    }
  }
  // Every rank holds the same shared parameters.
  Vector check = params.head(shared);
  comm.allreduce_sum(check.data(), check.size());
  EXPECT_LT(relative_difference(check / comm.size(), params.head(shared)), 1e-15);
}

INSTANTIATE_TEST_SUITE_P(Variants, DistributedTraining,
                         ::testing::Values(Variant{false, LatentKind::amortised},
                                           Variant{true, LatentKind::amortised},
                                           Variant{false, LatentKind::free},
                                           Variant{true, LatentKind::free}));

}  // namespace
}  // namespace gplvm
