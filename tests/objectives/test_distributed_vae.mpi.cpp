// The VAE baseline's batch ELBO split by rows, run under mpirun at 1-4 ranks: each rank evaluates
// the batch rows it owns (block partition of the N data rows), with the whole batch's weights and
// noise drawn from its rows' global ids alone; one allreduce of [value, log-likelihood, KL,
// gradient] must give every rank the serial ELBO and gradient. Sizes (B >= 300, D = 50) are large
// enough for a wrong reduction or a rank-dependent draw to show above rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/objectives/vae_elbo.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::max_relative_error;

constexpr double kTolerance = 1e-10;
constexpr std::uint64_t kSeed = 17;
constexpr Index kDataDim = 50;

VaeConfig test_config() {
  VaeConfig config;
  config.data_dim = kDataDim;
  config.latent_dim = 2;
  config.encoder_hidden = {32, 16};
  config.decoder_hidden = {16, 32};
  return config;
}

// Rows that look like data: a smooth function of a 2-D latent plus noise, not all N(0, 1).
RowMatrix test_data(Index n) {
  const Matrix latent = testing::random_normal(n, 2, 3);
  const Matrix mixing = testing::random_normal(2, kDataDim, 4);
  return (latent * mixing).array().tanh().matrix() + 0.1 * testing::random_normal(n, kDataDim, 5);
}

struct Evaluation {
  VaeElboTerms terms;
  Vector gradient;
};

// The ELBO terms of the given global rows, with the noise of step (epoch, step) and the weight of
// the whole batch.
Evaluation evaluate_rows(const VaeElbo& elbo, const Vector& params, const RowMatrix& Y,
                         const std::vector<std::uint64_t>& rows, std::uint64_t step, double weight) {
  RowMatrix Y_rows(static_cast<Index>(rows.size()), Y.cols());
  for (Index i = 0; i < Y_rows.rows(); ++i) Y_rows.row(i) = Y.row(static_cast<Index>(rows[i]));
  const Matrix eps = vae_reparameterisation_noise(CounterRng(kSeed), 0, step, rows, elbo.config().latent_dim);
  Evaluation e;
  e.terms = elbo.evaluate(params, Y_rows, eps, weight, weight, e.gradient);
  return e;
}

// This rank's rows of the batch, its terms, and one allreduce of all of them.
Evaluation distributed(const Communicator& comm, const RowPartition& partition, const VaeElbo& elbo,
                       const Vector& params, const RowMatrix& Y, const std::vector<std::uint64_t>& rows,
                       std::uint64_t step, double weight) {
  std::vector<std::uint64_t> local;
  for (const std::uint64_t r : rows)
    if (partition.owner(r) == comm.rank()) local.push_back(r);
  Evaluation e = evaluate_rows(elbo, params, Y, local, step, weight);
  Vector buffer(3 + e.gradient.size());
  buffer << e.terms.value, e.terms.log_likelihood, e.terms.kl, e.gradient;
  comm.allreduce_sum(buffer.data(), buffer.size());
  e.terms = {buffer[0], buffer[1], buffer[2]};
  e.gradient = buffer.tail(e.gradient.size());
  return e;
}

void expect_equal(const Evaluation& distributed, const Evaluation& serial) {
  EXPECT_NEAR(distributed.terms.value, serial.terms.value, kTolerance * std::abs(serial.terms.value));
  EXPECT_NEAR(distributed.terms.log_likelihood, serial.terms.log_likelihood,
              kTolerance * std::abs(serial.terms.log_likelihood));
  EXPECT_NEAR(distributed.terms.kl, serial.terms.kl, kTolerance * std::abs(serial.terms.kl));
  EXPECT_LT(max_relative_error(distributed.gradient, serial.gradient), kTolerance);
  EXPECT_GT(serial.gradient.cwiseAbs().maxCoeff(), 1e-3) << "gradient is trivially small";
}

TEST(DistributedVae, ReducedRowTermsEqualSerialElboAndGradient) {
  const Communicator comm;
  const Index n = 1000;
  const RowMatrix Y = test_data(n);
  const VaeElbo elbo(test_config());
  const Vector params = elbo.initial_parameters(kSeed);
  const RowPartition partition(n, comm.size());
  const BatchSchedule schedule(n, 320, kSeed);  // shuffled batches of 320 and more rows
  for (std::uint64_t b = 0; b < schedule.batches_per_epoch(); ++b) {
    const auto rows = schedule.batch_rows(0, b);
    ASSERT_GE(rows.size(), 300u);
    const double weight = static_cast<double>(n) / static_cast<double>(rows.size());
    const Evaluation serial = evaluate_rows(elbo, params, Y, rows, b, weight);
    expect_equal(distributed(comm, partition, elbo, params, Y, rows, b, weight), serial);
  }
}

// A batch of the first 300 rows of 1200: at 2 or more ranks, some ranks own none of it and must
// contribute zeros (and still join the allreduce).
TEST(DistributedVae, RanksOwningNoBatchRowContributeNothing) {
  const Communicator comm;
  const Index n = 1200;
  const RowMatrix Y = test_data(n);
  const VaeElbo elbo(test_config());
  const Vector params = elbo.initial_parameters(kSeed + 1);
  std::vector<std::uint64_t> rows(300);
  std::iota(rows.begin(), rows.end(), 0);
  const double weight = static_cast<double>(n) / 300.0;
  const Evaluation serial = evaluate_rows(elbo, params, Y, rows, 7, weight);
  expect_equal(distributed(comm, RowPartition(n, comm.size()), elbo, params, Y, rows, 7, weight), serial);
}

}  // namespace
}  // namespace gplvm
