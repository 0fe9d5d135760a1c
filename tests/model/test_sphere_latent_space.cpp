// The sphere latent space S^Q: points are unit vectors in R^{Q+1}, its maps are the sphere's
// (checked against independent formulas), points stay on the sphere, transport keeps lengths and
// tangency, and every adjoint matches finite differences (free coordinates directly, points along
// exponential-map curves, where an ambient gradient is defined).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/sphere_geometry.hpp"
#include "gplvm/model/sphere_latent_space.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

constexpr Index kQ = 2;

// n points of S^Q: normalised N(0, I) vectors.
Matrix random_sphere_points(Index n, Index Q, std::uint64_t seed) {
  Matrix X = random_normal(n, Q + 1, seed);
  X.rowwise().normalize();
  return X;
}

// A random tangent vector at each row of X (a projected N(0, I) ambient vector).
Matrix random_sphere_tangents(const Matrix& X, std::uint64_t seed) {
  Matrix T = random_normal(X.rows(), X.cols(), seed);
  for (Index i = 0; i < X.rows(); ++i) T.row(i) -= T.row(i).dot(X.row(i)) * X.row(i);
  return T;
}

// Row i moved to Exp_{x_i}(t xi_i), by the textbook formula cos|v| x + sin|v| v / |v|.
Matrix move_along(const Matrix& X, const Matrix& Xi, double t) {
  Matrix out(X.rows(), X.cols());
  for (Index i = 0; i < X.rows(); ++i) {
    const Vector v = t * Xi.row(i).transpose();
    const double r = v.norm();
    out.row(i) = (std::cos(r) * X.row(i).transpose() + (r > 0 ? std::sin(r) / r : 1.0) * v).transpose();
  }
  return out;
}

// d/dt f(Exp_X(t Xi)) at t = 0, by central differences.
double derivative_along(const std::function<double(const Matrix&)>& f, const Matrix& X, const Matrix& Xi,
                        double h = 1e-5) {
  return (f(move_along(X, Xi, h)) - f(move_along(X, Xi, -h))) / (2.0 * h);
}

double relative_error(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-12);
}

// f as a function of a flattened matrix of the given shape.
std::function<double(const Vector&)> flat(Index rows, Index cols,
                                          const std::function<double(const Matrix&)>& f) {
  return [=](const Vector& v) { return f(Eigen::Map<const Matrix>(v.data(), rows, cols)); };
}

Vector flatten(const Matrix& M) {
  return Eigen::Map<const Vector>(M.data(), M.size());
}

double max_norm_deviation(const Matrix& X) {
  return (X.rowwise().norm().array() - 1.0).abs().maxCoeff();
}

TEST(SphereLatentSpace, IsMadeByNameWithQPlusOneCoordinates) {
  const auto space = make_latent_space("sphere", 3);
  EXPECT_EQ(space->name(), "sphere");
  EXPECT_EQ(space->intrinsic_dim(), 3);
  EXPECT_EQ(space->ambient_dim(), 4);
  EXPECT_TRUE(space->is_curved());
  EXPECT_FALSE(space->has_posterior());
  EXPECT_FALSE(space->coordinates_note().empty());
  EXPECT_EQ(latent_space_with_ambient_dim("sphere", 2)->intrinsic_dim(), 1);
  EXPECT_THROW(latent_space_with_ambient_dim("sphere", 1), InputError);
  EXPECT_THROW(make_latent_space("sphere", 0), InputError);
  EXPECT_TRUE(latent_space_is("sphere", &LatentSpace::is_curved));
  EXPECT_FALSE(latent_space_is("euclidean", &LatentSpace::is_curved));
  EXPECT_EQ(latent_spaces_where(&LatentSpace::is_curved), "lorentz or sphere");
  EXPECT_EQ(latent_spaces_where(&LatentSpace::has_posterior), "euclidean or lorentz");
}

