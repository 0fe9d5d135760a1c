// The squared-exponential kernel on the sphere (sphere_eq): reference values from its definition
// theta exp(-(1 - <x, x'>) / l^2), positive definiteness on random points of S^Q, and its adjoints
// against finite differences (hyperparameters directly, inputs along exponential-map curves).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/model/sphere_eq_kernel.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

Matrix random_sphere_points(Index n, Index Q, std::uint64_t seed) {
  Matrix X = random_normal(n, Q + 1, seed);
  X.rowwise().normalize();
  return X;
}

Matrix random_sphere_tangents(const Matrix& X, std::uint64_t seed) {
  Matrix T = random_normal(X.rows(), X.cols(), seed);
  for (Index i = 0; i < X.rows(); ++i) T.row(i) -= T.row(i).dot(X.row(i)) * X.row(i);
  return T;
}

// Row i moved to Exp_{x_i}(t xi_i) = cos|v| x + sin|v| v / |v|, v = t xi_i.
Matrix move_along(const Matrix& X, const Matrix& Xi, double t) {
  Matrix out(X.rows(), X.cols());
  for (Index i = 0; i < X.rows(); ++i) {
    const Vector v = t * Xi.row(i).transpose();
    const double r = v.norm();
    out.row(i) = (std::cos(r) * X.row(i).transpose() + (r > 0 ? std::sin(r) / r : 1.0) * v).transpose();
  }
  return out;
}

double relative_error(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-12);
}

TEST(SphereEqKernel, MatchesItsDefinitionAndIsBuiltByNameOnTheSphere) {
  for (const double a : {0.0, 1e-6, 0.4, 2.0, 3.14159}) {
    Matrix X(1, 2), Y(1, 2);
    X << 1.0, 0.0;
    Y << std::cos(a), std::sin(a);
    for (const double l : {0.3, 1.0, 4.0}) {
      const auto kernel = make_kernel("sphere_eq", 2, KernelInit{1.7, l, 1.0});
      Matrix K;
      kernel->cross(X, Y, K);
      // 1 - cos a = 2 sin^2(a / 2), every digit at small a.
      const double expected = 1.7 * std::exp(-2.0 * std::pow(std::sin(a / 2), 2) / (l * l));
      EXPECT_LT(relative_error(K(0, 0), expected), 1e-14) << "a = " << a << ", l = " << l;
    }
  }
  const auto kernel = make_kernel("sphere_eq", 3, KernelInit{2.5, 0.7, 1.0});
  EXPECT_EQ(kernel->name(), "sphere_eq");
  EXPECT_FALSE(kernel->is_stationary());
  EXPECT_EQ(kernel->input_dim(), 3);
  ASSERT_EQ(kernel->num_hyperparameters(), 2);
  EXPECT_EQ(kernel->hyperparameter_name(0), "log_variance");
  EXPECT_EQ(kernel->hyperparameter_name(1), "log_lengthscale");
  EXPECT_NEAR(kernel->hyperparameters()[0], std::log(2.5), 1e-15);
  EXPECT_NEAR(kernel->hyperparameters()[1], std::log(0.7), 1e-15);
  const auto named = kernel->named_hyperparameters();
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].name, "variance");
  EXPECT_EQ(named[1].name, "lengthscales");
  ASSERT_EQ(named[1].values.size(), 1);
  EXPECT_DOUBLE_EQ(named[1].values[0], 0.7);
  EXPECT_EQ(kernel_input_domain("sphere_eq"), "sphere");
  EXPECT_THROW(make_kernel("sphere_eq", 1), InputError);
  EXPECT_THROW(SphereEqKernel(1.0, -1.0, 3), InputError);
  EXPECT_THROW(SphereEqKernel(0.0, 1.0, 3), InputError);
  // Kernels and spaces must agree on the inputs, in both directions.
  EXPECT_NO_THROW(require_kernel_fits_latent_space("sphere_eq", "sphere"));
  EXPECT_THROW(require_kernel_fits_latent_space("eq_ard", "sphere"), InputError);
  EXPECT_THROW(require_kernel_fits_latent_space("sphere_eq", "euclidean"), InputError);
  EXPECT_THROW(require_kernel_fits_latent_space("sphere_eq", "lorentz"), InputError);
  EXPECT_NO_THROW(require_kernel_fits_latent_space("sphere_eq+sphere_eq", "sphere"));
}

TEST(SphereEqKernel, IsPositiveDefiniteOnRandomPoints) {
  for (const Index Q : {1, 2, 4}) {
    const Matrix X = random_sphere_points(150, Q, 30 + Q);
    for (const double l : {0.2, 1.0, 3.0}) {
      const SphereEqKernel kernel(1.3, l, Q + 1);
      Matrix K;
      Vector diag;
      kernel.cross(X, X, K);
      kernel.diagonal(X, diag);
      EXPECT_LT((K.diagonal() - diag).norm(), 1e-14);
      EXPECT_LT((K - K.transpose()).norm(), 1e-14);
      const double lambda_min =
          Eigen::SelfAdjointEigenSolver<Matrix>(K, Eigen::EigenvaluesOnly).eigenvalues()[0];
      EXPECT_GT(lambda_min, -1e-12 * K.norm()) << "Q = " << Q << ", l = " << l;
    }
  }
}

