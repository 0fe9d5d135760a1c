// VaeModel's contract with the trainer, checkpoints and commands: VaeElbo's layout with all of it
// shared and summed, no per-row parameters, no kernel (a clear error naming model.kind), the
// decoder's noise variance, and encode giving the encoders' outputs for any number of rows.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/models/vae_model.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

VaeConfig test_config() {
  VaeConfig config;
  config.data_dim = 6;
  config.latent_dim = 2;
  config.encoder_hidden = {10, 5};
  config.decoder_hidden = {7};
  config.noise_variance = 0.3;
  return config;
}

TEST(VaeModel, LayoutIsTheElbosAllSharedAndSummed) {
  const VaeModel model(test_config(), 4, 100, 30, 40);
  const VaeElbo elbo(test_config());
  EXPECT_EQ(model.kind(), "vae");
  EXPECT_TRUE(model.bayesian());
  EXPECT_EQ(model.latents(), LatentKind::amortised);
  EXPECT_FALSE(model.has_gp_decoder());
  EXPECT_EQ(model.num_parameters(), elbo.num_parameters());
  EXPECT_EQ(model.num_shared_parameters(), elbo.num_parameters());
  EXPECT_EQ(model.summed_block().begin, 0);
  EXPECT_EQ(model.summed_block().end, elbo.num_parameters());
  const Vector p = model.initial_parameters();
  EXPECT_TRUE(p == elbo.initial_parameters(4)) << "initial parameters keyed by train.seed";
  EXPECT_NEAR(model.decoder_noise_variance(p), 0.3, 1e-15);
  EXPECT_EQ(model.local_values_per_row(), 0);
  const RowMatrix rows = model.local_block_rows(p);
  EXPECT_EQ(rows.rows(), 40);
  EXPECT_EQ(rows.cols(), 0);
  Vector q = p;
  model.set_local_block_rows(q, rows);
  EXPECT_TRUE(q == p);
  EXPECT_THROW(model.set_local_block_rows(q, RowMatrix(40, 1)), InputError);
}

TEST(VaeModel, KernelIsAnErrorNamingTheModelKind) {
  const VaeModel model(test_config(), 0, 10, 0, 10);
  try {
    model.kernel(model.initial_parameters());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "model.kind");
    EXPECT_EQ(e.context().value, "vae");
  }
}

// 5000 rows: encode works in chunks of 4096, and each row's latent must be the encoders' output
// for that row alone (compared with one forward pass of each encoder over all rows).
TEST(VaeModel, EncodeGivesTheEncodersOutputsAcrossChunks) {
  const VaeModel model(test_config(), 1, 5000, 0, 5000);
  const Vector p = model.initial_parameters() + 0.1 * testing::random_normal(model.num_parameters(), 1, 2);
  const RowMatrix Y = testing::random_normal(5000, 6, 3);
  RowMatrix mean, variance;
  model.encode(p, Y, 0, mean, &variance);
  const VaeElbo& elbo = model.elbo();
  MlpWorkspace<double> ws;
  Matrix expected_mean, expected_variance;
  elbo.mean_encoder().forward<double>(p.data() + elbo.mean_encoder_offset(), Y, ws, expected_mean);
  elbo.variance_encoder().forward<double>(p.data() + elbo.variance_encoder_offset(), Y, ws,
                                          expected_variance);
  EXPECT_LT((mean - expected_mean).norm(), 1e-12 * expected_mean.norm());
  EXPECT_LT((variance - expected_variance).norm(), 1e-12 * expected_variance.norm());
  EXPECT_GT(variance.minCoeff(), 0.0);
  // fp32 rows are encoded from their (exact) double values.
  const RowMatrixF Y32 = Y.cast<float>();
  RowMatrix mean32;
  model.encode(p, DataRefF(Y32), 0, mean32, nullptr);
  RowMatrix mean_of_rounded;
  model.encode(p, RowMatrix(Y32.cast<double>()), 0, mean_of_rounded, nullptr);
  EXPECT_TRUE(mean32 == mean_of_rounded);
}

TEST(VaeModel, RowRangeOutsideTheDataIsRejected) {
  EXPECT_THROW(VaeModel(test_config(), 0, 10, 5, 6), InputError);
  EXPECT_THROW(VaeModel(test_config(), 0, 0, 0, 0), InputError);
}

}  // namespace
}  // namespace gplvm
