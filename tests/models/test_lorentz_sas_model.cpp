// SAS and Bayesian SAS with latents on the hyperboloid (model.latent_space = "lorentz"): where the
// latents lie, what the encoder's output means, and which configurations are refused. The
// gradient's finite-difference test is in test_sas_model.cpp (the *_lorentz variants).
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/models/sas_model.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

SasModelConfig lorentz_config(bool bayesian) {
  SasModelConfig c;
  c.data_dim = 5;
  c.latent_dim = 2;
  c.bayesian = bayesian;
  c.encoder_hidden = {6};
  c.latent_space = "lorentz";
  c.decoder.kernel = "hyperboloid_exp";
  c.decoder.init.lengthscale = 2.0;
  c.seed = 4;
  return c;
}

// -<x, y>_L with the time-like coordinate first.
double minus_minkowski(const RowMatrix& X, Index i, const Matrix& Y, Index j) {
  return X(i, 0) * Y(j, 0) - X.row(i).tail(X.cols() - 1).dot(Y.row(j).tail(Y.cols() - 1));
}

TEST(LorentzSasModel, EncodedLatentsLieOnTheHyperboloidAtTheEncoderTangentsDistance) {
  for (const bool bayesian : {false, true}) {
    const SasModel model(lorentz_config(bayesian), 40, 0, 40);
    EXPECT_EQ(model.ambient_dim(), 3);
    EXPECT_EQ(model.latent_space(), "lorentz");
    const RowMatrix Y = testing::random_normal(40, 5, 8) * 3.0;
    Vector p = model.initial_parameters();
    RowMatrix mean, variance;
    model.encode(p, Y, 0, mean, &variance);
    ASSERT_EQ(mean.cols(), 3);
    std::vector<std::uint64_t> rows(40);
    for (Index i = 0; i < 40; ++i) rows[i] = i;
    const SasModel::LatentBatch l = model.latents_forward(p, rows, Y, {});
    ASSERT_EQ(l.tangent.cols(), 2);
    for (Index i = 0; i < 40; ++i) {
      EXPECT_NEAR(minus_minkowski(mean, i, mean, i), 1.0, 1e-12) << i;
      EXPECT_GT(mean(i, 0), 0.0);
      // The exponential map at the origin o = (1, 0, 0) moves a tangent v by its length:
      // d(o, x) = arccosh(x_0) = |v|.
      EXPECT_NEAR(std::acosh(mean(i, 0)), l.tangent.row(i).norm(), 1e-12 * (1 + l.tangent.row(i).norm()));
    }
    if (bayesian) {
      ASSERT_EQ(variance.cols(), 2);  // tangent-space variances: one per intrinsic dimension
      const RowMatrix samples = l.sample;
      for (Index i = 0; i < 40; ++i) EXPECT_NEAR(minus_minkowski(samples, i, l.sample, i), 1.0, 1e-12);
    }
  }
}

TEST(LorentzSasModel, KernelsThatDoNotFitTheSpaceAreRefusedByNameAndFreeLatentsLieOnTheSheet) {
  auto expect_refused = [](const SasModelConfig& c, const std::string& key) {
    try {
      SasModel(c, 20, 0, 20);
      ADD_FAILURE() << "accepted " << c.decoder.kernel << " on " << c.latent_space;
    } catch (const InputError& e) {
      EXPECT_EQ(e.context().key, key) << e.what();
    }
  };
  SasModelConfig c = lorentz_config(false);
  c.decoder.kernel = "eq_ard";
  expect_refused(c, "model.kernel");
  c.decoder.kernel = "hyperboloid_exp+linear";
  expect_refused(c, "model.kernel");
  // Free latents are points with Q + 1 coordinates, started on the sheet (the model takes them; the
  // minibatch trainer's refusal is train_config's).
  c = lorentz_config(false);
  c.latents = LatentKind::free;
  c.init = LatentInit::random;
  const SasModel free_model(c, 20, 0, 20);
  ASSERT_EQ(free_model.local_values_per_row(), c.latent_dim + 1);
  const RowMatrix points = free_model.local_block_rows(free_model.initial_parameters());
  EXPECT_LT(lorentz::max_sheet_deviation(points), 1e-12);
  EXPECT_GT(points.col(0).minCoeff(), 1.0);
  // The optimiser's in-place view of the points is that block.
  const Vector free_params = free_model.initial_parameters();
  const Eigen::Map<const RowMatrix> view(free_params.data() + free_model.curved_local_points_offset(), 20,
                                         c.latent_dim + 1);
  EXPECT_EQ(RowMatrix(view), points);
  c = lorentz_config(false);
  c.latent_space = "euclidean";
  expect_refused(c, "model.kernel");
  c.decoder.kernel = "hyperboloid_exp*hyperboloid_exp";
  c.latent_space = "lorentz";
  EXPECT_NO_THROW(SasModel(c, 20, 0, 20));
}

}  // namespace
}  // namespace gplvm
