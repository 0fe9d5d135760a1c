// The hyperboloid's geometry: identities the maps must satisfy, reference values computed
// independently in double precision, and the numerically delicate regimes (nearby points, r = 0).
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <numbers>

#include "gplvm/manifold/lorentz_geometry.hpp"
#include "support/lorentz_points.hpp"

namespace gplvm {
namespace {

using namespace lorentz;
using testing::random_lorentz_points;
using testing::random_normal;
using testing::random_tangents;

Vector v2(double a, double b) {
  return Vector{{a, b}};
}

TEST(LorentzGeometry, ExpAndLogAreInversesAndKeepPointsOnTheSheet) {
  const Matrix X = random_lorentz_points(20, 3, 1, 1.5), Y = random_lorentz_points(20, 3, 2, 1.5);
  const Matrix T = random_tangents(X, 3);
  for (Index i = 0; i < X.rows(); ++i) {
    const Vector x = X.row(i).transpose(), y = Y.row(i).transpose(), v = T.row(i).transpose();
    const Vector e = exp_map(x, v);
    EXPECT_NEAR(minkowski_dot(e, e), -1.0, 1e-12 * e[0] * e[0]);
    EXPECT_NEAR(distance(x, e), std::sqrt(minkowski_dot(v, v)), 1e-12);
    EXPECT_LT((log_map(x, e) - v).norm(), 1e-11 * (1 + v.norm()));
    const Vector l = log_map(x, y);
    EXPECT_NEAR(minkowski_dot(x, l), 0.0, 1e-12 * x[0] * l.norm());
    EXPECT_NEAR(std::sqrt(minkowski_dot(l, l)), distance(x, y), 1e-11);
    EXPECT_LT((exp_map(x, l) - y).norm(), 1e-11 * y.norm());
  }
}

TEST(LorentzGeometry, ZeroStepsAndCoincidentPointsAreExact) {
  const Vector x = lift(v2(0.7, -1.3)), zero = Vector::Zero(3);
  EXPECT_EQ((exp_map(x, zero) - x).norm(), 0.0);
  EXPECT_EQ(distance(x, x), 0.0);
  EXPECT_EQ(log_map(x, x).norm(), 0.0);
  EXPECT_EQ((exp_at_origin(Vector::Zero(2)) - origin(2)).norm(), 0.0);
  EXPECT_EQ(sinhc(0.0), 1.0);
  EXPECT_DOUBLE_EQ(sinhc_slope_over_r(0.0), 1.0 / 3.0);
  // Both sides of the series switch agree with the closed forms.
  for (double r : {9.9e-4, 1.1e-3, 0.099, 0.101, 0.5}) {
    EXPECT_NEAR(sinhc(r), std::sinh(r) / r, 1e-15);
    EXPECT_NEAR(sinhc_slope_over_r(r), (r * std::cosh(r) - std::sinh(r)) / (r * r * r),
                1e-9 * (r < 0.05 ? 1 : 1e-4));
  }
}

TEST(LorentzGeometry, ParallelTransportIsAnIsometryBetweenTangentSpaces) {
  const Matrix A = random_lorentz_points(10, 2, 4, 1.2), B = random_lorentz_points(10, 2, 5, 1.2);
  const Matrix U = random_tangents(A, 6), W = random_tangents(A, 7);
  for (Index i = 0; i < A.rows(); ++i) {
    const Vector a = A.row(i).transpose(), b = B.row(i).transpose();
    const Vector u = U.row(i).transpose(), w = W.row(i).transpose();
    const Vector pu = parallel_transport(a, b, u), pw = parallel_transport(a, b, w);
    EXPECT_NEAR(minkowski_dot(pu, b), 0.0, 1e-12 * b[0] * pu.norm());
    EXPECT_NEAR(minkowski_dot(pu, pw), minkowski_dot(u, w), 1e-11 * u.norm() * w.norm() * b[0]);
    EXPECT_LT((parallel_transport(b, a, pu) - u).norm(), 1e-11 * u.norm() * a[0] * b[0]);
  }
  // The closed forms from and to the origin equal the general formula.
  const Vector mu = lift(v2(0.7, -1.3)), v = v2(0.3, -0.8);
  Vector at_origin(3);
  at_origin << 0.0, v;
  EXPECT_LT((transport_from_origin(mu, v) - parallel_transport(origin(2), mu, at_origin)).norm(), 1e-14);
  EXPECT_LT((transport_to_origin(mu, transport_from_origin(mu, v)) - v).norm(), 1e-14);
  // The transport with gamma = +<mu, nu>_L (the sign printed in Watanabe et al. 2025, eq. 14) leaves
  // the tangent space: <u, mu>_L = 5.69 there, so the sign matters.
  const double gamma_printed = minkowski_dot(mu, origin(2));
  const Vector wrong =
      at_origin +
      (minkowski_dot(mu - gamma_printed * origin(2), at_origin) / (gamma_printed + 1)) * (origin(2) + mu);
  EXPECT_NEAR(minkowski_dot(wrong, mu), 5.69, 0.01);
  EXPECT_NEAR(minkowski_dot(parallel_transport(origin(2), mu, at_origin), mu), 0.0, 1e-14);
}

TEST(LorentzGeometry, TangentProjectionIsAMinkowskiOrthogonalProjection) {
  const Vector mu = lift(v2(-0.4, 2.2));
  const Matrix G = random_normal(5, 3, 8);
  EXPECT_LT(project_tangent(mu, mu).norm(), 1e-14);
  for (Index i = 0; i < G.rows(); ++i) {
    const Vector p = project_tangent(mu, G.row(i).transpose());
    EXPECT_NEAR(minkowski_dot(p, mu), 0.0, 1e-13 * p.norm());
    EXPECT_LT((project_tangent(mu, p) - p).norm(), 1e-13 * p.norm());
  }
}

// a = lift(0.5, 1.2), b = lift(-2, 0.3): -<a, b>_L = 4.340283772901748, d = 2.1475436561996886.
TEST(LorentzGeometry, DistanceMatchesReferenceAndThePoincareBall) {
  const Vector a = lift(v2(0.5, 1.2)), b = lift(v2(-2.0, 0.3));
  EXPECT_NEAR(-minkowski_dot(a, b), 4.340283772901748, 1e-15 * 4.34);
  EXPECT_NEAR(distance(a, b), 2.1475436561996886, 1e-15 * 2.15);
  const Vector p = to_poincare(a), q = to_poincare(b);
  const double ball =
      std::acosh(1 + 2 * (p - q).squaredNorm() / ((1 - p.squaredNorm()) * (1 - q.squaredNorm())));
  EXPECT_NEAR(ball, 2.1475436561996886, 1e-14);
  EXPECT_LT((from_poincare(p) - a).norm(), 1e-14);
  EXPECT_LT((from_poincare(q) - b).norm(), 1e-14);
}

// Lemma 1 of Watanabe et al. 2025: near the origin the hyperbolic distance between lifted points
// approaches the Euclidean one; for x1 = (s, 0), x2 = (0, 0.7 s) the relative error is -8.36e-4,
// -8.39e-6, -8.39e-8 at s = 0.1, 0.01, 0.001. The last needs the chord form: arccosh(-<a, b>_L)
// has only ~8 correct digits of d there.
TEST(LorentzGeometry, NearbyDistancesKeepTheirDigits) {
  const double expected[] = {-8.36e-4, -8.39e-6, -8.39e-8};
  double s = 0.1;
  for (double e : expected) {
    const Vector x1 = v2(s, 0), x2 = v2(0, 0.7 * s);
    const double relative = distance(lift(x1), lift(x2)) / (x1 - x2).norm() - 1;
    EXPECT_NEAR(relative / e, 1.0, 0.002) << "s = " << s;
    s /= 10;
  }
}

// u = cosh d, u - 1 = 2 sinh^2(d / 2) and sinh d from product_gap / sinh_distance against the closed
// forms in the distance, from d = 1e-7 (where cosh d - 1 computed as such has no digits left) to 20.
TEST(LorentzGeometry, ProductGapAndSinhDistanceKeepTheirDigitsNearAndFar) {
  const Vector a = lift(v2(0.4, -1.1));
  const Vector direction = project_tangent(a, Vector{{0.2, 1.0, -0.6}});
  for (double d : {1e-7, 1e-3, 0.5, 3.0, 20.0}) {
    const Vector b = exp_map(a, (d / std::sqrt(minkowski_dot(direction, direction))) * direction);
    const double measured = distance(a, b);  // b's rounding moves d by ~1e-16 |b|
    const ProductGap gap = product_gap(a.data(), b.data(), 3);
    EXPECT_NEAR(gap.u / std::cosh(measured), 1.0, 1e-13) << d;
    EXPECT_NEAR(gap.u_minus_1 / (2.0 * std::pow(std::sinh(0.5 * measured), 2)), 1.0, 1e-12) << d;
    EXPECT_NEAR(sinh_distance(gap) / std::sinh(measured), 1.0, 1e-12) << d;
    EXPECT_NEAR(measured / d, 1.0, 1e-8) << d;
    EXPECT_NEAR(pairwise_distances(a.transpose(), b.transpose())(0, 0) / measured, 1.0, 1e-14) << d;
  }
}

// The vectorised arccosh(1 + m) against the scalar references of each regime: 2 asinh(sqrt(m / 2))
// (no cancellation at small m), std::acosh, and log(2 (1 + m)) where 1 + m squared overflows.
TEST(LorentzGeometry, VectorisedArccoshKeepsEveryRegimesDigits) {
  const double m[] = {0.0, 1e-300, 1e-16, 1e-9, 1e-3, 0.5, 1.0, 7.0, 1e3, 1e100, 1e149, 1e200, 1e300};
  Matrix M(1, std::size(m));
  for (Index e = 0; e < M.cols(); ++e) M(0, e) = m[e];
  const Matrix D = arccosh_one_plus(M);
  EXPECT_EQ(D(0, 0), 0.0);
  for (Index e = 1; e < M.cols(); ++e) {
    const double reference = m[e] < 1.0     ? 2.0 * std::asinh(std::sqrt(0.5 * m[e]))
                             : m[e] < 1e150 ? std::acosh(1.0 + m[e])
                                            : std::log(2.0 * (1.0 + m[e]));
    EXPECT_NEAR(D(0, e) / reference, 1.0, 1e-14) << "m = " << m[e];
  }
}

TEST(LorentzGeometry, OriginMapsAreTheGeneralOnesAtTheOrigin) {
  const Vector v = v2(0.9, -2.1);
  Vector at_origin(3);
  at_origin << 0.0, v;
  EXPECT_LT((exp_at_origin(v) - exp_map(origin(2), at_origin)).norm(), 1e-14 * exp_at_origin(v).norm());
  EXPECT_LT((log_at_origin(exp_at_origin(v)) - v).norm(), 1e-13);
  EXPECT_NEAR(distance(origin(2), exp_at_origin(v)), v.norm(), 1e-14);
}

// The row-block maps (what the optimiser calls for every point) against the point-by-point ones,
// at several dimensions, with steps from zero to far beyond the origin.
TEST(LorentzGeometry, RowBlockMapsAgreeWithThePointMaps) {
  for (const Index Q : {1, 2, 5}) {
    const Matrix X = random_lorentz_points(12, Q, 40 + Q, 1.5), Y = random_lorentz_points(12, Q, 50 + Q, 1.5);
    Matrix G = testing::random_normal(12, Q + 1, 60 + Q);
    G.row(3).setZero();
    G.row(7) *= 30.0;
    const Vector dots = lorentz::minkowski_dot_rows(X, G);
    Matrix riemannian = G, retracted = X, transported = testing::random_tangents(X, 70 + Q);
    const Matrix tangents = transported;
    lorentz::riemannian_gradient_rows(X, riemannian);
    lorentz::retract_rows(retracted, G);
    lorentz::parallel_transport_rows(X, Y, transported);
    for (Index n = 0; n < 12; ++n) {
      const Vector x = X.row(n).transpose(), g = G.row(n).transpose();
      EXPECT_NEAR(dots[n], lorentz::minkowski_dot(x, g), 1e-13 * (1.0 + std::abs(dots[n])));
      const Vector rg = lorentz::project_tangent(x, lorentz::flip_time(g));
      EXPECT_LT((riemannian.row(n).transpose() - rg).norm(), 1e-13 * (1.0 + rg.norm())) << n;
      Vector moved = lorentz::exp_map(x, lorentz::project_tangent(x, g));
      lorentz::reproject(moved);
      EXPECT_LT((retracted.row(n).transpose() - moved).norm(), 1e-12 * moved.norm()) << n;
      const Vector pt = lorentz::parallel_transport(x, Y.row(n).transpose(), tangents.row(n).transpose());
      EXPECT_LT((transported.row(n).transpose() - pt).norm(), 1e-12 * (1.0 + pt.norm())) << n;
    }
    EXPECT_EQ(lorentz::first_row_off_sheet(retracted, 1e-12), -1);  // relative to x_0^2: far points too
  }
}

// The block form over all pairs against the per-pair one, with pairs on both sides of the chord
// regime's bound (near, coincident and far points).
TEST(LorentzGeometry, PairwiseProductGapsAreThePerPairOnes) {
  for (const Index Q : {1, 3}) {
    Matrix X = random_lorentz_points(9, Q, 80 + Q, 2.0);
    const Matrix Z = random_lorentz_points(7, Q, 90 + Q, 2.0);
    X.row(2) = Z.row(4);
    Matrix Xs = X.topRows(2);
    Xs.row(0) = Z.row(1);
    Xs(0, 1) += 1e-9;
    lorentz::reproject_rows(Xs);
    X.topRows(2) = Xs;
    const lorentz::ProductGaps gaps = lorentz::pairwise_product_gaps(X, Z);
    const Matrix At = X.transpose(), Bt = Z.transpose();
    Index near = 0, far = 0;
    for (Index j = 0; j < Z.rows(); ++j)
      for (Index i = 0; i < X.rows(); ++i) {
        const lorentz::ProductGap g = lorentz::product_gap(At.col(i).data(), Bt.col(j).data(), Q + 1);
        EXPECT_NEAR(gaps.u(i, j), g.u, 1e-14 * g.u);
        EXPECT_NEAR(gaps.u_minus_1(i, j), g.u_minus_1, 1e-13 * g.u_minus_1) << i << " " << j;
        (g.u < lorentz::kChordRegime ? near : far) += 1;
      }
    EXPECT_GT(near, 2);
    EXPECT_GT(far, 2);
  }
}

TEST(LorentzGeometry, ReprojectionRestoresTheSheet) {
  Matrix X = random_lorentz_points(6, 4, 9, 2.0);
  X.col(0) *= 1 + 1e-6;
  EXPECT_GT(max_sheet_deviation(X), 1e-7);
  reproject_rows(X);
  EXPECT_LT(max_sheet_deviation(X), 1e-12);
}

// mu = lift(0.7, -1.3), standard deviations (0.5, 1.1), tangent sample v~ = (0.4, -0.9):
// log q(x) = -2.0514904612; prior at lift(0.5, 1.2): -2.606243867148507.
TEST(WrappedNormal, DensityMatchesReferenceValues) {
  const Vector mu = lift(v2(0.7, -1.3)), var = v2(0.25, 1.21), v = v2(0.4, -0.9);
  const Vector x = wrapped_normal_sample(mu, v);
  EXPECT_NEAR(minkowski_dot(x, x), -1.0, 1e-13);
  EXPECT_NEAR(wrapped_normal_log_density(mu, var, x), -2.0514904612, 1e-10);
  EXPECT_NEAR(standard_wrapped_normal_log_density(lift(v2(0.5, 1.2))), -2.606243867148507, 1e-14);
  // The sample's tangent vector at the origin is recovered from the point.
  EXPECT_LT((transport_to_origin(mu, log_map(mu, x)) - v).norm(), 1e-13);
}

// The density is the push-forward of N(0, diag(variance)) by v~ -> x~ (the sample's spatial
// coordinates), divided by the volume factor 1 / x_0 of the chart x~:
//   log q(x) = log N(v~) - log |det dx~/dv~| + log x_0,
// with the Jacobian by finite differences of the sampler, independent of the density's formula.
TEST(WrappedNormal, DensityIsTheChangeOfVariables) {
  for (const Index Q : {2, 3}) {
    const Vector mu = testing::random_lorentz_points(1, Q, 10 + Q, 0.8).row(0).transpose();
    const Vector var = (0.3 * random_normal(Q, 1, 20 + Q)).array().exp();
    const Vector v = 0.7 * random_normal(Q, 1, 30 + Q);
    const Vector x = wrapped_normal_sample(mu, v);
    Matrix J(Q, Q);
    const double h = 1e-6;
    for (Index j = 0; j < Q; ++j) {
      Vector up = v, down = v;
      up[j] += h;
      down[j] -= h;
      J.col(j) = (wrapped_normal_sample(mu, up) - wrapped_normal_sample(mu, down)).tail(Q) / (2 * h);
    }
    const double log_gauss = -0.5 * Q * std::log(2 * std::numbers::pi) - 0.5 * var.array().log().sum() -
                             0.5 * (v.array().square() / var.array()).sum();
    const double expected = log_gauss - std::log(std::abs(J.determinant())) + std::log(x[0]);
    EXPECT_NEAR(wrapped_normal_log_density(mu, var, x), expected, 1e-8) << "Q = " << Q;
  }
}

// The density integrates to 1 over H^2: in geodesic polar coordinates (r, theta) about the origin
// the volume element is sinh(r) dr dtheta (midpoint rule; the integrand is smooth and periodic).
TEST(WrappedNormal, IntegratesToOneOverThePlane) {
  const Vector mu = lift(v2(0.6, -0.4)), var = v2(0.3, 0.8);
  const int nr = 3000, nt = 256;
  const double r_max = 12.0, dr = r_max / nr, dt = 2 * std::numbers::pi / nt;
  double total = 0;
  for (int i = 0; i < nr; ++i) {
    const double r = (i + 0.5) * dr;
    for (int j = 0; j < nt; ++j) {
      const double t = (j + 0.5) * dt;
      const Vector x = exp_at_origin(v2(r * std::cos(t), r * std::sin(t)));
      total += std::exp(wrapped_normal_log_density(mu, var, x)) * std::sinh(r) * dr * dt;
    }
  }
  EXPECT_NEAR(total, 1.0, 1e-6);
}

// The wrapped normal's row-block maps give every row the bits of the same row alone (the per-point
// forms are one-row blocks) wherever it sits in the block, in reverse order too: what the
// rank-count reproducibility of the Bayesian models relies on. Adjoints add to what is there.
TEST(WrappedNormal, RowBlockMapsGiveEachRowItsOwnBitsAnywhereInTheBlock) {
  for (const Index Q : {1, 2, 5}) {
    constexpr Index n = 9;
    const Matrix Mu = random_lorentz_points(n, Q, 80 + Q, 1.2);
    const Matrix V = 0.6 * random_normal(n, Q, 90 + Q), dX = random_normal(n, Q + 1, 100 + Q);
    const Matrix variance = (0.4 * random_normal(n, Q, 110 + Q)).array().exp().matrix();
    const Matrix start_mu = random_normal(n, Q + 1, 120 + Q), start_q = random_normal(n, Q, 130 + Q);
    Matrix X(n, Q + 1);
    wrapped_normal_sample_rows(Mu, V, X);
    Matrix d_mu = start_mu, d_v = start_q, d_mu_q = start_mu, d_var = start_q, d_x = start_mu;
    wrapped_normal_sample_backward_rows(Mu, V, dX, d_mu, d_v);
    Vector log_q(n), log_p(n);
    wrapped_normal_log_density_rows(Mu, variance, X, log_q);
    standard_wrapped_normal_log_density_rows(X, log_p);
    wrapped_normal_log_density_backward_rows(Mu, variance, X, 0.7, d_mu_q, d_var, d_x);
    standard_wrapped_normal_log_density_backward_rows(X, -0.7, d_x);
    // The same rows in reverse order.
    const Eigen::PermutationMatrix<Eigen::Dynamic> reverse(Eigen::VectorXi::LinSpaced(n, n - 1, 0));
    Matrix X_rev(n, Q + 1), d_x_rev = reverse * start_mu;
    wrapped_normal_sample_rows(reverse * Mu, reverse * V, X_rev);
    Vector log_q_rev(n);
    wrapped_normal_log_density_rows(reverse * Mu, reverse * variance, X_rev, log_q_rev);
    standard_wrapped_normal_log_density_backward_rows(X_rev, -0.7, d_x_rev);
    for (Index r = 0; r < n; ++r) {
      SCOPED_TRACE("Q = " + std::to_string(Q) + ", row " + std::to_string(r));
      const Vector mu = Mu.row(r).transpose(), v = V.row(r).transpose(), var = variance.row(r).transpose();
      const Vector x = wrapped_normal_sample(mu, v);
      EXPECT_TRUE(X.row(r) == x.transpose());
      EXPECT_TRUE(X_rev.row(n - 1 - r) == x.transpose());
      Vector dm = start_mu.row(r).transpose(), dv = start_q.row(r).transpose();
      wrapped_normal_sample_backward(mu, v, dX.row(r).transpose(), dm, dv);
      EXPECT_TRUE(d_mu.row(r) == dm.transpose());
      EXPECT_TRUE(d_v.row(r) == dv.transpose());
      EXPECT_EQ(log_q[r], wrapped_normal_log_density(mu, var, x));
      EXPECT_EQ(log_q_rev[n - 1 - r], log_q[r]);
      EXPECT_EQ(log_p[r], standard_wrapped_normal_log_density(x));
      Vector dm_q = start_mu.row(r).transpose(), dvar = start_q.row(r).transpose(),
             dx = start_mu.row(r).transpose();
      wrapped_normal_log_density_backward(mu, var, x, 0.7, dm_q, dvar, dx);
      EXPECT_TRUE(d_mu_q.row(r) == dm_q.transpose());
      EXPECT_TRUE(d_var.row(r) == dvar.transpose());
      standard_wrapped_normal_log_density_backward(x, -0.7, dx);
      EXPECT_TRUE(d_x.row(r) == dx.transpose());
      Vector dx_standard = start_mu.row(r).transpose();
      standard_wrapped_normal_log_density_backward(x, -0.7, dx_standard);
      EXPECT_TRUE(d_x_rev.row(n - 1 - r) == dx_standard.transpose());
    }
    // Adjoints add: the start is still there (the backward of a zero start differs by it).
    Matrix d_mu_zero = Matrix::Zero(n, Q + 1), d_v_zero = Matrix::Zero(n, Q);
    wrapped_normal_sample_backward_rows(Mu, V, dX, d_mu_zero, d_v_zero);
    EXPECT_LT((d_mu - start_mu - d_mu_zero).norm(), 1e-12 * (1.0 + d_mu.norm()));
    EXPECT_LT((d_v - start_q - d_v_zero).norm(), 1e-12 * (1.0 + d_v.norm()));
  }
}

// The control variate's slope is the derivative of log p (the standard wrapped normal at the
// origin) along the wrapped normal's sample curve t -> sample(mu, t v~) at t = 0, by central
// differences of the density's own formula; its adjoint against differences along exp-map curves of
// mu and in v~, near the origin (the series regimes) and far from it.
TEST(WrappedNormal, PriorSlopeIsTheDerivativeAlongTheSampleCurveWithItsAdjoint) {
  for (const Index Q : {1, 2, 3}) {
    for (const double spread : {0.02, 0.3, 2.5}) {
      SCOPED_TRACE("Q = " + std::to_string(Q) + ", spread " + std::to_string(spread));
      constexpr Index n = 4;
      const Matrix Mu = random_lorentz_points(n, Q, 140 + Q, spread), V = 0.7 * random_normal(n, Q, 150 + Q);
      Vector slope(n);
      standard_wrapped_normal_log_density_slope_rows(Mu, V, slope);
      const double h = 1e-5;
      for (Index r = 0; r < n; ++r) {
        const Vector mu = Mu.row(r).transpose(), v = V.row(r).transpose();
        const double along = (standard_wrapped_normal_log_density(wrapped_normal_sample(mu, h * v)) -
                              standard_wrapped_normal_log_density(wrapped_normal_sample(mu, -h * v))) /
                             (2 * h);
        EXPECT_LT(testing::relative_error(slope[r], along), 1e-7) << r;
      }
      const Matrix Xi = random_tangents(Mu, 160 + Q), dV = random_normal(n, Q, 170 + Q);
      const double scale = 0.8;
      Matrix d_mu = Matrix::Zero(n, Q + 1), d_v = Matrix::Zero(n, Q);
      standard_wrapped_normal_log_density_slope_backward_rows(Mu, V, scale, d_mu, d_v);
      const auto total = [&](const Matrix& M, const Matrix& W) {
        Vector out(n);
        standard_wrapped_normal_log_density_slope_rows(M, W, out);
        return scale * out.sum();
      };
      const double along_mu = testing::derivative_along([&](const Matrix& M) { return total(M, V); }, Mu, Xi);
      EXPECT_LT(testing::relative_error(d_mu.cwiseProduct(Xi).sum(), along_mu), 1e-6) << along_mu;
      const double along_v = (total(Mu, V + h * dV) - total(Mu, V - h * dV)) / (2 * h);
      EXPECT_LT(testing::relative_error(d_v.cwiseProduct(dV).sum(), along_v), 1e-6) << along_v;
    }
  }
}

}  // namespace
}  // namespace gplvm