TEST(SphereEqKernel, HyperparameterAdjointMatchesFiniteDifferences) {
  const SphereEqKernel kernel(0.8, 0.6, 3);
  const Matrix X1 = random_sphere_points(7, 2, 40), X2 = random_sphere_points(5, 2, 41);
  const Matrix G = random_normal(7, 5, 42);
  const Vector g_diag = random_normal(7, 1, 43);
  const auto loss = [&](const Vector& h) {
    SphereEqKernel k = kernel;
    k.set_hyperparameters(h);
    Matrix K;
    Vector d;
    k.cross(X1, X2, K);
    k.diagonal(X1, d);
    return G.cwiseProduct(K).sum() + g_diag.dot(d);
  };
  Matrix K;
  kernel.cross(X1, X2, K);
  Vector d_hyper = Vector::Constant(2, 0.5);  // the adjoints add
  kernel.cross_backward(X1, X2, K, G, nullptr, nullptr, d_hyper);
  kernel.diagonal_backward(X1, g_diag, nullptr, d_hyper);
  d_hyper.array() -= 0.5;
  EXPECT_LT(max_relative_error(d_hyper, finite_difference_gradient(loss, kernel.hyperparameters())), 1e-6);
}

// sum G o K(X1(t), X2) and friends along Exp_{X}(t Xi): the ambient adjoints paired with the
// tangent directions.
TEST(SphereEqKernel, InputAdjointsMatchFiniteDifferencesAlongExpMapCurves) {
  const SphereEqKernel kernel(1.1, 0.5, 3);
  const Matrix X1 = random_sphere_points(6, 2, 50), X2 = random_sphere_points(4, 2, 51);
  const Matrix G = random_normal(6, 4, 52);
  const Matrix Xi1 = random_sphere_tangents(X1, 53), Xi2 = random_sphere_tangents(X2, 54);
  Matrix K;
  kernel.cross(X1, X2, K);
  Matrix dX1 = Matrix::Zero(6, 3), dX2 = Matrix::Zero(4, 3);
  Vector d_hyper = Vector::Zero(2);
  kernel.cross_backward(X1, X2, K, G, &dX1, &dX2, d_hyper);
  const auto value = [&](const Matrix& A, const Matrix& B) {
    Matrix k;
    kernel.cross(A, B, k);
    return G.cwiseProduct(k).sum();
  };
  const double h = 1e-5;
  const double fd1 = (value(move_along(X1, Xi1, h), X2) - value(move_along(X1, Xi1, -h), X2)) / (2 * h);
  const double fd2 = (value(X1, move_along(X2, Xi2, h)) - value(X1, move_along(X2, Xi2, -h))) / (2 * h);
  EXPECT_LT(relative_error(dX1.cwiseProduct(Xi1).sum(), fd1), 1e-6);
  EXPECT_LT(relative_error(dX2.cwiseProduct(Xi2).sum(), fd2), 1e-6);
  // Row by row: each point's own derivative.
  for (Index i = 0; i < 6; ++i) {
    Matrix xi = Matrix::Zero(6, 3);
    xi.row(i) = Xi1.row(i);
    const double fd = (value(move_along(X1, xi, h), X2) - value(move_along(X1, xi, -h), X2)) / (2 * h);
    EXPECT_LT(relative_error(dX1.row(i).dot(Xi1.row(i)), fd), 1e-6) << "row " << i;
  }
  // The same points on both sides (one matrix receives both adjoints), symmetric G.
  const Matrix S = G.topRows(4) + G.topRows(4).transpose();
  const auto same = [&](const Matrix& A) {
    Matrix k;
    kernel.cross(A, A, k);
    return S.cwiseProduct(k).sum();
  };
  Matrix Ks, dX = Matrix::Zero(4, 3);
  kernel.cross(X2, X2, Ks);
  kernel.cross_backward(X2, X2, Ks, S, &dX, &dX, d_hyper);
  const double fd = (same(move_along(X2, Xi2, h)) - same(move_along(X2, Xi2, -h))) / (2 * h);
  EXPECT_LT(relative_error(dX.cwiseProduct(Xi2).sum(), fd), 1e-6);
  // k(x, x) = theta: no input gradient from the diagonal.
  Matrix d_diag = Matrix::Zero(4, 3);
  kernel.diagonal_backward(X2, Vector::Ones(4), &d_diag, d_hyper);
  EXPECT_EQ(d_diag.norm(), 0.0);
}

TEST(SphereEqKernel, PsiStatisticsAreRefused) {
  const SphereEqKernel kernel(1.0, 1.0, 3);
  const Matrix mean = random_sphere_points(3, 2, 60), var = Matrix::Constant(3, 3, 0.1);
  PsiStatistics psi;
  EXPECT_THROW(kernel.psi_statistics(mean, var, mean, psi), InputError);
  Vector d_hyper = Vector::Zero(2);
  EXPECT_THROW(kernel.psi_backward(mean, var, mean, psi, 1.0, Matrix::Zero(3, 3), Matrix::Zero(3, 3), nullptr,
                                   nullptr, nullptr, d_hyper),
               InputError);
}

}  // namespace
}  // namespace gplvm
