// Psi-statistics: the closed forms (eq_ard, linear) against Monte Carlo and against the numerical
// default, the adjoints against finite differences on every path, and the point-mass limit.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/linear_kernel.hpp"
#include "gplvm/model/matern_kernel.hpp"
#include "gplvm/model/periodic_kernel.hpp"
#include "gplvm/model/psi_quadrature.hpp"
#include "gplvm/model/sum_kernel.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

// Inputs of a Bayesian GPLVM: means, variances in [0.05, 0.3], inducing inputs.
struct PsiInputs {
  Matrix mean, variance, Z;
};

PsiInputs psi_inputs(Index n, Index m, Index q, std::uint64_t seed) {
  const Matrix u = random_normal(n, q, seed + 1).array().abs().min(2.0);
  return {random_normal(n, q, seed), (0.05 + 0.125 * u.array()).matrix(),
          1.2 * random_normal(m, q, seed + 2)};
}

std::unique_ptr<Kernel> eq_ard(Index q) {
  return std::make_unique<EqArdKernel>(1.3, Vector::LinSpaced(q, 0.8, 1.6));
}
std::unique_ptr<Kernel> linear(Index q) {
  return std::make_unique<LinearArdKernel>(Vector::LinSpaced(q, 0.6, 1.4));
}
std::unique_ptr<Kernel> matern52(Index q) {
  return std::make_unique<MaternArdKernel>(MaternSmoothness::five_halves, 0.9,
                                           Vector::LinSpaced(q, 1.1, 1.9));
}

double relative_difference(const Matrix& a, const Matrix& b) {
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

// Independent Monte Carlo: each entry's estimate and its standard error over `draws` draws.
struct MonteCarloPsi {
  double psi0 = 0, psi0_se = 0;
  Matrix psi1, psi1_se, psi2, psi2_se;
};

MonteCarloPsi monte_carlo_psi(const Kernel& kernel, const PsiInputs& in, Index draws) {
  const Index n = in.mean.rows(), q = in.mean.cols(), m = in.Z.rows();
  const CounterRng rng(2024);
  MonteCarloPsi out;
  Matrix s1 = Matrix::Zero(n, m), ss1 = s1, s2 = Matrix::Zero(m, m), ss2 = s2;
  double s0 = 0, ss0 = 0;
  Matrix X(n, q), K;
  Vector diag;
  for (Index d = 0; d < draws; ++d) {
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < q; ++j)
        X(i, j) = in.mean(i, j) + std::sqrt(in.variance(i, j)) *
                                      rng.normal(RngPurpose::test, 1, static_cast<std::uint64_t>(d),
                                                 static_cast<std::uint64_t>(i * q + j));
    kernel.cross(X, in.Z, K);
    kernel.diagonal(X, diag);
    const Matrix P2 = K.transpose() * K;  // the rows are independent: their sum's variance adds up
    s0 += diag.sum();
    ss0 += diag.sum() * diag.sum();
    s1 += K;
    ss1 += K.cwiseAbs2();
    s2 += P2;
    ss2 += P2.cwiseAbs2();
  }
  const double S = static_cast<double>(draws);
  auto se = [S](const Matrix& sum, const Matrix& squares) {
    return ((squares / S - (sum / S).cwiseAbs2()) / S).cwiseMax(0.0).cwiseSqrt().eval();
  };
  out.psi0 = s0 / S;
  out.psi0_se = std::sqrt(std::max(0.0, (ss0 / S - out.psi0 * out.psi0) / S));
  out.psi1 = s1 / S;
  out.psi1_se = se(s1, ss1);
  out.psi2 = s2 / S;
  out.psi2_se = se(s2, ss2);
  return out;
}

// |closed - MC| <= 5 standard errors (plus rounding) for every entry: with about 40 entries
// compared, a correct formula fails with probability ~ 40 * 6e-7.
void expect_within_monte_carlo_error(const Kernel& kernel, const PsiInputs& in) {
  PsiStatistics psi;
  kernel.psi_statistics(in.mean, in.variance, in.Z, psi);
  const MonteCarloPsi mc = monte_carlo_psi(kernel, in, 200000);
  EXPECT_LE(std::abs(psi.psi0 - mc.psi0), 5 * mc.psi0_se + 1e-10 * std::abs(psi.psi0));  // eq_ard: se = 0
  EXPECT_TRUE(((psi.psi1 - mc.psi1).cwiseAbs().array() <= 5 * mc.psi1_se.array() + 1e-12).all())
      << (psi.psi1 - mc.psi1).cwiseAbs().cwiseQuotient(mc.psi1_se);
  EXPECT_TRUE(((psi.psi2 - mc.psi2).cwiseAbs().array() <= 5 * mc.psi2_se.array() + 1e-12).all())
      << (psi.psi2 - mc.psi2).cwiseAbs().cwiseQuotient(mc.psi2_se);
  // And the estimate is not vacuous: the standard errors are small against the values.
  EXPECT_LT(mc.psi1_se.maxCoeff(), 0.02 * psi.psi1.cwiseAbs().maxCoeff());
}

