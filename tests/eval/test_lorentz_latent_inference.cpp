// Free-latent inference on the hyperboloid (eval/latent_inference.hpp with the Lorentz latent
// space): the Riemannian gradient of the GP predictive log density against finite differences
// along exponential-map curves (fp64, relative error < 1e-6), every iterate of the ascent on the
// sheet with a density that never decreases, and the latents of rows generated from a known
// Lorentz configuration recovered from starts away from them.
#include <gtest/gtest.h>

#include <numbers>
#include <utility>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/eval/latent_inference.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/latent_space.hpp"
#include "support/lorentz_points.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kConfiguration = 39, kLatentDim = 2, kDim = 20;
constexpr double kNoise = 1e-3;

// The origin and rings of 6, 12 and 20 points at geodesic radii 0.5, 1.5 and 2.5 (Exp_o of polar
// tangent coordinates): neighbours 0.5 to 1.9 apart, closest near the origin.
Matrix rings() {
  const std::unique_ptr<LatentSpace> space = make_latent_space("lorentz", kLatentDim);
  Matrix tangent = Matrix::Zero(kConfiguration, kLatentDim);
  Index row = 1;
  for (const auto& [radius, count] : {std::pair{0.5, 6}, std::pair{1.5, 12}, std::pair{2.5, 20}})
    for (int k = 0; k < count; ++k, ++row) {
      const double angle = 2.0 * std::numbers::pi * (k + 0.5 * radius) / count;
      tangent.row(row) << radius * std::cos(angle), radius * std::sin(angle);
    }
  Matrix X;
  space->from_origin_tangent(tangent, X);
  return X;
}

// A known configuration on H^2 and D outputs drawn from the GP prior there.
struct LorentzProblem {
  std::unique_ptr<Kernel> kernel = make_kernel("hyperboloid_exp", kLatentDim + 1, {1.0, 1.0, 1.0});
  std::unique_ptr<LatentSpace> space = make_latent_space("lorentz", kLatentDim);
  Matrix latents = rings();
  RowMatrix Y = sample_gp_outputs(*kernel, kNoise, latents, kDim, CounterRng(72), 0);
  GpPredictiveDensity density{*kernel, kNoise, latents, Matrix(Y)};
};

// |<x, x>_L + 1| relative to x_0^2, the scale of the terms that cancel in it.
double off_sheet(const ConstVectorRef& x) {
  return std::abs(lorentz::minkowski_dot(x, x) + 1.0) / (x[0] * x[0]);
}

// Each row moved a geodesic distance `radius` from its latent, in a random tangent direction.
Matrix displaced(const Matrix& X, double radius, std::uint64_t seed) {
  Matrix Xi = testing::random_tangents(X, seed);
  for (Index i = 0; i < X.rows(); ++i)
    Xi.row(i) *= radius / std::sqrt(lorentz::minkowski_dot(Xi.row(i), Xi.row(i)));
  return testing::move_along(X, Xi, 1.0);
}

TEST(LorentzLatentInference, RiemannianGradientMatchesFiniteDifferencesAlongGeodesics) {
  const LorentzProblem p;
  const RowMatrix Y = testing::random_normal(6, kDim, 73);
  const Matrix X = testing::random_lorentz_points(6, kLatentDim, 74, 1.2);
  Matrix gradient;
  p.density.log_density(X, Y, &gradient);
  Matrix riemannian = gradient;
  p.space->manifold().riemannian_gradient(X, riemannian);
  const Matrix Xi = testing::random_tangents(X, 75);
  for (Index i = 0; i < X.rows(); ++i) {
    // One row at a time: d/dt f_i(Exp_{x_i}(t xi_i)) = <grad f_i, xi_i>_L (the induced metric).
    const auto f = [&](const Matrix& moved) {
      return p.density.log_density(moved.row(i), Y.row(i), nullptr)[0];
    };
    const double fd = testing::derivative_along(f, X, Xi);
    EXPECT_LT(testing::relative_error(lorentz::minkowski_dot(riemannian.row(i), Xi.row(i)), fd), 1e-6) << i;
    EXPECT_LT(testing::relative_error(gradient.row(i).dot(Xi.row(i)), fd), 1e-6) << i;     // ambient pairing
    EXPECT_LT(std::abs(lorentz::minkowski_dot(riemannian.row(i), X.row(i))), 1e-12) << i;  // tangent
  }
}

TEST(LorentzLatentInference, AscentStaysOnTheSheetAndNeverLowersTheDensity) {
  const LorentzProblem p;
  const RowMatrix Y = testing::random_normal(8, kDim, 76);
  const Matrix start = testing::random_lorentz_points(8, kLatentDim, 77, 2.0);
  LatentInferenceOptions options;
  Vector previous = p.density.log_density(start, Y, nullptr);
  const Vector first = previous;
  // The ascent is deterministic, so the run of s + 1 steps extends the run of s steps.
  for (int steps = 1; steps <= 30; ++steps) {
    options.steps = steps;
    const Matrix reached = maximise_log_density(p.density, *p.space, Y, start, options);
    for (Index n = 0; n < reached.rows(); ++n) {
      EXPECT_LT(off_sheet(reached.row(n)), 1e-12) << "row " << n << ", step " << steps;
      EXPECT_GT(reached(n, 0), 0.0);
    }
    const Vector f = p.density.log_density(reached, Y, nullptr);
    for (Index n = 0; n < f.size(); ++n) EXPECT_GE(f[n], previous[n]) << "row " << n << ", step " << steps;
    previous = f;
  }
  EXPECT_GT((previous - first).minCoeff(), 1e-3);  // every row improved
}

// The configuration's own rows, each started a geodesic distance 0.25 from its latent (half the
// smallest spacing, so the start is nearer its own latent than any other), come back to it within
// 1e-8. Why so tight: the kernel's cusp at d = 0 puts the maximum of a conditioned row's density at
// its own latent with a non-zero slope on every side, so the accept/reject ascent closes in on it
// geometrically (every overshoot halves the step) instead of stalling at a noise-sized distance as a
// smooth kernel would (measured: at most 1e-12 after 100 steps).
TEST(LorentzLatentInference, RecoversTheLatentsOfRowsFromAKnownConfiguration) {
  const LorentzProblem p;
  constexpr double kStart = 0.25, kRecovered = 1e-8;
  const Matrix pairwise = lorentz::pairwise_distances(p.latents, p.latents);
  for (Index i = 0; i < kConfiguration; ++i)
    for (Index j = 0; j < i; ++j) ASSERT_GE(pairwise(i, j), 2.0 * kStart - 1e-12) << i << ", " << j;
  const Matrix start = displaced(p.latents, kStart, 78);
  LatentInferenceOptions options;
  options.steps = 100;
  const Matrix reached = maximise_log_density(p.density, *p.space, p.Y, start, options);
  for (Index i = 0; i < kConfiguration; ++i) {
    EXPECT_NEAR(lorentz::distance(start.row(i), p.latents.row(i)), kStart, 1e-12) << i;
    EXPECT_LT(off_sheet(reached.row(i)), 1e-12) << i;
    EXPECT_LT(lorentz::distance(reached.row(i), p.latents.row(i)), kRecovered) << i;
  }
}

}  // namespace
}  // namespace gplvm