// No posterior family: every posterior map refuses, naming model.latent_space.
TEST(SphereLatentSpace, PosteriorMapsAreRefusedNamingTheKey) {
  const SphereLatentSpace space(kQ);
  const Matrix L = random_sphere_points(2, kQ, 1), V = Matrix::Ones(2, kQ), E = random_normal(2, kQ, 2);
  Matrix X, dL = Matrix::Zero(2, kQ + 1), dV = Matrix::Zero(2, kQ);
  try {
    space.sample_posterior(L, V, E, X);
    FAIL() << "sample_posterior did not throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("model.latent_space"), std::string::npos) << e.what();
  }
  EXPECT_THROW(space.sample_posterior_backward(L, V, E, L, dL, dV), InputError);
  EXPECT_THROW(space.kl_to_prior(L, V, L), InputError);
  EXPECT_THROW(space.kl_to_prior_backward(L, V, L, 1.0, dL, dV, &X), InputError);
}

TEST(SphereLatentSpace, FromOriginTangentIsTheExpMapAtTheNorthPoleWithItsAdjoint) {
  const SphereLatentSpace space(kQ);
  Matrix V = random_normal(7, kQ, 3);
  V.row(5).setZero();                  // r = 0
  V.row(6) *= 1e-3 / V.row(6).norm();  // the series of the adjoint's slope
  Matrix X;
  space.from_origin_tangent(V, X);
  ASSERT_EQ(X.cols(), kQ + 1);
  EXPECT_LT(max_norm_deviation(X), 1e-15);
  Vector pole = Vector::Zero(kQ + 1);
  pole[0] = 1.0;
  for (Index i = 0; i < V.rows(); ++i) {
    const double r = V.row(i).norm();
    ASSERT_LT(r, std::numbers::pi);
    // The geodesic distance to the pole is |v|, and the point lies along v.
    EXPECT_NEAR(space.manifold().distances(pole.transpose(), X.row(i))(0, 0), r, 1e-14);
    EXPECT_NEAR(X(i, 0), std::cos(r), 1e-15);
    if (r > 0) {
      EXPECT_LT((X.row(i).tail(kQ) - std::sin(r) / r * V.row(i)).norm(), 1e-15);
    }
  }
  const Matrix W = random_normal(7, kQ + 1, 4);
  const auto loss = [&](const Matrix& v) {
    Matrix x;
    space.from_origin_tangent(v, x);
    return W.cwiseProduct(x).sum();
  };
  Matrix dV = Matrix::Constant(7, kQ, 0.25);  // the adjoint adds
  space.from_origin_tangent_backward(V, W, dV);
  dV.array() -= 0.25;
  EXPECT_LT(max_relative_error(flatten(dV), finite_difference_gradient(flat(7, kQ, loss), flatten(V))), 1e-6);
  // The small row on its own (its entries are tiny next to the others).
  const Matrix v6 = V.row(6), w6 = W.row(6);
  Matrix d6 = Matrix::Zero(1, kQ);
  space.from_origin_tangent_backward(v6, w6, d6);
  const auto loss6 = [&](const Matrix& v) {
    Matrix x;
    space.from_origin_tangent(v, x);
    return w6.cwiseProduct(x).sum();
  };
  EXPECT_LT(
      max_relative_error(flatten(d6), finite_difference_gradient(flat(1, kQ, loss6), flatten(v6), 1e-7)),
      1e-6);
}

// A loop of principal-component scores in the plane starts as the loop around S^1, in its order;
// the other spaces take Q components as tangent coordinates at the origin.
TEST(SphereLatentSpace, StartsFromQPlusOnePrincipalComponentsProjectedOntoTheSphere) {
  const SphereLatentSpace circle(1);
  ASSERT_EQ(circle.start_components(), 2);
  const Index n = 12;
  Matrix P(n + 1, 2);
  for (Index i = 0; i < n; ++i) {
    const double a = 2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n);
    P.row(i) << (1.5 + 0.3 * std::sin(3 * a)) * std::cos(a), (1.5 + 0.3 * std::sin(3 * a)) * std::sin(a);
  }
  P.row(n).setZero();
  Matrix X;
  circle.from_start_components(P, X);
  ASSERT_EQ(X.cols(), 2);
  for (Index i = 0; i < n; ++i) {
    EXPECT_NEAR(X.row(i).norm(), 1.0, 1e-15);
    EXPECT_NEAR(std::atan2(X(i, 1), X(i, 0)), std::atan2(P(i, 1), P(i, 0)), 1e-15);
  }
  EXPECT_EQ(X.row(n), (Matrix(1, 2) << 1.0, 0.0).finished());  // no direction: the origin
  const auto plane = make_latent_space("euclidean", 2);
  EXPECT_EQ(plane->start_components(), 2);
  Matrix Y;
  plane->from_start_components(P, Y);
  EXPECT_EQ(Y, P);
}

