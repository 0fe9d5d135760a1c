// The ProbDR Wishart objectives on one rank (docs/math/probdr.md): gradients against finite
// differences, the low-rank (Woodbury) evaluation against a dense n x n one, rotation invariance,
// the closed-form optima (stationary; recovering a planted model exactly; PCA vs MCA), the Wishart
// KL against the Gaussian one, and the refusal of an unregularised singular precision.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/objectives/precision_operator.hpp"
#include "gplvm/objectives/wishart_covariance.hpp"
#include "gplvm/objectives/wishart_precision.hpp"
#include "gplvm/objectives/wishart_spectral.hpp"
#include "support/test_support.hpp"
#include "support/wishart_problems.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

constexpr Index kRows = 9, kDim = 12, kLatent = 2;

Vector pack(const Matrix& X, double noise) {
  Vector p(X.size() + 1);
  p.head(X.size()) = X.reshaped();
  p[X.size()] = noise;
  return p;
}

Matrix unpack_latents(const Vector& p, Index rows) {
  return p.head(p.size() - 1).reshaped(rows, (p.size() - 1) / rows);
}

Vector analytic_gradient(const WishartEvaluation& e) {
  return pack(e.d_latents, e.d_noise);
}

// A Wishart objective as a function of (vec X, noise) for finite differences.
template <typename Objective>
std::function<double(const Vector&)> as_function(const Objective& objective, Index rows) {
  return [&objective, rows](const Vector& p) {
    return objective.evaluate(unpack_latents(p, rows), p[p.size() - 1], false).value;
  };
}

struct CovarianceProblem {
  Communicator comm;
  RowMatrix F = testing::wishart_test_factor(kRows, kDim, 11);
  Matrix S = F * F.transpose();
  WishartCovariance objective{comm, F, static_cast<double>(kDim)};
};

struct PrecisionProblem {
  Communicator comm;
  Matrix Gamma = testing::wishart_test_precision(kRows, 21);
  DenseRowPrecision precision{comm, Gamma};
  WishartPrecision objective{comm, precision, static_cast<double>(kDim), 0.0};
};

// Analytic gradients in X and the noise against central differences of the value, and the
// log-noise derivative against the noise one.
template <typename Objective>
void expect_gradient_matches_differences(const Objective& objective, std::uint64_t seed, double noise) {
  const Matrix X = random_normal(kRows, kLatent, seed);
  const WishartEvaluation e = objective.evaluate(X, noise);
  const Vector numeric = finite_difference_gradient(as_function(objective, kRows), pack(X, noise));
  const double error = max_relative_error(analytic_gradient(e), numeric);
  EXPECT_LT(error, 1e-6);
  EXPECT_NEAR(e.d_log_noise, noise * numeric[numeric.size() - 1], 1e-6 * std::abs(e.d_log_noise));
  std::printf("max relative error against finite differences: %.2g\n", error);
}

TEST(WishartCovariance, GradientMatchesFiniteDifferences) {
  const CovarianceProblem p;
  expect_gradient_matches_differences(p.objective, 12, 0.4);
}

TEST(WishartPrecision, GradientMatchesFiniteDifferences) {
  const PrecisionProblem p;
  expect_gradient_matches_differences(p.objective, 22, 0.7);
}

void expect_matches_dense(const WishartEvaluation& e, const testing::DenseWishart& dense) {
  EXPECT_NEAR(e.value, dense.value, 1e-12 * std::abs(dense.value));
  const double gradient_error = max_relative_error(e.d_latents.reshaped(), dense.d_latents.reshaped());
  EXPECT_LT(gradient_error, 1e-12);
  EXPECT_NEAR(e.d_noise, dense.d_noise, 1e-12 * std::abs(dense.d_noise));
  std::printf("low rank vs dense: value %.2g, gradient %.2g, noise derivative %.2g (relative)\n",
              std::abs(e.value - dense.value) / std::abs(dense.value), gradient_error,
              std::abs(e.d_noise - dense.d_noise) / std::abs(dense.d_noise));
}

TEST(WishartCovariance, LowRankEvaluationEqualsDense) {
  const CovarianceProblem p;
  const Matrix X = random_normal(kRows, kLatent, 13);
  expect_matches_dense(p.objective.evaluate(X, 0.6), testing::dense_covariance_objective(p.S, X, 0.6, kDim));
}

