// The Lorentz latent space: its maps are the hyperboloid's, points stay on the sheet, and every
// adjoint matches finite differences (free coordinates directly, points along exponential-map
// curves, where an ambient gradient is defined).
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"
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

constexpr Index kQ = 2;

Matrix positive(Index rows, Index cols, std::uint64_t seed) {
  return (0.4 * random_normal(rows, cols, seed)).array().exp();
}

// f as a function of a flattened matrix of the given shape.
std::function<double(const Vector&)> flat(Index rows, Index cols,
                                          const std::function<double(const Matrix&)>& f) {
  return [=](const Vector& v) { return f(Eigen::Map<const Matrix>(v.data(), rows, cols)); };
}

Vector flatten(const Matrix& M) {
  return Eigen::Map<const Vector>(M.data(), M.size());
}

TEST(LorentzLatentSpace, IsMadeByNameWithAnAmbientTimeCoordinate) {
  const auto space = make_latent_space("lorentz", 3);
  EXPECT_EQ(space->name(), "lorentz");
  EXPECT_EQ(space->intrinsic_dim(), 3);
  EXPECT_EQ(space->ambient_dim(), 4);
  EXPECT_FALSE(space->has_closed_form_kl());
  EXPECT_THROW(make_latent_space("lorentz", 0), InputError);
  EXPECT_THROW(make_latent_space("poincare", 2), InputError);
}

TEST(LorentzLatentSpace, FromOriginTangentIsTheExpMapAtTheOriginWithItsAdjoint) {
  const LorentzLatentSpace space(kQ);
  Matrix V = random_normal(6, kQ, 1);
  V.row(5).setZero();  // r = 0 takes the series
  Matrix X;
  space.from_origin_tangent(V, X);
  for (Index i = 0; i < V.rows(); ++i) {
    EXPECT_NEAR(lorentz::distance(lorentz::origin(kQ), X.row(i).transpose()), V.row(i).norm(), 1e-13);
    EXPECT_LT((lorentz::log_at_origin(X.row(i).transpose()) - V.row(i).transpose()).norm(), 1e-13);
  }
  const Matrix W = random_normal(6, kQ + 1, 2);
  const auto loss = [&](const Matrix& v) {
    Matrix x;
    space.from_origin_tangent(v, x);
    return W.cwiseProduct(x).sum();
  };
  Matrix dV = Matrix::Zero(6, kQ);
  space.from_origin_tangent_backward(V, W, dV);
  EXPECT_LT(max_relative_error(flatten(dV), finite_difference_gradient(flat(6, kQ, loss), flatten(V))), 1e-8);
}

// F(x) = sum_n w_n . x_n (Euclidean): its Riemannian gradient is tangent and pairs with every
// tangent direction xi (in the Minkowski product) as the derivative of F along Exp_x(t xi).
TEST(LorentzLatentSpace, RiemannianGradientIsTheTangentMinkowskiGradient) {
  const LorentzLatentSpace space(kQ);
  const Matrix X = random_lorentz_points(5, kQ, 3, 1.3), W = random_normal(5, kQ + 1, 4);
  Matrix G = W;
  space.manifold().riemannian_gradient(X, G);
  const Matrix Xi = random_tangents(X, 5);
  for (Index i = 0; i < X.rows(); ++i) {
    const Vector x = X.row(i).transpose(), g = G.row(i).transpose(), xi = Xi.row(i).transpose();
    EXPECT_NEAR(lorentz::minkowski_dot(x, g), 0.0, 1e-12 * g.norm() * x[0]);
    const auto along = [&](const Matrix& moved) { return W.row(i).dot(moved.row(0)); };
    const double fd = derivative_along(along, x.transpose(), xi.transpose());
    EXPECT_LT(relative_error(lorentz::minkowski_dot(g, xi), fd), 1e-8);
  }
  Matrix again = G;  // idempotent on what it returns
  Matrix flipped = G;
  flipped.col(0) *= -1;
  space.manifold().riemannian_gradient(X, flipped);
  EXPECT_LT((flipped - again).norm(), 1e-12 * G.norm());
}

