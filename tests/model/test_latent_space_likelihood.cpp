// The Euclidean latent space and the Gaussian likelihood: their maps are what the Euclidean
// formulas say, and every adjoint matches finite differences.
#include <gtest/gtest.h>

#include "gplvm/core/error.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"
#include "gplvm/model/likelihood.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

TEST(EuclideanLatentSpace, MapsAreTheIdentityAndTheReparameterisation) {
  const auto space = make_latent_space("euclidean", 3);
  EXPECT_EQ(space->ambient_dim(), 3);
  EXPECT_EQ(space->intrinsic_dim(), 3);
  const Matrix V = random_normal(5, 3, 1), eps = random_normal(5, 3, 2);
  const Matrix var = random_normal(5, 3, 3).array().exp();
  Matrix X;
  space->from_origin_tangent(V, X);
  EXPECT_EQ((X - V).norm(), 0.0);
  space->sample_posterior(V, var, eps, X);
  EXPECT_LT((X - (V.array() + var.array().sqrt() * eps.array()).matrix()).norm(), 1e-14);
  Matrix moved = V;
  space->manifold().retract(moved, eps);
  EXPECT_LT((moved - (V + eps)).norm(), 1e-15);
  Matrix G = eps;
  space->manifold().riemannian_gradient(V, G);
  EXPECT_EQ((G - eps).norm(), 0.0);
}

TEST(EuclideanLatentSpace, KlIsTheClosedFormAgainstTheStandardNormal) {
  const auto space = make_latent_space("euclidean", 2);
  const Matrix mu = (Matrix(1, 2) << 0.3, -1.2).finished(), v = (Matrix(1, 2) << 0.5, 2.0).finished();
  // KL(N(mu, v) || N(0, 1)) = 1/2 (v + mu^2 - 1 - log v), summed over dimensions.
  double expected = 0;
  for (int q = 0; q < 2; ++q) expected += 0.5 * (v(0, q) + mu(0, q) * mu(0, q) - 1 - std::log(v(0, q)));
  EXPECT_NEAR(space->kl_to_prior(mu, v, mu), expected, 1e-15);
  EXPECT_TRUE(space->has_closed_form_kl());
}

TEST(EuclideanLatentSpace, SampleAndKlAdjointsMatchFiniteDifferences) {
  const auto space = make_latent_space("euclidean", 2);
  const Index n = 4, q = 2;
  const Matrix eps = random_normal(n, q, 5), W = random_normal(n, q, 6);
  Vector x0(2 * n * q);
  x0 << random_normal(n * q, 1, 7), random_normal(n * q, 1, 8).array().exp().matrix();
  auto split = [&](const Vector& x) {
    return std::pair<Matrix, Matrix>(x.head(n * q).reshaped(n, q), x.tail(n * q).reshaped(n, q));
  };
  // L = <W, sample> - 0.7 KL: both adjoints at once.
  auto objective = [&](const Vector& x) {
    const auto [mu, v] = split(x);
    Matrix X;
    space->sample_posterior(mu, v, eps, X);
    return (W.array() * X.array()).sum() - 0.7 * space->kl_to_prior(mu, v, X);
  };
  const auto [mu, v] = split(x0);
  Matrix d_mu = Matrix::Zero(n, q), d_v = Matrix::Zero(n, q), X;
  space->sample_posterior(mu, v, eps, X);
  space->sample_posterior_backward(mu, v, eps, W, d_mu, d_v);
  space->kl_to_prior_backward(mu, v, X, -0.7, d_mu, d_v, nullptr);
  Vector analytic(2 * n * q);
  analytic << d_mu.reshaped(), d_v.reshaped();
  EXPECT_LT(max_relative_error(analytic, finite_difference_gradient(objective, x0)), 1e-6);
}

TEST(LatentSpaceRegistry, UnknownSpacesNameTheKey) {
  try {
    make_latent_space("poincare", 2);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(testing::contains(e.what(), "model.latent_space"));
  }
}

TEST(GaussianLikelihood, IsTheIdentityWithZeroLogJacobian) {
  const auto lik = make_likelihood("gaussian", 4);
  EXPECT_TRUE(lik->is_identity());
  EXPECT_EQ(lik->output_dim(), 4);
  const RowMatrix Y = random_normal(6, 4, 9);
  RowMatrix F, back;
  Vector log_jacobian;
  lik->to_outputs(Y, F, log_jacobian);
  lik->to_data(F, back);
  EXPECT_EQ((F - Y).norm(), 0.0);
  EXPECT_EQ((back - Y).norm(), 0.0);
  EXPECT_EQ(log_jacobian.size(), 6);
  EXPECT_EQ(log_jacobian.norm(), 0.0);
  EXPECT_THROW(lik->to_outputs(RowMatrix::Zero(2, 3), F, log_jacobian), InputError);
  EXPECT_THROW(make_likelihood("wrapped_sphere", 3), InputError);
}

}  // namespace
}  // namespace gplvm
