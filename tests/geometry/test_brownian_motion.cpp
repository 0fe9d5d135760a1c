// Brownian motion under the expected metric: a step's covariance is G^{-1} (Monte Carlo, 20,000
// draws), the Riemannian drift is -1/2 g^ij Gamma^k_ij (in one dimension -g' / (4 g^2), with g' by
// finite differences), the thesis's Algorithm 3 steps with G itself, and the parametrix density of a
// constant metric is the Gaussian N(mu, t G^{-1}).
#include <gtest/gtest.h>

#include <numbers>

#include "geometry_fixture.hpp"
#include "gplvm/geometry/brownian_motion.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/latent_space.hpp"

namespace gplvm {
namespace {

using namespace testing;

TEST(BrownianMotion, AStepsCovarianceIsTheInverseMetric) {
  const GpPosterior posterior = observed_posterior("eq_ard");
  const ExpectedMetric metric(posterior);
  const Vector start = (Vector(2) << 1.2, 0.6).finished();
  BrownianOptions o;
  o.method = BrownianMethod::random_walk;
  o.steps = 1;
  o.time = 1e-3;
  o.seed = 17;
  const int draws = 20000;
  Matrix steps(draws, 2);
  for (int p = 0; p < draws; ++p)
    steps.row(p) = brownian_path(metric, start, o, p).row(1) - start.transpose();
  const Matrix centred = steps.rowwise() - steps.colwise().mean();
  const Matrix covariance = centred.transpose() * centred / (draws - 1) / o.time;
  const Matrix want = metric.metric(start.transpose()).inverse();
  // Off the diagonal too: a transposed factor would give the right variances and the wrong correlation.
  EXPECT_LT((covariance - want).norm(), 0.05 * want.norm()) << covariance << "\n" << want;
  o.method = BrownianMethod::thesis_algorithm3;
  const BrownianStep thesis = brownian_step(metric, start, o.method);
  EXPECT_LT((thesis.covariance - metric.metric(start.transpose())).norm(), 1e-12 * thesis.covariance.norm());
  EXPECT_EQ(thesis.drift.norm(), 0.0);
}

TEST(BrownianMotion, TheRiemannianDriftInOneDimensionIsMinusGPrimeOverFourGSquared) {
  const Matrix Z = Vector::LinSpaced(15, -2.0, 2.0);
  const Matrix Y = Z.array().sin().matrix();
  const EqArdKernel k(1.1, 0.7, 1);
  const GpPosterior posterior = GpPosterior::given_observations(k, Z, Y, 0.01);
  const ExpectedMetric metric(posterior);
  for (const double x : {-1.3, 0.2, 2.6}) {
    const auto g = [&](double at) { return metric.metric(Matrix::Constant(1, 1, at))(0, 0); };
    const double h = 1e-5, slope = (g(x + h) - g(x - h)) / (2 * h);
    const BrownianStep step = brownian_step(metric, Vector::Constant(1, x), BrownianMethod::riemannian);
    EXPECT_NEAR(step.drift[0], -slope / (4.0 * g(x) * g(x)), 1e-7 * (1.0 + std::abs(slope / (g(x) * g(x)))));
    EXPECT_NEAR(step.covariance(0, 0), 1.0 / g(x), 1e-12 / g(x));
  }
}

TEST(BrownianMotion, ParametrixOfAConstantMetricIsTheGaussian) {
  const Matrix G = (Matrix(2, 2) << 3.0, 0.5, 0.5, 2.0).finished();
  const Vector mu = (Vector(2) << 0.2, -0.1).finished(), x = (Vector(2) << 0.9, 0.4).finished();
  const double t = 0.7, d = std::sqrt((x - mu).dot(G * (x - mu)));
  const Matrix cov = t * G.inverse();
  const double gaussian = -std::log(2 * std::numbers::pi) - 0.5 * std::log(cov.determinant()) -
                          0.5 * (x - mu).dot(cov.inverse() * (x - mu));
  EXPECT_NEAR(parametrix_log_density(G, d, t), gaussian, 1e-12);
}

// On the sphere S^2, in the exponential chart at its origin: the step covariance is (A^T E[G] A)^{-1}
// with A the chart's Jacobian (here by central differences of the chart's points), paths stay on the
// sphere, and the riemannian drift, which would need the chart metric's connection, is refused.
TEST(BrownianMotion, OnTheSphereTheChartsPulledBackMetricGovernsTheSteps) {
  const std::unique_ptr<LatentSpace> sphere = make_latent_space("sphere", 2);
  const LatentChart chart(*sphere);
  const GpPosterior posterior = sphere_posterior(25, 21);
  const ExpectedMetric metric(posterior);
  const Vector v = (Vector(2) << 0.4, -0.3).finished();
  Matrix A(3, 2);
  constexpr double h = 1e-6;
  for (Index k = 0; k < 2; ++k) {
    Vector up = v, down = v;
    up[k] += h;
    down[k] -= h;
    A.col(k) = (chart.points(up.transpose()) - chart.points(down.transpose())).transpose() / (2 * h);
  }
  const Matrix want = (A.transpose() * metric.metric(chart.points(v.transpose())) * A).inverse();
  const BrownianStep step = brownian_step(metric, v, BrownianMethod::random_walk, &chart);
  EXPECT_LT((step.covariance - want).norm(), 1e-7 * want.norm()) << step.covariance << "\n" << want;
  BrownianOptions o;
  o.method = BrownianMethod::random_walk;
  o.steps = 6;
  o.time = 0.05;
  const Matrix points = chart.points(brownian_path(metric, v, o, 2, &chart));
  EXPECT_LT((points.rowwise().norm().array() - 1.0).abs().maxCoeff(), 1e-12);
  EXPECT_THROW((void)brownian_step(metric, v, BrownianMethod::riemannian, &chart), InputError);
}

TEST(BrownianMotion, PathsDependOnlyOnSeedAndIndexAndBadOptionsAreRefused) {
  const GpPosterior posterior = observed_posterior("eq_ard");
  const ExpectedMetric metric(posterior);
  BrownianOptions o;
  o.steps = 5;
  const Vector start = (Vector(2) << 1.0, 0.0).finished();
  EXPECT_EQ(brownian_path(metric, start, o, 3), brownian_path(metric, start, o, 3));
  EXPECT_NE(brownian_path(metric, start, o, 3), brownian_path(metric, start, o, 4));
  o.time = 0.0;
  EXPECT_THROW((void)brownian_path(metric, start, o, 0), InputError);
  EXPECT_THROW((void)parse_brownian_method("heat"), InputError);
}

}  // namespace
}  // namespace gplvm