// Riemannian gradient descent on the squared distance to a point, many steps: the points stay
// on the sheet to 1e-12 and reach the target.
TEST(LorentzLatentSpace, RetractionsKeepPointsOnTheSheet) {
  const LorentzLatentSpace space(kQ);
  Matrix X = random_lorentz_points(8, kQ, 6, 1.0);
  const Matrix target = random_lorentz_points(8, kQ, 7, 1.0);
  double worst = 0;
  for (int step = 0; step < 5000; ++step) {
    // Noise of Minkowski norm ~0.05 (normals at the origin, transported) and a pull to the target.
    const Matrix n = random_normal(X.rows(), kQ, 100 + step);
    Matrix noise(X.rows(), X.cols()), to_target(X.rows(), X.cols());
    for (Index i = 0; i < X.rows(); ++i) {
      const Vector x = X.row(i).transpose();
      noise.row(i) = 0.05 * lorentz::transport_from_origin(x, n.row(i).transpose()).transpose();
      to_target.row(i) = lorentz::log_map(x, target.row(i).transpose()).transpose();
    }
    space.manifold().retract(X, 0.1 * to_target + (step < 4000 ? noise : 0 * noise));
    worst = std::max(worst, lorentz::max_sheet_deviation(X));
  }
  EXPECT_LT(worst, 1e-12);
  EXPECT_LT((X - target).norm(), 1e-10);
}

TEST(LorentzLatentSpace, RetractIsTheExpMap) {
  const LorentzLatentSpace space(kQ);
  Matrix X = random_lorentz_points(4, kQ, 8, 1.0);
  const Matrix T = random_tangents(X, 9);
  const Matrix expected = testing::move_along(X, T, 1.0);
  space.manifold().retract(X, T);
  EXPECT_LT((X - expected).norm(), 1e-13 * expected.norm());
}

struct Posterior {
  Matrix location, variance, eps;
};

Posterior posterior(Index n, std::uint64_t seed) {
  return {random_lorentz_points(n, kQ, seed, 1.2), positive(n, kQ, seed + 1), random_normal(n, kQ, seed + 2)};
}

TEST(LorentzLatentSpace, SamplesLieOnTheSheetAtTheirTangentDistance) {
  const LorentzLatentSpace space(kQ);
  const Posterior p = posterior(10, 10);
  Matrix X;
  space.sample_posterior(p.location, p.variance, p.eps, X);
  EXPECT_LT(lorentz::max_sheet_deviation(X), 1e-12);
  for (Index i = 0; i < X.rows(); ++i) {
    const double r = (p.variance.row(i).array().sqrt() * p.eps.row(i).array()).matrix().norm();
    EXPECT_NEAR(lorentz::distance(p.location.row(i).transpose(), X.row(i).transpose()), r, 1e-12);
  }
}

// d/dt of L(location(t)) along Exp_location(t Xi) against the adjoint, and L(variance) by plain
// finite differences; `loss` and `adjoint` see (location, variance).
void expect_adjoints_match(const Posterior& p,
                           const std::function<double(const Matrix&, const Matrix&)>& loss,
                           const Matrix& d_location, const Matrix& d_variance) {
  const Matrix Xi = random_tangents(p.location, 99);
  const double fd =
      derivative_along([&](const Matrix& moved) { return loss(moved, p.variance); }, p.location, Xi);
  EXPECT_LT(relative_error(d_location.cwiseProduct(Xi).sum(), fd), 1e-7);
  const auto of_variance =
      flat(p.variance.rows(), p.variance.cols(), [&](const Matrix& v) { return loss(p.location, v); });
  EXPECT_LT(
      max_relative_error(flatten(d_variance), finite_difference_gradient(of_variance, flatten(p.variance))),
      1e-7);
}

TEST(LorentzLatentSpace, SampleAdjointMatchesFiniteDifferences) {
  const LorentzLatentSpace space(kQ);
  Posterior p = posterior(6, 20);
  p.eps.row(5).setZero();  // a sample at its location (r = 0)
  const Matrix W = random_normal(6, kQ + 1, 23);
  const auto loss = [&](const Matrix& location, const Matrix& variance) {
    Matrix X;
    space.sample_posterior(location, variance, p.eps, X);
    return W.cwiseProduct(X).sum();
  };
  Matrix d_location = Matrix::Zero(6, kQ + 1), d_variance = Matrix::Zero(6, kQ);
  space.sample_posterior_backward(p.location, p.variance, p.eps, W, d_location, d_variance);
  expect_adjoints_match(p, loss, d_location, d_variance);
}