TEST(PsiStatistics, EqArdClosedFormMatchesMonteCarlo) {
  expect_within_monte_carlo_error(*eq_ard(3), psi_inputs(3, 3, 3, 10));
}

TEST(PsiStatistics, LinearClosedFormMatchesMonteCarlo) {
  expect_within_monte_carlo_error(*linear(3), psi_inputs(3, 3, 3, 20));
}

// The default Gauss-Hermite orders (32 points at Q = 1, 20 at Q = 2) integrate the EQ kernel's
// integrands to ~1e-10 for s <= l^2 / 2 (here s <= 0.3, l >= 0.8); the linear kernel's are
// quadratics, which the rule integrates exactly.
TEST(PsiStatistics, ClosedFormsMatchTheGaussHermiteDefault) {
  for (Index q : {1, 2}) {
    SCOPED_TRACE(q);
    const PsiInputs in = psi_inputs(6, 4, q, 30);
    for (const auto& kernel : {eq_ard(q), linear(q)}) {
      SCOPED_TRACE(kernel->name());
      PsiStatistics closed, numeric;
      kernel->psi_statistics(in.mean, in.variance, in.Z, closed);
      kernel->Kernel::psi_statistics(in.mean, in.variance, in.Z, numeric);
      const double tolerance = kernel->name() == "linear" ? 1e-13 : 1e-8;
      EXPECT_NEAR(numeric.psi0, closed.psi0, tolerance * std::abs(closed.psi0));
      EXPECT_LT(relative_difference(numeric.psi1, closed.psi1), tolerance);
      EXPECT_LT(relative_difference(numeric.psi2, closed.psi2), tolerance);
    }
  }
}

// The Monte Carlo default (Q above max_tensor_dim) is unbiased around the closed form: with 4096
// antithetic nodes its error is a few per cent of the values at most.
TEST(PsiStatistics, MonteCarloDefaultIsCloseToTheClosedForm) {
  const Index q = 4;
  const PsiInputs in = psi_inputs(5, 4, q, 40);
  auto kernel = eq_ard(q);
  kernel->set_psi_quadrature({.max_tensor_dim = 3, .hermite_order = 0, .monte_carlo_nodes = 4096});
  PsiStatistics closed, numeric, again;
  kernel->psi_statistics(in.mean, in.variance, in.Z, closed);
  kernel->Kernel::psi_statistics(in.mean, in.variance, in.Z, numeric);
  kernel->Kernel::psi_statistics(in.mean, in.variance, in.Z, again);
  EXPECT_LT(relative_difference(numeric.psi1, closed.psi1), 0.03);
  EXPECT_LT(relative_difference(numeric.psi2, closed.psi2), 0.05);
  EXPECT_EQ(numeric.psi1, again.psi1);  // fixed nodes: the same value at every call
  EXPECT_EQ(numeric.psi2, again.psi2);
  // The antithetic nodes integrate the linear kernel's psi1 (odd in e) exactly.
  auto lin = linear(q);
  lin->set_psi_quadrature({.max_tensor_dim = 0});
  PsiStatistics lin_closed, lin_numeric;
  lin->psi_statistics(in.mean, in.variance, in.Z, lin_closed);
  lin->Kernel::psi_statistics(in.mean, in.variance, in.Z, lin_numeric);
  EXPECT_LT(relative_difference(lin_numeric.psi1, lin_closed.psi1), 1e-13);
}