TEST(WishartPrecision, LowRankEvaluationEqualsDense) {
  const PrecisionProblem p;
  const Matrix X = random_normal(kRows, kLatent, 23);
  expect_matches_dense(p.objective.evaluate(X, 0.5),
                       testing::dense_precision_objective(p.Gamma, X, 0.5, kDim));
  // The regularised objective is the dense one of Gamma_hat + gamma I.
  const WishartPrecision regularised(p.comm, p.precision, kDim, 0.3);
  const Matrix shifted = p.Gamma + 0.3 * Matrix::Identity(kRows, kRows);
  expect_matches_dense(regularised.evaluate(X, 0.5),
                       testing::dense_precision_objective(shifted, X, 0.5, kDim));
}

TEST(WishartObjectives, InvariantUnderRotationOfTheLatents) {
  const CovarianceProblem c;
  const PrecisionProblem p;
  const Matrix X = random_normal(kRows, 3, 14);
  const Matrix R = testing::random_orthogonal(3, 15);
  ASSERT_LT((R.transpose() * R - Matrix::Identity(3, 3)).norm(), 1e-14);
  const double cov = c.objective.evaluate(X, 0.3, false).value;
  const double prec = p.objective.evaluate(X, 0.3, false).value;
  EXPECT_NEAR(c.objective.evaluate(X * R, 0.3, false).value, cov, 1e-13 * std::abs(cov));
  EXPECT_NEAR(p.objective.evaluate(X * R, 0.3, false).value, prec, 1e-13 * std::abs(prec));
}

// The gradient norm at the optimum, against its norm at a random point (the scale of "zero").
template <typename Objective>
void expect_stationary(const Objective& objective, const WishartOptimum& fit, double noise_tolerance) {
  const WishartEvaluation at_optimum = objective.evaluate(fit.latents, fit.noise);
  const WishartEvaluation elsewhere = objective.evaluate(random_normal(kRows, kLatent, 99), fit.noise);
  EXPECT_LT(at_optimum.d_latents.norm(), 1e-12 * elsewhere.d_latents.norm());
  EXPECT_LT(std::abs(at_optimum.d_noise), noise_tolerance);
  std::printf("at the closed form: ||df/dX|| = %.2g (%.2g at a random X), df/dnoise = %.2g\n",
              at_optimum.d_latents.norm(), elsewhere.d_latents.norm(), at_optimum.d_noise);
}

TEST(WishartCovariance, ClosedFormIsStationary) {
  const CovarianceProblem p;
  const WishartOptimum fit = spectral_covariance_fit(p.comm, p.F, kLatent, WishartNoise::estimated());
  expect_stationary(p.objective, fit, 1e-10 * kDim * p.objective.trace());
  // Check the noise derivative independently of the analytic one: central differences in s2.
  const double h = 1e-5 * fit.noise;
  const double fd = (p.objective.evaluate(fit.latents, fit.noise + h, false).value -
                     p.objective.evaluate(fit.latents, fit.noise - h, false).value) /
                    (2 * h);
  EXPECT_LT(std::abs(fd), 1e-6);
  // A fixed noise: the latents are still stationary (the noise derivative is not zero there).
  const WishartOptimum fixed = spectral_covariance_fit(p.comm, p.F, kLatent, WishartNoise::fixed(0.05));
  EXPECT_EQ(fixed.noise, 0.05);
  EXPECT_LT(p.objective.evaluate(fixed.latents, 0.05).d_latents.norm(), 1e-10);
  // A fixed noise above the second eigenvalue: that column collapses to zero (Tipping and Bishop),
  // and the result is still stationary in X.
  const double high = 0.5 * (fit.eigenvalues[0] + fit.eigenvalues[1]);
  const WishartOptimum collapsed = spectral_covariance_fit(p.comm, p.F, kLatent, WishartNoise::fixed(high));
  EXPECT_GT(collapsed.latents.col(0).norm(), 0.1);
  EXPECT_EQ(collapsed.latents.col(1).norm(), 0.0);
  EXPECT_LT(p.objective.evaluate(collapsed.latents, high).d_latents.norm(), 1e-10);
}

TEST(WishartPrecision, ClosedFormIsStationary) {
  const PrecisionProblem p;
  const WishartOptimum fit = spectral_precision_fit(p.Gamma, 0.0, kLatent, WishartNoise::estimated());
  expect_stationary(p.objective, fit, 1e-10 * kDim * p.objective.trace());
}

