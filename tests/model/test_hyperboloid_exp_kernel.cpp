// The hyperboloid exponential kernel: reference values, positive definiteness on random points of
// H^Q, and its adjoints against finite differences (hyperparameters directly, inputs along
// exponential-map curves).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/model/hyperboloid_exp_kernel.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "support/lorentz_points.hpp"

namespace gplvm {
namespace {

using testing::derivative_along;
using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_lorentz_points;
using testing::random_normal;
using testing::random_tangents;
using testing::relative_error;

// a = lift(0.5, 1.2), b = lift(-2, 0.3) are 2.1475436561996886 apart; with sigma = 1:
// k = 0.11677063461103916 (kappa 1), 0.6508287480311037 (5), 0.978753518725256 (100).
TEST(HyperboloidExpKernel, MatchesReferenceValuesAndIsBuiltByName) {
  Matrix A(1, 3), B(1, 3);
  A.row(0) = lorentz::lift(Vector{{0.5, 1.2}}).transpose();
  B.row(0) = lorentz::lift(Vector{{-2.0, 0.3}}).transpose();
  const std::pair<double, double> cases[] = {
      {1.0, 0.11677063461103916}, {5.0, 0.6508287480311037}, {100.0, 0.978753518725256}};
  for (const auto& [kappa, expected] : cases) {
    const auto kernel = make_kernel("hyperboloid_exp", 3, KernelInit{1.0, kappa, 1.0});
    Matrix K;
    kernel->cross(A, B, K);
    EXPECT_NEAR(K(0, 0), expected, 1e-15) << "kappa = " << kappa;
  }
  const auto kernel = make_kernel("hyperboloid_exp", 3, KernelInit{2.5, 7.0, 1.0});
  EXPECT_EQ(kernel->name(), "hyperboloid_exp");
  EXPECT_FALSE(kernel->is_stationary());
  EXPECT_EQ(kernel->num_hyperparameters(), 2);
  EXPECT_NEAR(kernel->hyperparameters()[1], std::log(7.0), 1e-15);
  const auto named = kernel->named_hyperparameters();
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[1].name, "kappa");
  EXPECT_DOUBLE_EQ(named[1].values[0], 7.0);
  EXPECT_THROW(make_kernel("hyperboloid_exp", 1), InputError);
  EXPECT_THROW(HyperboloidExpKernel(1.0, -1.0, 3), InputError);
}

TEST(HyperboloidExpKernel, IsPositiveDefiniteOnRandomPoints) {
  for (const Index Q : {2, 5}) {
    // Tangent radii up to ~5: lifts of N(0, 2^2) spatial coordinates reach x_0 ~ 100.
    const Matrix X = random_lorentz_points(200, Q, 60 + Q, 2.0);
    for (const double kappa : {0.3, 1.0, 10.0, 100.0}) {
      const HyperboloidExpKernel kernel(1.3, kappa, Q + 1);
      Matrix K;
      Vector diag;
      kernel.cross(X, X, K);
      kernel.diagonal(X, diag);
      EXPECT_LT((K.diagonal() - diag).norm(), 1e-14);
      EXPECT_LT((diag.array() - 1.3).abs().maxCoeff(), 1e-15);
      EXPECT_LT((K - K.transpose()).norm(), 1e-14);
      const double lambda_min =
          Eigen::SelfAdjointEigenSolver<Matrix>(K, Eigen::EigenvaluesOnly).eigenvalues()[0];
      EXPECT_GT(lambda_min, -1e-12 * K.norm()) << "Q = " << Q << ", kappa = " << kappa;
    }
  }
}

TEST(HyperboloidExpKernel, HyperparameterAdjointMatchesFiniteDifferences) {
  HyperboloidExpKernel kernel(0.8, 2.5, 3);
  const Matrix X1 = random_lorentz_points(7, 2, 70, 1.0), X2 = random_lorentz_points(5, 2, 71, 1.0);
  const Matrix G = random_normal(7, 5, 72);
  const Vector g_diag = random_normal(7, 1, 73);
  const auto loss = [&](const Vector& h) {
    HyperboloidExpKernel k = kernel;
    k.set_hyperparameters(h);
    Matrix K;
    Vector d;
    k.cross(X1, X2, K);
    k.diagonal(X1, d);
    return G.cwiseProduct(K).sum() + g_diag.dot(d);
  };
  Matrix K;
  kernel.cross(X1, X2, K);
  Vector d_hyper = Vector::Zero(2);
  kernel.cross_backward(X1, X2, K, G, nullptr, nullptr, d_hyper);
  kernel.diagonal_backward(X1, g_diag, nullptr, d_hyper);
  EXPECT_LT(max_relative_error(d_hyper, finite_difference_gradient(loss, kernel.hyperparameters())), 1e-8);
}

// L = sum G o K(X1, X2), every point moved along its own exponential-map direction at once.
TEST(HyperboloidExpKernel, InputAdjointsMatchFiniteDifferencesAlongTheHyperboloid) {
  const HyperboloidExpKernel kernel(1.4, 1.7, 4);
  const Matrix X1 = random_lorentz_points(6, 3, 80, 1.2), X2 = random_lorentz_points(4, 3, 81, 1.2);
  const Matrix G = random_normal(6, 4, 82);
  const auto loss = [&](const Matrix& A, const Matrix& B) {
    Matrix K;
    kernel.cross(A, B, K);
    return G.cwiseProduct(K).sum();
  };
  Matrix K;
  kernel.cross(X1, X2, K);
  Matrix dX1 = Matrix::Zero(6, 4), dX2 = Matrix::Zero(4, 4);
  Vector d_hyper = Vector::Zero(2);
  kernel.cross_backward(X1, X2, K, G, &dX1, &dX2, d_hyper);
  const Matrix Xi1 = random_tangents(X1, 83), Xi2 = random_tangents(X2, 84);
  EXPECT_LT(relative_error(dX1.cwiseProduct(Xi1).sum(),
                           derivative_along([&](const Matrix& A) { return loss(A, X2); }, X1, Xi1)),
            1e-7);
  EXPECT_LT(relative_error(dX2.cwiseProduct(Xi2).sum(),
                           derivative_along([&](const Matrix& B) { return loss(X1, B); }, X2, Xi2)),
            1e-7);
}

// K(X, X) with a symmetric G and one gradient matrix for both arguments, as in an exact GP
// objective; the diagonal's cusps (d = 0) contribute nothing.
TEST(HyperboloidExpKernel, SymmetricBlockAdjointMatchesFiniteDifferences) {
  const HyperboloidExpKernel kernel(0.9, 3.0, 3);
  const Matrix X = random_lorentz_points(8, 2, 90, 1.5);
  const Matrix R = random_normal(8, 8, 91), G = R + R.transpose();
  const auto loss = [&](const Matrix& A) {
    Matrix K;
    kernel.cross(A, A, K);
    return G.cwiseProduct(K).sum();
  };
  Matrix K;
  kernel.cross(X, X, K);
  Matrix dX = Matrix::Zero(8, 3);
  Vector d_hyper = Vector::Zero(2);
  kernel.cross_backward(X, X, K, G, &dX, &dX, d_hyper);
  const Matrix Xi = random_tangents(X, 92);
  EXPECT_LT(relative_error(dX.cwiseProduct(Xi).sum(), derivative_along(loss, X, Xi)), 1e-7);
  // The gradient is tangent (Minkowski-orthogonal to each point after the metric flip).
  for (Index i = 0; i < X.rows(); ++i)
    EXPECT_NEAR(lorentz::minkowski_dot(X.row(i).transpose(), lorentz::flip_time(dX.row(i).transpose())), 0.0,
                1e-12 * dX.row(i).norm() * X(i, 0));
}

// Far apart (d = 346, kappa = 0.25) k underflows to 0: its adjoints are 0 there, not 0 * inf, and the
// near pair's are unchanged by the far one.
TEST(HyperboloidExpKernel, AdjointsAreFiniteWhereTheKernelUnderflows) {
  const HyperboloidExpKernel kernel(1.0, 0.25, 3);
  Matrix X1(2, 3), X2(1, 3);
  X1.row(0) = lorentz::lift(Vector{{1e150, 0.0}}).transpose();
  X1.row(1) = lorentz::lift(Vector{{0.3, -0.2}}).transpose();
  X2.row(0) = lorentz::lift(Vector{{0.1, 0.4}}).transpose();
  Matrix K;
  kernel.cross(X1, X2, K);
  ASSERT_EQ(K(0, 0), 0.0);
  ASSERT_GT(K(1, 0), 0.0);
  const Matrix G = Matrix::Ones(2, 1);
  Matrix dX1 = Matrix::Zero(2, 3), dX2 = Matrix::Zero(1, 3);
  Vector d_hyper = Vector::Zero(2);
  kernel.cross_backward(X1, X2, K, G, &dX1, &dX2, d_hyper);
  EXPECT_TRUE(dX1.allFinite() && dX2.allFinite() && d_hyper.allFinite());
  EXPECT_EQ(dX1.row(0).norm(), 0.0);
  // The near pair alone: dk/dlog sigma = k, dk/dlog kappa = k d / kappa.
  const double d = lorentz::distance(X1.row(1).transpose(), X2.row(0).transpose());
  EXPECT_NEAR(d_hyper[0], K(1, 0), 1e-15);
  EXPECT_NEAR(d_hyper[1], K(1, 0) * d / 0.25, 1e-14);
}

TEST(HyperboloidExpKernel, RefusesPsiStatistics) {
  const HyperboloidExpKernel kernel(1.0, 1.0, 3);
  const Matrix mean = random_lorentz_points(3, 2, 95), variance = Matrix::Constant(3, 3, 0.1);
  PsiStatistics psi;
  try {
    kernel.psi_statistics(mean, variance, mean, psi);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(testing::contains(e.what(), "Psi-statistics")) << e.what();
  }
}

}  // namespace
}  // namespace gplvm