// L = a psi0 + sum(D1 o psi1) + sum(D2 o psi2) with D2 symmetric: psi_backward against finite
// differences in the means, the variances, Z and the hyperparameters.
void check_psi_backward(const Kernel& k0, const PsiInputs& in, bool base_class_path) {
  const Index n = in.mean.rows(), q = in.mean.cols(), m = in.Z.rows(), nq = n * q, mq = m * q;
  const Index nh = k0.num_hyperparameters();
  const double a = 0.7;
  const Matrix D1 = random_normal(n, m, 50), R = random_normal(m, m, 51), D2 = R + R.transpose();
  auto psi = [&](const Kernel& k, const ConstMatrixRef& mu, const ConstMatrixRef& s, const ConstMatrixRef& Z,
                 PsiStatistics& out) {
    if (base_class_path)
      k.Kernel::psi_statistics(mu, s, Z, out);
    else
      k.psi_statistics(mu, s, Z, out);
  };
  Vector p(2 * nq + mq + nh);
  p << Eigen::Map<const Vector>(in.mean.data(), nq), Eigen::Map<const Vector>(in.variance.data(), nq),
      Eigen::Map<const Vector>(in.Z.data(), mq), k0.hyperparameters();
  auto loss = [&](const Vector& v) {
    const auto k = k0.clone();
    k->set_hyperparameters(v.tail(nh));
    PsiStatistics out;
    psi(*k, Eigen::Map<const Matrix>(v.data(), n, q), Eigen::Map<const Matrix>(v.data() + nq, n, q),
        Eigen::Map<const Matrix>(v.data() + 2 * nq, m, q), out);
    return a * out.psi0 + (D1.array() * out.psi1.array()).sum() + (D2.array() * out.psi2.array()).sum();
  };
  PsiStatistics value;
  psi(k0, in.mean, in.variance, in.Z, value);
  Matrix d_mean = Matrix::Zero(n, q), d_var = Matrix::Zero(n, q), dZ = Matrix::Zero(m, q);
  Vector dh = Vector::Zero(nh);
  if (base_class_path)
    k0.Kernel::psi_backward(in.mean, in.variance, in.Z, value, a, D1, D2, &d_mean, &d_var, &dZ, dh);
  else
    k0.psi_backward(in.mean, in.variance, in.Z, value, a, D1, D2, &d_mean, &d_var, &dZ, dh);
  Vector analytic(p.size());
  analytic << Eigen::Map<const Vector>(d_mean.data(), nq), Eigen::Map<const Vector>(d_var.data(), nq),
      Eigen::Map<const Vector>(dZ.data(), mq), dh;
  EXPECT_LT(max_relative_error(analytic, finite_difference_gradient(loss, p)), 1e-6);

  // Null adjoints are skipped, the rest unchanged.
  Vector dh_only = Vector::Zero(nh);
  if (base_class_path)
    k0.Kernel::psi_backward(in.mean, in.variance, in.Z, value, a, D1, D2, nullptr, nullptr, nullptr, dh_only);
  else
    k0.psi_backward(in.mean, in.variance, in.Z, value, a, D1, D2, nullptr, nullptr, nullptr, dh_only);
  EXPECT_LT((dh_only - dh).norm(), 1e-10 * (1.0 + dh.norm()));
}

TEST(PsiBackward, EqArdClosedFormMatchesFiniteDifferences) {
  check_psi_backward(*eq_ard(3), psi_inputs(5, 4, 3, 60), false);
}

TEST(PsiBackward, LinearClosedFormMatchesFiniteDifferences) {
  check_psi_backward(*linear(3), psi_inputs(5, 4, 3, 61), false);
}

TEST(PsiBackward, GaussHermiteDefaultMatchesFiniteDifferences) {
  check_psi_backward(*matern52(2), psi_inputs(4, 3, 2, 62), true);
  check_psi_backward(*eq_ard(1), psi_inputs(4, 3, 1, 63), true);
  check_psi_backward(PeriodicKernel(1.1, Vector::Constant(1, 0.9), 3.0), psi_inputs(4, 3, 1, 64), true);
  check_psi_backward(SumKernel(eq_ard(2), linear(2)), psi_inputs(4, 3, 2, 65), true);
}

TEST(PsiBackward, MonteCarloDefaultMatchesFiniteDifferences) {
  auto kernel = matern52(4);
  kernel->set_psi_quadrature({.max_tensor_dim = 3, .hermite_order = 0, .monte_carlo_nodes = 64});
  check_psi_backward(*kernel, psi_inputs(4, 3, 4, 66), true);
  auto small = eq_ard(2);
  small->set_psi_quadrature({.max_tensor_dim = 0, .hermite_order = 0, .monte_carlo_nodes = 32});
  check_psi_backward(*small, psi_inputs(4, 3, 2, 67), true);
}

// As the variances go to zero the statistics become the point values: psi0 -> sum_n k(x_n, x_n),
// psi1 -> K(X, Z), psi2 -> K(Z, X) K(X, Z).
TEST(PsiStatistics, VanishingVariancesGiveThePointValues) {
  const Index q = 2;
  const PsiInputs in = psi_inputs(5, 4, q, 70);
  for (const auto& kernel : {eq_ard(q), linear(q), matern52(q)}) {
    for (bool base_class_path : {false, true}) {
      SCOPED_TRACE(kernel->name() + (base_class_path ? " (default)" : ""));
      Matrix K;
      Vector diag;
      kernel->cross(in.mean, in.Z, K);
      kernel->diagonal(in.mean, diag);
      for (double s : {0.0, 1e-12}) {
        PsiStatistics psi;
        const Matrix variance = Matrix::Constant(5, q, s);
        if (base_class_path)
          kernel->Kernel::psi_statistics(in.mean, variance, in.Z, psi);
        else
          kernel->psi_statistics(in.mean, variance, in.Z, psi);
        EXPECT_NEAR(psi.psi0, diag.sum(), 1e-9 * std::abs(diag.sum()));
        EXPECT_LT(relative_difference(psi.psi1, K), 1e-9);
        EXPECT_LT(relative_difference(psi.psi2, K.transpose() * K), 1e-9);
      }
    }
  }
}