// S_hat = X0 X0^T + s0 I exactly (F = [X0, sqrt(s0) I], d = l + n): the covariance fit must give
// back s0 and X0 X0^T (an oracle from the construction, not the code), and the objective there
// must equal its X-free part d/2 (n + log|S_hat|): the KL is zero where the model equals S_hat.
TEST(WishartCovariance, RecoversAPlantedModelWithZeroKl) {
  const Communicator comm;
  const Matrix X0 = random_normal(kRows, kLatent, 31) * 1.5;
  const double s0 = 0.25;
  RowMatrix F(kRows, kLatent + kRows);
  F << X0, std::sqrt(s0) * Matrix::Identity(kRows, kRows);
  const double d = static_cast<double>(F.cols());
  const WishartOptimum fit = spectral_covariance_fit(comm, F, kLatent, WishartNoise::estimated());
  EXPECT_NEAR(fit.noise, s0, 1e-13);
  const Matrix gram = X0 * X0.transpose();
  EXPECT_LT((fit.latents * fit.latents.transpose() - gram).norm(), 1e-12 * gram.norm());

  const Matrix S = F * F.transpose();
  const WishartCovariance objective(comm, F, d);
  const double constant = 0.5 * d * (kRows + testing::log_determinant_spd(S));
  EXPECT_NEAR(objective.evaluate(X0, s0, false).value, constant, 1e-12 * constant);
}

// log W(T | V, nu) from the density (Stan's parameterisation, E[T] = nu V), multivariate gamma included.
double wishart_log_density(const Matrix& T, const Matrix& V, double nu) {
  const double n = static_cast<double>(T.rows());
  double log_multigamma = 0.25 * n * (n - 1) * std::log(M_PI);
  for (Index j = 0; j < T.rows(); ++j) log_multigamma += std::lgamma(0.5 * nu - 0.5 * static_cast<double>(j));
  return 0.5 * (nu - n - 1) * testing::log_determinant_spd(T) - 0.5 * V.llt().solve(T).trace() -
         0.5 * nu * n * std::log(2.0) - 0.5 * nu * testing::log_determinant_spd(V) - log_multigamma;
}

// KL(W(S_hat, d) || W(C, d)) by brute force: log q(T) - log p(T) is affine in T for a common nu, so
// its expectation under q is its value at E_q[T] = d S_hat. It must equal d KL(N(0, S_hat) || N(0, C)),
// and the objective less its X-free part d/2 (n + log|S_hat|).
TEST(WishartCovariance, WishartKlIsDTimesGaussianKl) {
  const CovarianceProblem p;  // d = 12 > n = 9: S_hat is nonsingular
  const Matrix X = random_normal(kRows, kLatent, 32);
  const double s2 = 0.3, d = kDim;
  const Matrix C = X * X.transpose() + s2 * Matrix::Identity(kRows, kRows);
  const Matrix mean_T = d * p.S;
  const double wishart_kl = wishart_log_density(mean_T, p.S, d) - wishart_log_density(mean_T, C, d);
  const double gaussian_kl = 0.5 * (C.llt().solve(p.S).trace() - kRows + testing::log_determinant_spd(C) -
                                    testing::log_determinant_spd(p.S));
  EXPECT_GT(gaussian_kl, 0.1);
  EXPECT_NEAR(wishart_kl, d * gaussian_kl, 1e-10 * wishart_kl);
  const double constant = 0.5 * d * (kRows + testing::log_determinant_spd(p.S));
  EXPECT_NEAR(p.objective.evaluate(X, s2, false).value - constant, wishart_kl, 1e-10 * wishart_kl);
}

