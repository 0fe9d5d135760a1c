#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/objectives/bayesian_sas.hpp"
#include "gplvm/model/gaussian_kl.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

TEST(GaussianKl, ZeroAtPriorAndMatchesMonteCarlo) {
  EXPECT_NEAR(gaussian_kl(Matrix::Zero(3, 2), Matrix::Ones(3, 2)), 0.0, 1e-15);
  // KL = E_q[log q(x) - log p(x)] for one 1-D Gaussian, estimated by sampling.
  const double mu = 0.7, v = 0.3;
  const CounterRng rng(5);
  const int n = 400000;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double e = rng.normal(RngPurpose::test, 0, 0, i), x = mu + std::sqrt(v) * e;
    sum += (-0.5 * std::log(v) - 0.5 * e * e) - (-0.5 * x * x);
  }
  const double kl = gaussian_kl(Matrix::Constant(1, 1, mu), Matrix::Constant(1, 1, v));
  EXPECT_NEAR(sum / n, kl, 5e-3);
  EXPECT_GT(kl, 0.0);
}

TEST(GaussianKl, GradientMatchesFiniteDifferences) {
  const Matrix mu = random_normal(4, 3, 1);
  const Matrix v = random_normal(4, 3, 2).array().exp();
  Vector p(24);
  p << Eigen::Map<const Vector>(mu.data(), 12), Eigen::Map<const Vector>(v.data(), 12);
  auto f = [](const Vector& q) {
    return gaussian_kl(Eigen::Map<const Matrix>(q.data(), 4, 3),
                       Eigen::Map<const Matrix>(q.data() + 12, 4, 3));
  };
  Matrix dmu = Matrix::Zero(4, 3), dv = Matrix::Zero(4, 3);
  gaussian_kl_backward(mu, v, 1.0, dmu, dv);
  Vector analytic(24);
  analytic << Eigen::Map<const Vector>(dmu.data(), 12), Eigen::Map<const Vector>(dv.data(), 12);
  EXPECT_LT(max_relative_error(analytic, finite_difference_gradient(f, p)), 1e-7);
}

struct Problem {
  EqArdKernel kernel{1.0, (Vector(2) << 0.8, 1.2).finished()};
  double noise = 0.25;
  Matrix mean_a, var_a, eps_a, mean_r, var_r, eps_r;
  RowMatrix Ya, Yr;
};

Problem make_problem(Index a, Index r, Index d) {
  Problem p;
  const Matrix X = random_normal(a + r, 2, 11);
  const RowMatrix Y = sample_gp_outputs(p.kernel, p.noise, X, d, CounterRng(11), 0);
  p.mean_a = X.topRows(a);
  p.mean_r = X.bottomRows(r);
  p.var_a = 0.05 * random_normal(a, 2, 12).array().exp();
  p.var_r = 0.05 * random_normal(r, 2, 13).array().exp();
  p.eps_a = random_normal(a, 2, 14);
  p.eps_r = random_normal(r, 2, 15);
  p.Ya = Y.topRows(a);
  p.Yr = Y.bottomRows(r);
  return p;
}

BayesianSasGradient evaluate(const Problem& p, double w, double kl_w) {
  return bayesian_sas_objective(p.kernel, p.noise, {p.mean_a, p.var_a, p.eps_a}, p.Ya,
                                {p.mean_r, p.var_r, p.eps_r}, p.Yr, w, kl_w);
}

TEST(BayesianSas, ValueIsSasAtTheSampleMinusWeightedKl) {
  const Problem p = make_problem(7, 9, 3);
  const BayesianSasGradient g = evaluate(p, 3.0, 4.0);
  const Matrix Xa = p.mean_a.array() + p.var_a.array().sqrt() * p.eps_a.array();
  const Matrix Xr = p.mean_r.array() + p.var_r.array().sqrt() * p.eps_r.array();
  const double sas = sas_objective(p.kernel, p.noise, Xa, p.Ya, Xr, p.Yr, 3.0).value;
  const double kl = gaussian_kl(p.mean_a, p.var_a) + gaussian_kl(p.mean_r, p.var_r);
  EXPECT_NEAR(g.sas_value, sas, 1e-12 * std::abs(sas));
  EXPECT_NEAR(g.value, sas - 4.0 * kl, 1e-12 * std::abs(g.value));
}

TEST(BayesianSas, GradientsThroughTheSampleMatchFiniteDifferences) {
  const Problem p = make_problem(6, 8, 4);
  const double w = 5.0, kl_w = 7.0;
  const BayesianSasGradient g = evaluate(p, w, kl_w);
  const Index nh = p.kernel.num_hyperparameters();
  Vector x(12 + 12 + 16 + 16 + nh + 1);
  x << Eigen::Map<const Vector>(p.mean_a.data(), 12), Eigen::Map<const Vector>(p.var_a.data(), 12),
      Eigen::Map<const Vector>(p.mean_r.data(), 16), Eigen::Map<const Vector>(p.var_r.data(), 16),
      p.kernel.hyperparameters(), std::log(p.noise);
  auto f = [&](const Vector& v) {
    Problem q = p;  // eps held fixed
    q.mean_a = Eigen::Map<const Matrix>(v.data(), 6, 2);
    q.var_a = Eigen::Map<const Matrix>(v.data() + 12, 6, 2);
    q.mean_r = Eigen::Map<const Matrix>(v.data() + 24, 8, 2);
    q.var_r = Eigen::Map<const Matrix>(v.data() + 40, 8, 2);
    q.kernel.set_hyperparameters(v.segment(56, nh));
    q.noise = std::exp(v[56 + nh]);
    return evaluate(q, w, kl_w).value;
  };
  const Vector fd = finite_difference_gradient(f, x, 1e-6);
  Vector analytic(x.size());
  analytic << Eigen::Map<const Vector>(g.d_mean_active.data(), 12),
      Eigen::Map<const Vector>(g.d_variance_active.data(), 12),
      Eigen::Map<const Vector>(g.d_mean_remainder.data(), 16),
      Eigen::Map<const Vector>(g.d_variance_remainder.data(), 16), g.d_kernel, g.d_log_noise;
  EXPECT_LT(max_relative_error(analytic.head(12), fd.head(12)), 1e-6) << "active mean";
  EXPECT_LT(max_relative_error(analytic.segment(12, 12), fd.segment(12, 12)), 1e-6) << "active variance";
  EXPECT_LT(max_relative_error(analytic.segment(24, 16), fd.segment(24, 16)), 1e-6) << "remainder mean";
  EXPECT_LT(max_relative_error(analytic.segment(40, 16), fd.segment(40, 16)), 1e-6) << "remainder variance";
  EXPECT_LT(max_relative_error(analytic.tail(nh + 1), fd.tail(nh + 1)), 1e-6) << "hyperparameters";
}

TEST(BayesianSas, KlWeightsFollowTheScalingOption) {
  EXPECT_DOUBLE_EQ(kl_weight(RemainderScaling::full_data, 60000, 1024), 60000.0 / 1024);
  EXPECT_DOUBLE_EQ(kl_weight(RemainderScaling::per_batch, 60000, 1024), 1.0);
}

TEST(BayesianSas, NonPositiveVarianceIsAnError) {
  Problem p = make_problem(4, 5, 2);
  p.var_r(2, 1) = 0.0;
  EXPECT_THROW(evaluate(p, 1.0, 1.0), InputError);
}

}  // namespace
}  // namespace gplvm