// The estimate's total derivative: its own partials plus its samples' part pushed through the
// sampler, as a model does.
TEST(LorentzLatentSpace, KlAdjointMatchesFiniteDifferences) {
  const LorentzLatentSpace space(kQ);
  const Posterior p = posterior(5, 30);
  const double scale = 0.7;
  const auto loss = [&](const Matrix& location, const Matrix& variance) {
    Matrix X;
    space.sample_posterior(location, variance, p.eps, X);
    return scale * space.kl_to_prior(location, variance, X);
  };
  Matrix X, d_samples;
  space.sample_posterior(p.location, p.variance, p.eps, X);
  Matrix d_location = Matrix::Zero(5, kQ + 1), d_variance = Matrix::Zero(5, kQ);
  space.kl_to_prior_backward(p.location, p.variance, X, scale, d_location, d_variance, &d_samples);
  ASSERT_EQ(d_samples.rows(), 5);
  space.sample_posterior_backward(p.location, p.variance, p.eps, d_samples, d_location, d_variance);
  expect_adjoints_match(p, loss, d_location, d_variance);
  EXPECT_THROW(space.kl_to_prior_backward(p.location, p.variance, X, scale, d_location, d_variance, nullptr),
               InputError);
}

// The partial derivatives at fixed samples, each on its own (they are what a model adds to).
TEST(LorentzLatentSpace, KlPartialsAtFixedSamplesMatchFiniteDifferences) {
  const LorentzLatentSpace space(kQ);
  const Posterior p = posterior(4, 40);
  const Matrix X = random_lorentz_points(4, kQ, 44, 1.5);
  Matrix d_location = Matrix::Zero(4, kQ + 1), d_variance = Matrix::Zero(4, kQ), d_samples;
  space.kl_to_prior_backward(p.location, p.variance, X, 1.0, d_location, d_variance, &d_samples);
  expect_adjoints_match(
      p, [&](const Matrix& l, const Matrix& v) { return space.kl_to_prior(l, v, X); }, d_location,
      d_variance);
  const Matrix Xi = random_tangents(X, 45);
  const double fd = derivative_along(
      [&](const Matrix& moved) { return space.kl_to_prior(p.location, p.variance, moved); }, X, Xi);
  EXPECT_LT(relative_error(d_samples.cwiseProduct(Xi).sum(), fd), 1e-7);
}

// At the origin both q and the prior are images of Gaussians under the same map Exp_o, so
// KL(q || p) is the Gaussians' KL, 1/2 sum_q (v_q - 1 - log v_q), which the estimates' mean must
// approach; with variance 1 every single estimate is 0.
TEST(LorentzLatentSpace, KlEstimateIsUnbiasedAtTheOrigin) {
  const LorentzLatentSpace space(kQ);
  const Index n = 40000;
  Matrix location = Matrix::Zero(n, kQ + 1);
  location.col(0).setOnes();
  Matrix variance(n, kQ);
  variance.col(0).setConstant(0.5);
  variance.col(1).setConstant(2.0);
  const Matrix eps = random_normal(n, kQ, 50);
  Matrix X;
  space.sample_posterior(location, variance, eps, X);
  std::vector<double> each(n);
  double mean = 0, mean_sq = 0;
  for (Index i = 0; i < n; ++i) {
    const double kl = space.kl_to_prior(location.row(i), variance.row(i), X.row(i));
    mean += kl / n;
    mean_sq += kl * kl / n;
  }
  const double closed = 0.5 * ((0.5 - 1 - std::log(0.5)) + (2.0 - 1 - std::log(2.0)));
  const double standard_error = std::sqrt((mean_sq - mean * mean) / n);
  EXPECT_NEAR(mean, closed, 4 * standard_error);
  EXPECT_LT(standard_error, 0.01);
  space.sample_posterior(location.topRows(10), Matrix::Ones(10, kQ), eps.topRows(10), X);
  EXPECT_NEAR(space.kl_to_prior(location.topRows(10), Matrix::Ones(10, kQ), X), 0.0, 1e-12);
}

}  // namespace
}  // namespace gplvm