// Lemma B.17 / Theorem B.19 as corrected: with Gamma = S_hat^{-1} (d >= n, no centring), PCA and MCA
// keep the same subspace, beta is the harmonic mean of the discarded S_hat eigenvalues (s2 their
// arithmetic mean, so beta <= s2), and the Grams differ by exactly (s2 - beta) U_l U_l^T.
TEST(WishartObjectives, PcaAndMcaShareTheSubspaceNotTheScale) {
  const CovarianceProblem p;
  const WishartOptimum pca = spectral_covariance_fit(p.comm, p.F, kLatent, WishartNoise::estimated());
  const WishartOptimum mca = spectral_precision_fit(p.S.inverse(), 0.0, kLatent, WishartNoise::estimated());

  const Vector all = Eigen::SelfAdjointEigenSolver<Matrix>(p.S).eigenvalues();  // ascending
  const Vector discarded = all.head(kRows - kLatent);
  EXPECT_NEAR(pca.noise, discarded.mean(), 1e-13 * pca.noise);
  const double harmonic = static_cast<double>(discarded.size()) / discarded.cwiseInverse().sum();
  EXPECT_NEAR(mca.noise, harmonic, 1e-12 * harmonic);
  EXPECT_LT(mca.noise, pca.noise);

  const auto projector = [](const Matrix& X) {
    return Matrix(X * (X.transpose() * X).inverse() * X.transpose());
  };
  EXPECT_LT((projector(pca.latents) - projector(mca.latents)).norm(), 1e-12);
  const Matrix gram_difference =
      mca.latents * mca.latents.transpose() - pca.latents * pca.latents.transpose();
  const double expected = std::sqrt(static_cast<double>(kLatent)) * (pca.noise - mca.noise);
  EXPECT_GT(gram_difference.norm(), 1e-3);
  EXPECT_NEAR(gram_difference.norm(), expected, 1e-10);
}

TEST(WishartPrecision, RefusesAnUnregularisedSingularLaplacian) {
  const Communicator comm;
  const Matrix laplacian = testing::path_laplacian(10);
  const DenseRowPrecision precision(comm, laplacian);
  const auto names_the_key = [](const InputError& e) {
    return e.context().key == kPrecisionRegularisationKey && testing::contains(e.what(), "unbounded");
  };
  try {
    const WishartPrecision objective(comm, precision, 5.0, 0.0);
    ADD_FAILURE() << "an unregularised Laplacian was accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(names_the_key(e)) << e.what();
  }
  try {
    spectral_precision_fit(laplacian, 0.0, 2, WishartNoise::estimated());
    ADD_FAILURE() << "the closed form of an unregularised Laplacian was computed";
  } catch (const InputError& e) {
    EXPECT_TRUE(names_the_key(e)) << e.what();
  }
  EXPECT_THROW(WishartPrecision(comm, precision, 5.0, -1.0), InputError);
  // The objective is indeed unbounded there: along X = t 1, f(1) - f(t) = d/2 log((beta + n t^2) /
  // (beta + n)) grows without limit (gamma = 1e-300 passes the check but changes nothing).
  const WishartPrecision nearly(comm, precision, 5.0, 1e-300);
  const Matrix ones = Matrix::Ones(10, 1);
  const double at_one = nearly.evaluate(ones, 1.0, false).value;
  for (const double t : {1e3, 1e6, 1e9}) {
    const double drop = 2.5 * std::log((1.0 + 10.0 * t * t) / 11.0);
    EXPECT_NEAR(at_one - nearly.evaluate(t * ones, 1.0, false).value, drop, 1e-9 * drop) << t;
  }
}

// Regularised, the path Laplacian's first minor eigenvector is the constant one, with eigenvalue gamma.
TEST(WishartPrecision, RegularisedLaplacianSelectsTheConstantVectorFirst) {
  const Communicator comm;
  const Index n = 10;
  const double gamma = 0.05;
  const Matrix laplacian = testing::path_laplacian(n);
  const WishartOptimum fit = spectral_precision_fit(laplacian, gamma, 2, WishartNoise::estimated());
  EXPECT_NEAR(fit.eigenvalues[0], gamma, 1e-14);
  const Vector first = fit.latents.col(0);
  EXPECT_GT(first.mean(), 0.1);
  EXPECT_LT((first.array() - first.mean()).abs().maxCoeff(), 1e-12 * first.mean());
  // The second column is the path's Fiedler vector cos(pi (i + 1/2) / n), up to scale and sign.
  Vector fiedler(n);
  for (Index i = 0; i < n; ++i) fiedler[i] = std::cos(M_PI * (i + 0.5) / n);
  EXPECT_NEAR(std::abs(fit.latents.col(1).normalized().dot(fiedler.normalized())), 1.0, 1e-12);
  // And it is the regularised objective's optimum.
  const DenseRowPrecision precision(comm, laplacian);
  const WishartPrecision objective(comm, precision, 5.0, gamma);
  EXPECT_LT(objective.evaluate(fit.latents, fit.noise).d_latents.norm(), 1e-10);
}

}  // namespace
}  // namespace gplvm
