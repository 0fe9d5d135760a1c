// Free-latent inference (eval/latent_inference.hpp): the hand gradient of the GP predictive log
// density against central finite differences (fp64, relative error < 1e-6) for a stationary and a
// non-stationary kernel (whose k(x, x) depends on x), and the ascent never lowering the density.
#include <gtest/gtest.h>

#include "gplvm/eval/latent_inference.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kConditioning = 15, kRows = 4, kLatentDim = 2, kDim = 3;

GpPredictiveDensity density_for(const std::string& kernel_expression) {
  const std::unique_ptr<Kernel> k = make_kernel(kernel_expression, kLatentDim, {1.2, 0.9, 1.0});
  return GpPredictiveDensity(*k, 0.05, testing::random_normal(kConditioning, kLatentDim, 51),
                             testing::random_normal(kConditioning, kDim, 52));
}

void expect_gradient_matches_finite_differences(const std::string& kernel_expression) {
  const GpPredictiveDensity density = density_for(kernel_expression);
  const RowMatrix Y = testing::random_normal(kRows, kDim, 53);
  const Matrix X = testing::random_normal(kRows, kLatentDim, 54);
  Matrix gradient;
  density.log_density(X, Y, &gradient);
  // The rows are independent: the sum's gradient w.r.t. all latents at once, flattened.
  const auto total = [&](const Vector& flat) {
    return density.log_density(Eigen::Map<const Matrix>(flat.data(), kRows, kLatentDim), Y, nullptr).sum();
  };
  const Vector flat = Eigen::Map<const Vector>(X.data(), X.size());
  const Vector fd = testing::finite_difference_gradient(total, flat, 1e-5);
  EXPECT_LT(testing::max_relative_error(Eigen::Map<const Vector>(gradient.data(), gradient.size()), fd), 1e-6)
      << kernel_expression;
}

TEST(LatentInference, GradientMatchesFiniteDifferencesForAStationaryKernel) {
  expect_gradient_matches_finite_differences("eq_ard");
}

TEST(LatentInference, GradientMatchesFiniteDifferencesWhenKxxDependsOnX) {
  expect_gradient_matches_finite_differences("matern52+linear");
}

TEST(LatentInference, AscentNeverLowersTheDensityAndImprovesAFarStart) {
  const GpPredictiveDensity density = density_for("eq_ard");
  const RowMatrix Y = testing::random_normal(kRows, kDim, 55);
  const Matrix start = 2.0 * testing::random_normal(kRows, kLatentDim, 56);
  const Vector before = density.log_density(start, Y, nullptr);
  LatentInferenceOptions options;
  options.steps = 40;
  const std::unique_ptr<LatentSpace> space = make_latent_space("euclidean", kLatentDim);
  const Matrix reached = maximise_log_density(density, *space, Y, start, options);
  const Vector after = density.log_density(reached, Y, nullptr);
  for (Index n = 0; n < kRows; ++n) EXPECT_GE(after[n], before[n]) << n;
  EXPECT_GT((after - before).sum(), 1e-3);
  options.steps = 0;
  EXPECT_EQ(maximise_log_density(density, *space, Y, start, options), start);
}

}  // namespace
}  // namespace gplvm
