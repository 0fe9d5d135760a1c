// Riemannian Adam on the hyperboloid through the latent space's manifold: the Frechet mean of points
// of H^2 (maximising -1/2 sum_i d(x, p_i)^2, whose Riemannian gradient is sum_i Log_x(p_i)) against
// the geodesic midpoint (two points, closed form) and a long Riemannian gradient-descent
// reference (five points); the iterates stay on the sheet; on R^1 it is Adam.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/manifold/manifold.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"
#include "gplvm/optim/riemannian_adam.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

Vector lifted(double a, double b) {
  Vector spatial(2);
  spatial << a, b;
  return lorentz::lift(spatial);
}

// The Riemannian gradient of -1/2 sum_i d(x, p_i)^2 at x.
Vector frechet_gradient(const Vector& x, const std::vector<Vector>& points) {
  Vector g = Vector::Zero(x.size());
  for (const Vector& p : points) g += lorentz::log_map(x, p);
  return g;
}

// Riemannian Adam with a decaying rate from the origin; returns the final point and the largest
// distance from the sheet seen on the way.
Vector adam_frechet_mean(const std::vector<Vector>& points, double* sheet_deviation) {
  const LorentzLatentSpace space(2);
  const Manifold& manifold = space.manifold();
  RiemannianAdam adam(manifold, 1, {.learning_rate = 0.2});
  Matrix x = lorentz::origin(2).transpose();
  *sheet_deviation = 0.0;
  for (int t = 0; t < 1500; ++t) {
    adam.set_learning_rate(0.2 * std::pow(0.99, t));
    // An ambient gradient whose Riemannian gradient is the Frechet one: the space flips the
    // time-like sign (the Minkowski metric's inverse) and projects, which keeps a tangent vector.
    const Matrix ambient = lorentz::flip_time(frechet_gradient(x.row(0).transpose(), points)).transpose();
    adam.ascend(x, ambient);
    *sheet_deviation = std::max(*sheet_deviation, lorentz::max_sheet_deviation(x));
  }
  return x.row(0).transpose();
}

TEST(RiemannianAdam, FindsTheGeodesicMidpointOfTwoPoints) {
  const Vector a = lifted(0.7, -1.3), b = lifted(-2.0, 0.3);
  const Vector midpoint = lorentz::exp_map(a, 0.5 * lorentz::log_map(a, b));
  double deviation = 0.0;
  const Vector x = adam_frechet_mean({a, b}, &deviation);
  EXPECT_LT(lorentz::distance(x, midpoint), 1e-6);
  EXPECT_NEAR(lorentz::distance(x, a), lorentz::distance(x, b), 2e-6);
  EXPECT_LT(deviation, 1e-12);
}

TEST(RiemannianAdam, FindsTheFrechetMeanOfFivePointsOfRiemannianGradientDescent) {
  const std::vector<Vector> points = {lifted(0.5, 1.2), lifted(-2.0, 0.3), lifted(1.5, 1.5),
                                      lifted(0.1, -0.4), lifted(3.0, -1.0)};
  // Reference: x <- Exp_x(0.5 mean_i Log_x(p_i)), a contraction here, run to a fixed point.
  Vector reference = lorentz::origin(2);
  for (int t = 0; t < 2000; ++t)
    reference = lorentz::exp_map(reference, 0.5 / points.size() * frechet_gradient(reference, points));
  ASSERT_LT(frechet_gradient(reference, points).norm(), 1e-12);
  double deviation = 0.0;
  const Vector x = adam_frechet_mean(points, &deviation);
  EXPECT_LT(lorentz::distance(x, reference), 1e-6);
  EXPECT_LT(deviation, 1e-12);
}

TEST(RiemannianAdam, LargeStepsFarFromTheOriginStayOnTheSheet) {
  const LorentzLatentSpace space(3);
  const Manifold& manifold = space.manifold();
  const Index n = 20;
  RiemannianAdam adam(manifold, n, {.learning_rate = 0.5});
  Matrix X(n, 4);
  const Matrix start = testing::random_normal(n, 3, 7) * 3.0;
  for (Index i = 0; i < n; ++i) X.row(i) = lorentz::exp_at_origin(start.row(i).transpose()).transpose();
  for (int t = 0; t < 100; ++t) {
    adam.ascend(X, testing::random_normal(n, 4, 100 + t));
    // Far out, <x, x>_L = -1 is the difference of two numbers of size |x|^2: rounding leaves
    // |<x, x>_L + 1| of order 1e-16 |x|^2, which is as close as a double point can be.
    for (Index i = 0; i < n; ++i) {
      const Vector x = X.row(i).transpose();
      EXPECT_LT(std::abs(lorentz::minkowski_dot(x, x) + 1.0) / x.squaredNorm(), 1e-12) << "step " << t;
      EXPECT_GT(x[0], 0.0);
    }
    // The first moment stays tangent at the (moved) points.
    for (Index i = 0; i < n; ++i)
      EXPECT_NEAR(lorentz::minkowski_dot(X.row(i).transpose(), adam.first_moment().row(i).transpose()), 0.0,
                  1e-9 * (1 + adam.first_moment().row(i).norm() * X.row(i).norm()));
  }
}

TEST(RiemannianAdam, OnTheRealLineIsAdam) {
  const auto space = make_latent_space("euclidean", 1);
  const Manifold& manifold = space->manifold();
  const AdamOptions options{.learning_rate = 0.05};
  RiemannianAdam riemannian(manifold, 5, options);
  Adam adam(5, options);
  Matrix X = testing::random_normal(5, 1, 3);
  Vector p = X.col(0);
  for (int t = 0; t < 50; ++t) {
    const Vector g = -(p.array() - 1.0).matrix();  // ascent on -1/2 (p - 1)^2
    const Matrix G = -(X.array() - 1.0).matrix();
    riemannian.ascend(X, G);
    adam.ascend(p, g);
    EXPECT_LT((X.col(0) - p).cwiseAbs().maxCoeff(), 1e-12) << "step " << t;
  }
}

}  // namespace
}  // namespace gplvm
