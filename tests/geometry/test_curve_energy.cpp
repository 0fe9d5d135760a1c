// The expected discrete curve energy against its definition written out densely (distinct end
// variances, the covariance term with a minus sign), its gradient against finite differences, and
// its limit under refinement: the energy integral of the expected metric along the curve.
#include <gtest/gtest.h>

#include "geometry_fixture.hpp"
#include "gplvm/geometry/curve_energy.hpp"
#include "gplvm/geometry/expected_metric.hpp"

namespace gplvm {
namespace {

using namespace testing;

Matrix arc_nodes(Index n) {
  Matrix C(n, kGeometryQ);
  for (Index i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(n - 1);
    C(i, 0) = -1.2 + 2.4 * t;
    C(i, 1) = 0.3 + 0.8 * std::sin(3.0 * t);
  }
  return C;
}

TEST(CurveEnergy, SegmentsAreTheExpectedSquaredDecodedStepsWithTheirOwnEndVariances) {
  const auto k = geometry_kernel("eq_ard");
  const Matrix Z = circle_latents(24, 3), Y = smooth_outputs(Z);
  const double noise = 0.01;
  const GpPosterior posterior = GpPosterior::given_observations(*k, Z, Y, noise);
  const Matrix C = arc_nodes(7);
  const CurveEnergy e = expected_curve_energy(posterior, C, false);
  Matrix K;
  k->cross(Z, Z, K);
  K.diagonal().array() += noise;
  const Matrix weights = K.ldlt().solve(Y);
  double energy = 0.0, length = 0.0;
  for (Index i = 0; i + 1 < C.rows(); ++i) {
    const Matrix a = C.row(i), b = C.row(i + 1);
    Matrix ka, kb;
    k->cross(Z, a, ka);
    k->cross(Z, b, kb);
    const double mean_step = ((kb - ka).transpose() * weights).squaredNorm();
    const double va = dense_posterior_covariance(*k, Z, noise, a, a),
                 vb = dense_posterior_covariance(*k, Z, noise, b, b);
    const double cab = dense_posterior_covariance(*k, Z, noise, a, b);
    const double segment = mean_step + kGeometryD * (va + vb - 2.0 * cab);
    EXPECT_NEAR(e.segments[i], segment, 1e-12 * (1.0 + segment));
    energy += segment;
    length += std::sqrt(segment);
  }
  EXPECT_NEAR(e.energy, 6.0 * energy, 1e-11 * energy);
  EXPECT_NEAR(e.length, length, 1e-11 * length);
  EXPECT_NEAR(latent_length(C), (C.bottomRows(6) - C.topRows(6)).rowwise().norm().sum(), 1e-14);
}

TEST(CurveEnergy, GradientIsTheFiniteDifferenceOfTheEnergy) {
  for (const char* expression : {"eq_ard", "matern52", "eq_ard+linear"})
    for (const bool inducing : {false, true}) {
      const GpPosterior posterior =
          inducing ? inducing_posterior(expression) : observed_posterior(expression);
      const Matrix C = arc_nodes(9);
      const CurveEnergy e = expected_curve_energy(posterior, C, true);
      const auto f = [&](const Vector& v) {
        return expected_curve_energy(posterior, Eigen::Map<const Matrix>(v.data(), C.rows(), C.cols()), false)
            .energy;
      };
      const Vector fd = finite_difference_gradient(f, Eigen::Map<const Vector>(C.data(), C.size()));
      EXPECT_LT(max_relative_error(Eigen::Map<const Vector>(e.gradient.data(), e.gradient.size()), fd), 1e-6)
          << expression << (inducing ? " (inducing)" : "");
    }
}

// (N - 1) sum_i e_i -> integral_0^1 c'(t)^T E[G](c(t)) c'(t) dt as the nodes get dense.
TEST(CurveEnergy, RefinedItTendsToTheEnergyIntegralOfTheExpectedMetric) {
  const GpPosterior posterior = observed_posterior("eq_ard");
  const ExpectedMetric metric(posterior);
  const Index fine = 2001;
  const Matrix C = arc_nodes(fine);
  double integral = 0.0;  // midpoint rule on the same curve
  for (Index i = 0; i + 1 < fine; ++i) {
    const Vector velocity = (C.row(i + 1) - C.row(i)).transpose() * static_cast<double>(fine - 1);
    const Matrix mid = 0.5 * (C.row(i) + C.row(i + 1));
    integral += velocity.dot(metric.metric(mid) * velocity) / static_cast<double>(fine - 1);
  }
  const double coarse = expected_curve_energy(posterior, arc_nodes(51), false).energy;
  const double dense = expected_curve_energy(posterior, C, false).energy;
  EXPECT_LT(std::abs(dense - integral), 1e-4 * integral);
  EXPECT_LT(std::abs(dense - integral), std::abs(coarse - integral));  // and it converges from coarser
}

// The reduction P = K^{-1} - R R^T gives the same energy and gradient as the factor's solves.
TEST(CurveEnergy, ThePosteriorReductionGivesTheSameEnergyAndGradient) {
  for (const bool inducing : {false, true}) {
    const GpPosterior posterior = inducing ? inducing_posterior("eq_ard") : observed_posterior("eq_ard");
    const Matrix P = posterior_reduction(posterior);
    const Matrix C = arc_nodes(11);
    const CurveEnergy solved = expected_curve_energy(posterior, C, true);
    const CurveEnergy reduced = expected_curve_energy(posterior, C, true, &P);
    EXPECT_NEAR(reduced.energy, solved.energy, 1e-10 * solved.energy);
    EXPECT_LT((reduced.gradient - solved.gradient).norm(), 1e-9 * solved.gradient.norm());
  }
}

TEST(CurveEnergy, RefusesFewerThanTwoNodes) {
  const GpPosterior posterior = observed_posterior("eq_ard");
  EXPECT_THROW((void)expected_curve_energy(posterior, Matrix::Zero(1, kGeometryQ), false), InputError);
}

}  // namespace
}  // namespace gplvm
