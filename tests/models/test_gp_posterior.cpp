// GpPosterior, the GP decoder conditioned on observed rows or on inducing values: its predictive
// against dense Eigen formulas, the Jacobian of its mean against finite differences of that mean,
// the Jacobian's covariance against mixed finite differences of the posterior covariance, and the
// closed form of both for the linear kernel.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <functional>

#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/models/gp_posterior.hpp"
#include "gplvm/objectives/inducing_jitter.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::max_relative_error;
using testing::random_normal;

constexpr Index kQ = 2, kD = 3, kM = 12;
constexpr double kNoise = 0.1;

std::unique_ptr<Kernel> kernel_named(const std::string& expression) {
  auto k = make_kernel(expression, kQ, KernelInit{1.2, 0.9, 3.0});
  k->set_hyperparameters(k->hyperparameters() + 0.2 * random_normal(k->num_hyperparameters(), 1, 3).col(0));
  return k;
}

// The posterior covariance written out densely: k(a, b) - k_a^T C^{-1} k_b + k_a^T W k_b, with C the
// conditioning matrix and W the retained spread (zero given observations).
struct DenseReference {
  const Kernel& kernel;
  Matrix Z, C_inverse, W, weights;  // weights: C^{-1} Y or K^{-1} m

  Matrix k_at(const Matrix& a, const Matrix& b) const {
    Matrix K;
    kernel.cross(a, b, K);
    return K;
  }
  double covariance(const Matrix& a, const Matrix& b) const {
    const Matrix ka = k_at(Z, a), kb = k_at(Z, b);
    return k_at(a, b)(0, 0) - (ka.transpose() * C_inverse * kb)(0, 0) + (ka.transpose() * W * kb)(0, 0);
  }
  Vector mean(const Matrix& x) const { return (k_at(Z, x).transpose() * weights).transpose(); }
};

DenseReference given_observations_reference(const Kernel& k, const Matrix& Z, const Matrix& Y) {
  Matrix C;
  k.cross(Z, Z, C);
  C.diagonal().array() += kNoise;
  const Matrix C_inverse = C.llt().solve(Matrix::Identity(kM, kM));
  return {k, Z, C_inverse, Matrix::Zero(kM, kM), C_inverse * Y};
}

InducingPosterior some_inducing_posterior() {
  InducingPosterior q;
  q.mean = random_normal(kM, kD, 7);
  q.scale = (0.3 * random_normal(kM, kM, 8)).triangularView<Eigen::Lower>();
  q.scale.diagonal().array() = q.scale.diagonal().array().abs() + 0.2;
  return q;
}

DenseReference given_inducing_reference(const Kernel& k, const Matrix& Z, const InducingPosterior& q) {
  Matrix K;
  k.cross(Z, Z, K);
  const Matrix K_inverse =
      jittered_inducing_kernel(K, kInducingRelativeJitter).llt().solve(Matrix::Identity(kM, kM));
  const Matrix S = q.scale * q.scale.transpose();
  return {k, Z, K_inverse, K_inverse * S * K_inverse, K_inverse * q.mean};
}

void expect_matches_reference(const GpPosterior& posterior, const DenseReference& r, const Matrix& X) {
  const Prediction p = posterior.predict(X);
  const JacobianPrediction j = posterior.jacobian(X);
  ASSERT_EQ(j.mean.size(), static_cast<std::size_t>(X.rows()));
  for (Index i = 0; i < X.rows(); ++i) {
    const Matrix x = X.row(i);
    EXPECT_LT(max_relative_error(p.mean.row(i).transpose(), r.mean(x)), 1e-12);
    EXPECT_NEAR(p.variance[i], r.covariance(x, x) + kNoise, 1e-12 * (1 + std::abs(p.variance[i])));
    const Matrix& J = j.mean[static_cast<std::size_t>(i)];
    ASSERT_EQ(J.rows(), kD);
    ASSERT_EQ(J.cols(), kQ);
    for (Index d = 0; d < kD; ++d) {
      const auto f = [&](const Vector& v) { return r.mean(v.transpose())[d]; };
      const Vector fd = testing::finite_difference_gradient(f, x.row(0).transpose());
      EXPECT_LT(max_relative_error(J.row(d).transpose(), fd), 1e-6) << "point " << i << " output " << d;
    }
    const Matrix& S = j.covariance[static_cast<std::size_t>(i)];
    Matrix fd(kQ, kQ);
    for (Index a = 0; a < kQ; ++a)
      for (Index b = 0; b < kQ; ++b)
        fd(a, b) = testing::mixed_second_difference(
            [&](const Matrix& u, const Matrix& v) { return r.covariance(u, v); }, x, a, b, 1e-3);
    EXPECT_LT(max_relative_error(S.reshaped(), fd.reshaped()), 1e-6) << "point " << i << "\n"
                                                                     << S << "\n"
                                                                     << fd;
  }
}

class GpPosteriorKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GpPosteriorKernels, GivenObservationsJacobianAndCovarianceAreFiniteDifferencesOfTheDenseGp) {
  const auto k = kernel_named(GetParam());
  const Matrix Z = random_normal(kM, kQ, 1), Y = random_normal(kM, kD, 2);
  const Matrix X = 1.2 * random_normal(4, kQ, 5);
  expect_matches_reference(GpPosterior::given_observations(*k, Z, Y, kNoise),
                           given_observations_reference(*k, Z, Y), X);
}

TEST_P(GpPosteriorKernels, GivenInducingValuesJacobianAndCovarianceAreFiniteDifferencesOfTheDenseGp) {
  const auto k = kernel_named(GetParam());
  const Matrix Z = random_normal(kM, kQ, 1);
  const InducingPosterior q = some_inducing_posterior();
  const Matrix X = 1.2 * random_normal(4, kQ, 6);
  expect_matches_reference(GpPosterior::given_inducing(*k, Z, q, kNoise), given_inducing_reference(*k, Z, q),
                           X);
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpPosteriorKernels,
                         ::testing::Values("eq_ard", "matern52", "eq_ard+linear"));

// With k(x, z) = x^T A z the mean x^T A Z^T alpha is linear: E[J] = alpha^T Z A everywhere, and
// Sigma_J = A - A Z^T C^{-1} Z A, the covariance of the GP's (constant) gradient A w, w ~ q.
TEST(GpPosterior, LinearKernelJacobianAndCovarianceHaveTheirClosedForms) {
  const auto k = kernel_named("linear");
  const Matrix A = k->gradient_covariance(Matrix::Zero(1, kQ));
  const Vector a = k->hyperparameters().array().exp();
  ASSERT_LT((A - Matrix(a.asDiagonal())).norm(), 1e-14);
  const Matrix Z = random_normal(kM, kQ, 1), Y = random_normal(kM, kD, 2);
  Matrix C = Z * A * Z.transpose();
  C.diagonal().array() += kNoise;
  const Matrix C_inverse = C.llt().solve(Matrix::Identity(kM, kM));
  const Matrix J = (C_inverse * Y).transpose() * Z * A, Sigma = A - A * Z.transpose() * C_inverse * Z * A;
  const JacobianPrediction got =
      GpPosterior::given_observations(*k, Z, Y, kNoise).jacobian(3.0 * random_normal(3, kQ, 9));
  for (std::size_t i = 0; i < got.mean.size(); ++i) {
    EXPECT_LT(max_relative_error(got.mean[i].reshaped(), J.reshaped()), 1e-11);
    EXPECT_LT(max_relative_error(got.covariance[i].reshaped(), Sigma.reshaped()), 1e-11);
  }
}

TEST(GpPosterior, FarFromTheConditioningSetTheJacobianCovarianceReturnsToThePriors) {
  const auto k = kernel_named("eq_ard");
  const Matrix Z = random_normal(kM, kQ, 1), Y = random_normal(kM, kD, 2);
  const Matrix far = Matrix::Constant(1, kQ, 40.0);
  const JacobianPrediction j = GpPosterior::given_observations(*k, Z, Y, kNoise).jacobian(far);
  EXPECT_LT((j.covariance[0] - k->gradient_covariance(far)).norm(), 1e-12);
  EXPECT_LT(j.mean[0].norm(), 1e-12);
}

}  // namespace
}  // namespace gplvm