TEST(SphereLatentSpace, MembershipIsTheUnitNormWithinTheTolerance) {
  const SphereLatentSpace space(kQ);
  Matrix X = random_sphere_points(5, kQ, 5);
  EXPECT_EQ(space.manifold().first_row_outside(X, 1e-12), -1);
  X.row(3) *= 1.0 + 1e-6;
  EXPECT_EQ(space.manifold().first_row_outside(X, 1e-8), 3);
  EXPECT_EQ(space.manifold().first_row_outside(X, 1e-5), -1);
  X.row(1) *= 0.5;
  EXPECT_EQ(space.manifold().first_row_outside(X, 1e-5), 1);
  X = random_sphere_points(4, kQ, 6);
  X(2, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(space.manifold().first_row_outside(X, 1.0), 2);
  X = random_sphere_points(4, kQ, 6);
  X(0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_EQ(space.manifold().first_row_outside(X, 1e300), 0);
  X.row(0).setConstant(1e300);  // the norm overflows
  EXPECT_EQ(space.manifold().first_row_outside(X, 1e300), 0);
  EXPECT_EQ(space.manifold().first_row_outside(Matrix::Ones(3, kQ), 1e-8), 0);  // Q coordinates: not points
  EXPECT_EQ(space.manifold().first_row_outside(Matrix(0, kQ + 1), 1e-8), -1);
}

// Against arccos <x, y> where it is well conditioned, and at the ends, where it is not: nearby
// points at their (tiny) tangent distance, antipodes at pi.
TEST(SphereLatentSpace, DistancesAreTheGeodesicAngle) {
  const SphereLatentSpace space(kQ);
  const Matrix A = random_sphere_points(6, kQ, 7), B = random_sphere_points(4, kQ, 8);
  const Matrix D = space.manifold().distances(A, B);
  ASSERT_EQ(D.rows(), 6);
  ASSERT_EQ(D.cols(), 4);
  for (Index i = 0; i < 6; ++i)
    for (Index j = 0; j < 4; ++j) EXPECT_NEAR(D(i, j), std::acos(A.row(i).dot(B.row(j))), 1e-12);
  // Unit tangents moved by t < pi are t away, to the rounding of the points' coordinates.
  Matrix T = random_sphere_tangents(A, 9);
  T.rowwise().normalize();
  for (const double t : {1e-9, 1e-5, 0.3, 2.5, 3.1}) {
    const Matrix moved = move_along(A, T, t);
    for (Index i = 0; i < 6; ++i)
      EXPECT_NEAR(space.manifold().distances(A.row(i), moved.row(i))(0, 0), t, 1e-15 + 1e-14 * t)
          << "t = " << t;
  }
  EXPECT_NEAR(space.manifold().distances(A.row(0), -A.row(0))(0, 0), std::numbers::pi, 1e-15);
  EXPECT_EQ(space.manifold().distances(A.row(0), A.row(0))(0, 0), 0.0);
}

// F(x) = sum_n w_n . x_n: its Riemannian gradient is tangent and pairs with every tangent
// direction xi as the derivative of F along Exp_x(t xi).
TEST(SphereLatentSpace, RiemannianGradientIsTheTangentProjection) {
  const SphereLatentSpace space(kQ);
  const Matrix X = random_sphere_points(5, kQ, 10), W = random_normal(5, kQ + 1, 11);
  Matrix G = W;
  space.manifold().riemannian_gradient(X, G);
  const Matrix Xi = random_sphere_tangents(X, 12);
  for (Index i = 0; i < X.rows(); ++i) {
    EXPECT_NEAR(G.row(i).dot(X.row(i)), 0.0, 1e-15 * W.row(i).norm());
    const auto along = [&](const Matrix& moved) { return W.row(i).dot(moved.row(i)); };
    const double fd = derivative_along(along, X, Xi);
    EXPECT_LT(relative_error(G.row(i).dot(Xi.row(i)), fd), 1e-8);
  }
  Matrix again = G;  // idempotent
  space.manifold().riemannian_gradient(X, again);
  EXPECT_LT((again - G).norm(), 1e-15 * G.norm());
  const Vector norms = space.manifold().chart_gradient_norms(X, W);  // the Riemannian gradient's length
  EXPECT_LT((norms - G.rowwise().norm()).norm(), 1e-15 * norms.norm());
  EXPECT_LT((space.manifold().tangent_squared_norms(X, G) - G.rowwise().squaredNorm()).norm(),
            1e-15 * G.squaredNorm());
}

TEST(SphereLatentSpace, RetractIsTheExpMapOfTheTangentPartAndStaysOnTheSphere) {
  const SphereLatentSpace space(kQ);
  Matrix X = random_sphere_points(4, kQ, 13);
  const Matrix T = random_sphere_tangents(X, 14);
  const Matrix expected = move_along(X, T, 1.0);
  Matrix Y = X;
  space.manifold().retract(Y, T + 0.7 * X);  // a normal component is dropped
  EXPECT_LT((Y - expected).norm(), 1e-14 * expected.norm());
  // Many steps of noisy Riemannian gradient descent on the squared distance to a target.
  const Matrix target = random_sphere_points(8, kQ, 15);
  X = random_sphere_points(8, kQ, 16);
  double worst = 0;
  for (int step = 0; step < 3000; ++step) {
    Matrix to_target(X.rows(), X.cols());
    for (Index i = 0; i < X.rows(); ++i)
      to_target.row(i) = sphere::log_map(X.row(i).transpose(), target.row(i).transpose()).transpose();
    const Matrix noise = step < 2000 ? Matrix(0.05 * random_normal(X.rows(), X.cols(), 100 + step))
                                     : Matrix(Matrix::Zero(X.rows(), X.cols()));
    space.manifold().retract(X, 0.1 * to_target + noise);
    worst = std::max(worst, max_norm_deviation(X));
  }
  EXPECT_LT(worst, 1e-15);
  EXPECT_EQ(space.manifold().first_row_outside(X, 1e-15), -1);
  EXPECT_LT((X - target).norm(), 1e-10);
}

TEST(SphereLatentSpace, TransportKeepsLengthAndTangencyAndFollowsTheGeodesic) {
  const SphereLatentSpace space(kQ + 1);  // S^3: transport is not determined by tangency alone
  const Matrix from = random_sphere_points(6, kQ + 1, 17), to = random_sphere_points(6, kQ + 1, 18);
  const Matrix V = random_sphere_tangents(from, 19);
  Matrix moved = V;
  space.manifold().transport(from, to, moved);
  for (Index i = 0; i < 6; ++i) {
    EXPECT_NEAR(moved.row(i).dot(to.row(i)), 0.0, 1e-14 * V.row(i).norm());
    EXPECT_NEAR(moved.row(i).norm(), V.row(i).norm(), 1e-14 * V.row(i).norm());
    // The geodesic's own velocity is transported to its velocity at the end: Log_to(from) reversed.
    const Vector x = from.row(i).transpose(), y = to.row(i).transpose();
    Matrix velocity = sphere::log_map(x, y).transpose();
    space.manifold().transport(from.row(i), to.row(i), velocity);
    EXPECT_LT((velocity.transpose() + sphere::log_map(y, x)).norm(), 1e-13);
    // Inner products are kept (transport is an isometry between the tangent spaces).
    Matrix pair(2, kQ + 2);
    pair.row(0) = V.row(i);
    pair.row(1) = random_sphere_tangents(from.row(i), 20 + i);
    const double before = pair.row(0).dot(pair.row(1));
    Matrix f2(2, kQ + 2), t2(2, kQ + 2);
    f2 << from.row(i), from.row(i);
    t2 << to.row(i), to.row(i);
    space.manifold().transport(f2, t2, pair);
    EXPECT_NEAR(pair.row(0).dot(pair.row(1)), before, 1e-13);
  }
  // Transport to the same point is the identity.
  Matrix same = V;
  space.manifold().transport(from, from, same);
  EXPECT_LT((same - V).norm(), 1e-15 * V.norm());
}

}  // namespace
}  // namespace gplvm