TEST(PsiStatistics, BadShapesAndVariancesAreErrors) {
  const auto kernel = matern52(2);
  PsiStatistics psi;
  EXPECT_THROW(kernel->psi_statistics(Matrix::Zero(3, 2), Matrix::Zero(3, 1), Matrix::Zero(2, 2), psi),
               InputError);
  EXPECT_THROW(
      kernel->psi_statistics(Matrix::Zero(3, 2), Matrix::Constant(3, 2, -1.0), Matrix::Zero(2, 2), psi),
      InputError);
  EXPECT_THROW(eq_ard(2)->psi_statistics(Matrix::Zero(3, 2), Matrix::Zero(3, 2), Matrix::Zero(2, 3), psi),
               InputError);
  // The default's variance adjoint divides by sqrt(s): a zero variance is refused there.
  kernel->psi_statistics(Matrix::Zero(3, 2), Matrix::Zero(3, 2), Matrix::Zero(2, 2), psi);
  Matrix d_var = Matrix::Zero(3, 2);
  Vector dh = Vector::Zero(3);
  EXPECT_THROW(kernel->psi_backward(Matrix::Zero(3, 2), Matrix::Zero(3, 2), Matrix::Zero(2, 2), psi, 1.0,
                                    Matrix::Zero(3, 2), Matrix::Zero(2, 2), nullptr, &d_var, nullptr, dh),
               InputError);
}

TEST(PsiNodes, GaussHermiteRuleIntegratesGaussianMoments) {
  const PsiNodes nodes = gauss_hermite_nodes(2, 10);
  ASSERT_EQ(nodes.epsilon.rows(), 100);
  EXPECT_NEAR(nodes.weights.sum(), 1.0, 1e-15);
  const Eigen::ArrayXd x = nodes.epsilon.col(0).array(), y = nodes.epsilon.col(1).array();
  const Eigen::ArrayXd w = nodes.weights.array();
  EXPECT_NEAR((w * x).sum(), 0.0, 1e-14);
  EXPECT_NEAR((w * x.square()).sum(), 1.0, 1e-13);
  EXPECT_NEAR((w * x.pow(4)).sum(), 3.0, 1e-12);
  EXPECT_NEAR((w * x.pow(18)).sum(), 34459425.0, 1e-12 * 34459425.0);  // (2k-1)!! exact below degree 20
  EXPECT_NEAR((w * x.square() * y.square()).sum(), 1.0, 1e-13);
  EXPECT_NEAR((w * (0.5 * x).cos()).sum(), std::exp(-0.125), 1e-14);
}

TEST(PsiNodes, MonteCarloNodesAreFixedAntitheticPairs) {
  const PsiNodes a = monte_carlo_nodes(5, 99), b = monte_carlo_nodes(5, 99);
  ASSERT_EQ(a.epsilon.rows(), 100);
  EXPECT_EQ(a.epsilon, b.epsilon);
  EXPECT_NEAR(a.weights.sum(), 1.0, 1e-14);
  EXPECT_LT(a.epsilon.colwise().sum().norm(), 1e-12);
  // Standard normals: the second moment is one up to sampling error (50 pairs: ~0.2).
  EXPECT_NEAR(a.epsilon.array().square().mean(), 1.0, 0.2);
  EXPECT_EQ(psi_nodes(1).epsilon.rows(), 32);
  EXPECT_EQ(psi_nodes(2).epsilon.rows(), 400);
  EXPECT_EQ(psi_nodes(3).epsilon.rows(), 1000);
  EXPECT_EQ(psi_nodes(4).epsilon.rows(), 512);
  EXPECT_EQ(psi_nodes(2, {.max_tensor_dim = 3, .hermite_order = 5}).epsilon.rows(), 25);
  EXPECT_THROW(psi_nodes(2, {.max_tensor_dim = 3, .hermite_order = -1}), InputError);
  EXPECT_THROW(psi_nodes(4, {.max_tensor_dim = 3, .hermite_order = 0, .monte_carlo_nodes = 0}), InputError);
}

}  // namespace
}  // namespace gplvm
