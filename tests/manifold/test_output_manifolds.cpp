// The output manifolds (sphere, Kendall shape space, SPD with the log-Euclidean and affine-invariant
// metrics): identities every Riemannian exp / log / distance / basis must satisfy, checked on
// random samples, and reference values from independent closed forms (arccos, the complex inner
// product of pre-shapes, a brute-force rotation search) and SciPy's logm / expm / sqrtm.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <memory>
#include <numbers>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/kendall_shape_space.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/manifold/spd_affine.hpp"
#include "gplvm/manifold/spd_log_euclidean.hpp"
#include "gplvm/manifold/spd_matrix_functions.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"
#include "gplvm/manifold/tangent_chart.hpp"
#include "support/python_reference.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::python_reference;
using testing::random_normal;

// A cluster of n points around one point (concentrated enough for a unique Fréchet mean).
RowMatrix sample_points(const Manifold& m, Index n, std::uint64_t seed) {
  const Matrix z = random_normal(n, m.ambient_dim(), seed);
  RowMatrix rows(n, m.ambient_dim());
  if (m.name() == "sphere") {
    for (Index i = 0; i < n; ++i) {
      Vector p = 0.5 * z.row(i).transpose();
      p[0] += 1.0;
      rows.row(i) = p.normalized().transpose();
    }
  } else if (m.name() == "kendall") {
    const Index k = m.ambient_dim() / 2;
    for (Index i = 0; i < n; ++i) {
      // A regular polygon with noisy landmarks, rotated, scaled and moved at random.
      const double angle = 2.0 * z(i, 0), scale = std::exp(0.5 * z(i, 1));
      for (Index j = 0; j < k; ++j) {
        const double t = 2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(k);
        const double x = std::cos(t) + 0.15 * z(i, 2 * j), y = 0.7 * std::sin(t) + 0.15 * z(i, 2 * j + 1);
        rows(i, 2 * j) = scale * (std::cos(angle) * x - std::sin(angle) * y) + 3.0;
        rows(i, 2 * j + 1) = scale * (std::sin(angle) * x + std::cos(angle) * y) - 1.0;
      }
    }
  } else {
    const Index order = spd::matrix_order(m.ambient_dim(), "spd");
    for (Index i = 0; i < n; ++i) {
      const Matrix a = spd::as_matrix(z.row(i).transpose(), order);
      Matrix s = spd::exp(0.6 * spd::symmetric_part(a));
      s(0, 0) *= 4.0;  // anisotropic, so that the metrics differ
      rows.row(i) = spd::as_flat(spd::symmetric_part(s)).transpose();
    }
  }
  return rows;
}

// A tangent vector at p of norm `length`, in a random direction.
Vector random_tangent(const Manifold& m, const Vector& p, double length, std::uint64_t seed) {
  const Vector c = random_normal(m.intrinsic_dim(), 1, seed).col(0);
  return m.from_coordinates(m.tangent_basis(p), c * (length / c.norm()));
}

struct Case {
  std::string name;
  Index data_dim;
  double max_step;  // below the injectivity radius (pi on S^n, pi/2 on shape space)
};

class OutputManifolds : public ::testing::TestWithParam<Case> {
 protected:
  std::unique_ptr<Manifold> m = make_output_manifold(GetParam().name, GetParam().data_dim);
};

TEST_P(OutputManifolds, ExpAndLogAreInversePairs) {
  const RowMatrix P = sample_points(*m, 12, 1), Q = sample_points(*m, 12, 2);
  for (Index i = 0; i < P.rows(); ++i) {
    const Vector p = m->canonical(P.row(i).transpose()), q = Q.row(i).transpose();
    const Vector v = random_tangent(*m, p, GetParam().max_step * (0.1 + 0.08 * i), 10 + i);
    const Vector e = m->exp(p, v);
    EXPECT_EQ(m->off_manifold_reason(e, 1e-12), "");
    EXPECT_LT((m->log(p, e) - v).norm(), 1e-10 * (1 + v.norm())) << i;
    EXPECT_NEAR(m->distance(p, e), m->norm(p, v), 1e-10 * (1 + m->norm(p, v))) << i;
    // Exp_p(Log_p q) is q (as a point: Kendall returns the representative aligned to p).
    EXPECT_LT(m->distance(m->exp(p, m->log(p, q)), q), 1e-9) << i;
  }
  const Vector p = m->canonical(P.row(0).transpose());
  EXPECT_LT(m->log(p, p).norm(), 1e-12);
  EXPECT_LT(m->distance(m->exp(p, Vector::Zero(m->ambient_dim())), p), 1e-12);
}

TEST_P(OutputManifolds, DistanceIsAMetricAndTheNormOfTheLog) {
  const RowMatrix A = sample_points(*m, 15, 3), B = sample_points(*m, 15, 4), C = sample_points(*m, 15, 5);
  for (Index i = 0; i < A.rows(); ++i) {
    const Vector a = A.row(i).transpose(), b = B.row(i).transpose(), c = C.row(i).transpose();
    const double ab = m->distance(a, b);
    EXPECT_NEAR(ab, m->distance(b, a), 1e-12 * (1 + ab));
    EXPECT_LE(ab, m->distance(a, c) + m->distance(c, b) + 1e-12);
    EXPECT_NEAR(m->norm(m->canonical(a), m->log(a, b)), ab, 1e-10 * (1 + ab));
    EXPECT_NEAR(m->distance(a, a), 0.0, 1e-7);
  }
}

TEST_P(OutputManifolds, TangentBasisIsOrthonormalAndCoordinatesRoundTrip) {
  const RowMatrix P = sample_points(*m, 4, 6), Q = sample_points(*m, 4, 7);
  for (Index i = 0; i < P.rows(); ++i) {
    const Vector p = m->canonical(P.row(i).transpose());
    const Matrix basis = m->tangent_basis(p);
    ASSERT_EQ(basis.rows(), m->ambient_dim());
    ASSERT_EQ(basis.cols(), m->intrinsic_dim());
    for (Index a = 0; a < basis.cols(); ++a)
      for (Index b = 0; b < basis.cols(); ++b)
        EXPECT_NEAR(m->inner(p, basis.col(a), basis.col(b)), a == b ? 1.0 : 0.0, 1e-11);
    // Log_p(q) lies in the span of the basis: coordinates and back reproduce it.
    const Vector v = m->log(p, Q.row(i).transpose());
    const Vector c = m->to_coordinates(p, basis, v);
    EXPECT_LT((m->from_coordinates(basis, c) - v).norm(), 1e-11 * (1 + v.norm()));
    EXPECT_NEAR(c.norm(), m->norm(p, v), 1e-11 * (1 + c.norm()));
  }
}

TEST_P(OutputManifolds, FrechetMeanIsStationary) {
  const RowMatrix P = sample_points(*m, 40, 8);
  const FrechetMean mean = m->frechet_mean(P);
  Vector sum = Vector::Zero(m->ambient_dim());
  for (Index i = 0; i < P.rows(); ++i) sum += m->log(mean.point, P.row(i).transpose());
  EXPECT_LT(m->norm(mean.point, sum) / P.rows(), 1e-10);
  EXPECT_EQ(m->off_manifold_reason(mean.point, 1e-12), "");
  // The mean minimises the sum of squared distances: a step away increases it.
  const auto cost = [&](const Vector& x) {
    double s = 0;
    for (Index i = 0; i < P.rows(); ++i) s += std::pow(m->distance(x, P.row(i).transpose()), 2);
    return s;
  };
  const Vector away = m->exp(mean.point, random_tangent(*m, mean.point, 0.05, 9));
  EXPECT_GT(cost(away), cost(mean.point));
}

TEST_P(OutputManifolds, TangentChartMapsPointsToCoordinatesAndBack) {
  const RowMatrix P = sample_points(*m, 20, 11);
  const TangentChart chart = TangentChart::at_frechet_mean(
      std::shared_ptr<const Manifold>(make_output_manifold(m->name(), m->ambient_dim())), P);
  const RowMatrix coordinates = chart.coordinates(P);
  ASSERT_EQ(coordinates.cols(), m->intrinsic_dim());
  EXPECT_LT(coordinates.colwise().mean().norm(), 1e-10);  // the mean is where the logs sum to 0
  const RowMatrix back = chart.points(coordinates);
  for (Index i = 0; i < P.rows(); ++i) {
    EXPECT_LT(m->distance(back.row(i).transpose(), P.row(i).transpose()), 1e-9);
    EXPECT_NEAR(coordinates.row(i).norm(), m->distance(chart.basepoint, P.row(i).transpose()), 1e-10);
  }
}

INSTANTIATE_TEST_SUITE_P(Manifolds, OutputManifolds,
                         ::testing::Values(Case{"sphere", 3, 2.5}, Case{"sphere", 6, 2.5},
                                           Case{"kendall", 10, 1.2}, Case{"spd_log_euclidean", 9, 3.0},
                                           Case{"spd_affine", 9, 3.0}, Case{"spd_affine", 16, 3.0}),
                         [](const auto& info) {
                           return info.param.name + "_" + std::to_string(info.param.data_dim);
                         });

TEST(SphereManifold, MatchesArccosAndTheGreatCircle) {
  const SphereManifold s(3);
  const RowMatrix P = sample_points(s, 10, 20), Q = sample_points(s, 10, 21);
  for (Index i = 0; i < P.rows(); ++i) {
    const Vector p = P.row(i).transpose(), q = Q.row(i).transpose();
    EXPECT_NEAR(s.distance(p, q), std::acos(p.dot(q)), 1e-12);
    EXPECT_NEAR(s.log(p, q).dot(p), 0.0, 1e-14);
  }
  // From the north pole along x by t: (sin t, 0, cos t).
  const Vector pole{{0.0, 0.0, 1.0}};
  for (double t : {1e-9, 0.3, 2.0, 3.1}) {
    const Vector e = s.exp(pole, Vector{{t, 0.0, 0.0}});
    EXPECT_LT((e - Vector{{std::sin(t), 0.0, std::cos(t)}}).norm(), 1e-15);
    EXPECT_NEAR(s.log(pole, e)[0], t, 1e-15 + 1e-12 * t);
  }
  // The antipode is on the cut locus: a vector of norm pi, not NaN.
  const Vector l = s.log(pole, -pole);
  EXPECT_NEAR(l.norm(), std::numbers::pi, 1e-15);
  EXPECT_NEAR(l.dot(pole), 0.0, 1e-15);
}

TEST(SphereManifold, FrechetMeanOfASymmetricConfigurationIsItsCentre) {
  const SphereManifold s(3);
  RowMatrix P(4, 3);
  const double e = 0.4;
  P << std::sin(e), 0, std::cos(e), -std::sin(e), 0, std::cos(e), 0, std::sin(e), std::cos(e), 0,
      -std::sin(e), std::cos(e);
  const FrechetMean mean = s.frechet_mean(P);
  EXPECT_LT((mean.point - Vector{{0.0, 0.0, 1.0}}).norm(), 1e-12);
}

TEST(SphereManifold, KarcherIterationThatDoesNotConvergeIsANumericalError) {
  const SphereManifold s(3);
  const RowMatrix P = sample_points(s, 30, 22);
  EXPECT_THROW(s.frechet_mean(P, {1e-10, 0}), NumericalError);
}

TEST(SphereManifold, MembershipNamesTheNormAndTheTolerance) {
  const SphereManifold s(3);
  EXPECT_EQ(s.off_manifold_reason(Vector{{0.0, 0.6, 0.8}}, 1e-12), "");
  const std::string why = s.off_manifold_reason(Vector{{0.0, 0.6, 0.8 + 1e-6}}, 1e-8);
  EXPECT_NE(why.find("norm"), std::string::npos) << why;
  EXPECT_NE(why.find("1e-08"), std::string::npos) << why;
  EXPECT_EQ(s.off_manifold_reason(Vector{{0.0, 0.6, 0.8 + 1e-6}}, 1e-5), "");
}

// Independent Kendall distance: arccos of the modulus of the complex inner product of pre-shapes.
double kendall_reference(const Vector& a, const Vector& b) {
  const Index k = a.size() / 2;
  Eigen::VectorXcd z(k), w(k);
  for (Index j = 0; j < k; ++j) {
    z[j] = {a[2 * j], a[2 * j + 1]};
    w[j] = {b[2 * j], b[2 * j + 1]};
  }
  z.array() -= z.mean();
  w.array() -= w.mean();
  return std::acos(std::min(1.0, std::abs(z.dot(w)) / (z.norm() * w.norm())));
}

TEST(KendallShapeSpace, DistanceIsTheComplexInnerProductAndTheBestRotation) {
  const KendallShapeSpace s(6);
  const RowMatrix P = sample_points(s, 8, 30), Q = sample_points(s, 8, 31);
  for (Index i = 0; i < P.rows(); ++i) {
    const Vector p = P.row(i).transpose(), q = Q.row(i).transpose();
    EXPECT_NEAR(s.distance(p, q), kendall_reference(p, q), 1e-10);
    // Partial Procrustes: the chord to the best rotation, by brute force over the angle.
    const Vector mu = s.canonical(p), w = s.canonical(q);
    double best = 1e300;
    for (int step = 0; step < 200000; ++step) {
      const double t = 2.0 * std::numbers::pi * step / 200000.0;
      double d2 = 0;
      for (Index j = 0; j < 6; ++j) {
        const double x = std::cos(t) * w[2 * j] - std::sin(t) * w[2 * j + 1];
        const double y = std::sin(t) * w[2 * j] + std::cos(t) * w[2 * j + 1];
        d2 += std::pow(mu[2 * j] - x, 2) + std::pow(mu[2 * j + 1] - y, 2);
      }
      best = std::min(best, d2);
    }
    EXPECT_NEAR(std::sqrt(best), (mu - s.align(p, q)).norm(), 1e-8);
    EXPECT_NEAR((mu - s.align(p, q)).norm(), 2.0 * std::sin(s.distance(p, q) / 2.0), 1e-12);
  }
}

TEST(KendallShapeSpace, IsInvariantToSimilaritiesAndLogIsHorizontal) {
  const KendallShapeSpace s(5);
  const RowMatrix P = sample_points(s, 6, 32), Q = sample_points(s, 6, 33);
  const auto similar = [](const Vector& q, double angle, double scale, double dx, double dy) {
    Vector out(q.size());
    for (Index j = 0; j < q.size() / 2; ++j) {
      out[2 * j] = scale * (std::cos(angle) * q[2 * j] - std::sin(angle) * q[2 * j + 1]) + dx;
      out[2 * j + 1] = scale * (std::sin(angle) * q[2 * j] + std::cos(angle) * q[2 * j + 1]) + dy;
    }
    return out;
  };
  for (Index i = 0; i < P.rows(); ++i) {
    const Vector p = s.canonical(P.row(i).transpose()), q = Q.row(i).transpose();
    const Vector moved = similar(q, 0.3 + i, 2.5, -4.0, 7.0);
    EXPECT_NEAR(s.distance(p, moved), s.distance(p, q), 1e-12);
    EXPECT_NEAR(s.distance(similar(p, -1.1, 0.2, 1.0, 1.0), q), s.distance(p, q), 1e-12);
    EXPECT_LT((s.log(p, moved) - s.log(p, q)).norm(), 1e-12);
    const Vector v = s.log(p, q);
    std::complex<double> with_p = 0, sum = 0;
    for (Index j = 0; j < 5; ++j) {
      const std::complex<double> vj{v[2 * j], v[2 * j + 1]}, pj{p[2 * j], p[2 * j + 1]};
      sum += vj;
      with_p += vj * std::conj(pj);
    }
    EXPECT_LT(std::abs(sum), 1e-13);
    EXPECT_LT(std::abs(with_p), 1e-13);
  }
  const std::string why = s.off_manifold_reason(Vector::Constant(10, 2.0), 1e-9);
  EXPECT_NE(why.find("degenerate"), std::string::npos) << why;
}

TEST(SpdManifolds, MembershipRejectsAsymmetricAndIndefiniteMatrices) {
  const SpdLogEuclidean s(2);
  EXPECT_EQ(s.off_manifold_reason(Vector{{2.0, 0.5, 0.5, 1.0}}, 1e-10), "");
  EXPECT_NE(s.off_manifold_reason(Vector{{2.0, 0.5, 0.4, 1.0}}, 1e-10).find("not symmetric"),
            std::string::npos);
  EXPECT_NE(s.off_manifold_reason(Vector{{1.0, 2.0, 2.0, 1.0}}, 1e-10).find("not positive definite"),
            std::string::npos);
}

TEST(SpdManifolds, MatchSciPyMatrixFunctions) {
  const SpdLogEuclidean le(3);
  const SpdAffine ai(3);
  const RowMatrix P = sample_points(le, 3, 40);
  const Vector a = P.row(0).transpose(), b = P.row(1).transpose(), c = P.row(2).transpose();
  const Matrix V = spd::symmetric_part(random_normal(3, 3, 41));
  const std::vector<double> ref = python_reference(
      "from scipy.linalg import logm, expm, sqrtm\n"
      "A, B, C, V = M\n"
      "real = lambda x: np.real(x)\n"
      "print(np.linalg.norm(real(logm(A)) - real(logm(B))))\n"
      "for x in real(expm(real(logm(A)) + V)).ravel(): print(x)\n"
      "for x in real(expm((real(logm(A)) + real(logm(B)) + real(logm(C))) / 3)).ravel(): print(x)\n"
      "Ai = np.linalg.inv(real(sqrtm(A))); Ar = real(sqrtm(A))\n"
      "print(np.linalg.norm(real(logm(Ai @ B @ Ai))))\n"
      "for x in (Ar @ real(expm(Ai @ V @ Ai)) @ Ar).ravel(): print(x)\n"
      "for x in (Ar @ real(sqrtm(Ai @ B @ Ai)) @ Ar).ravel(): print(x)\n",
      {spd::as_matrix(a, 3), spd::as_matrix(b, 3), spd::as_matrix(c, 3), V});
  if (ref.size() != 1 + 9 + 9 + 1 + 9 + 9) GTEST_SKIP() << "python3 with numpy and scipy is not available";
  const auto block = [&](std::size_t at) { return Eigen::Map<const Vector>(ref.data() + at, 9); };
  const Vector v = spd::as_flat(V);
  EXPECT_NEAR(le.distance(a, b), ref[0], 1e-11 * ref[0]);
  EXPECT_LT((le.exp(a, v) - block(1)).norm(), 1e-10 * block(1).norm());
  EXPECT_LT((le.frechet_mean(P).point - block(10)).norm(), 1e-10 * block(10).norm());
  EXPECT_NEAR(ai.distance(a, b), ref[19], 1e-11 * ref[19]);
  EXPECT_LT((ai.exp(a, v) - block(20)).norm(), 1e-10 * block(20).norm());
  // The affine-invariant mean of two points is their geodesic midpoint A^1/2 (A^-1/2 B A^-1/2)^1/2 A^1/2.
  RowMatrix two(2, 9);
  two.row(0) = a.transpose();
  two.row(1) = b.transpose();
  EXPECT_LT((ai.frechet_mean(two, {1e-13, 100}).point - block(29)).norm(), 1e-10 * block(29).norm());
}

TEST(SpdManifolds, LogEuclideanCoordinatesAreTheWeightedHalfVectorisation) {
  const SpdLogEuclidean le(3);
  const RowMatrix P = sample_points(le, 2, 42);
  const Vector mu = P.row(0).transpose(), q = P.row(1).transpose();
  const Matrix L = spd::log(spd::as_matrix(q, 3)) - spd::log(spd::as_matrix(mu, 3));
  const Vector c = le.to_coordinates(mu, le.tangent_basis(mu), le.log(mu, q));
  const Vector expected{{L(0, 0), L(1, 1), L(2, 2), std::sqrt(2.0) * L(0, 1), std::sqrt(2.0) * L(0, 2),
                         std::sqrt(2.0) * L(1, 2)}};
  EXPECT_LT((c - expected).norm(), 1e-13);
}

TEST(ManifoldProjection, SphereNormalisesAndIsTheNearestPoint) {
  const SphereManifold s(3);
  const Matrix y = random_normal(20, 3, 50);
  const RowMatrix others = sample_points(s, 50, 51);
  for (Index i = 0; i < y.rows(); ++i) {
    const Vector yi = y.row(i).transpose(), p = s.project(yi);
    EXPECT_NEAR(p.norm(), 1.0, 1e-15);
    EXPECT_NEAR(p.dot(yi), yi.norm(), 1e-12 * yi.norm());  // the same direction
    for (Index j = 0; j < others.rows(); ++j)
      EXPECT_LE((p - yi).norm(), (others.row(j).transpose() - yi).norm() + 1e-14);
  }
  EXPECT_THROW(s.project(Vector::Zero(3)), NumericalError);
}

TEST(ManifoldProjection, SpdClipsEigenvaluesLikeNumPy) {
  const SpdLogEuclidean le(4);
  const SpdAffine ai(4);
  const Matrix a = random_normal(4, 4, 52);  // not symmetric, indefinite
  const std::vector<double> ref = python_reference(
      "A = M[0]; S = (A + A.T) / 2\n"
      "w, U = np.linalg.eigh(S)\n"
      "w = np.maximum(w, 1e-6 * np.abs(w).max())\n"
      "for x in (U @ np.diag(w) @ U.T).ravel(): print(x)\n",
      {a});
  if (ref.size() != 16) GTEST_SKIP() << "python3 with numpy is not available";
  const Eigen::Map<const Vector> expected(ref.data(), 16);
  for (const Manifold* m : {static_cast<const Manifold*>(&le), static_cast<const Manifold*>(&ai)}) {
    const Vector p = m->project(spd::as_flat(a));
    EXPECT_LT((p - expected).norm(), 1e-12 * expected.norm()) << m->name();
    EXPECT_EQ(m->off_manifold_reason(p, 1e-8), "") << m->name();
  }
  // An SPD matrix is its own projection.
  const Vector q = sample_points(le, 1, 53).row(0).transpose();
  EXPECT_LT((le.project(q) - q).norm(), 1e-12 * q.norm());
  EXPECT_THROW(le.project(Vector::Zero(16)), NumericalError);
}

TEST(ManifoldProjection, KendallGivesThePreShapeOfTheSameShape) {
  const KendallShapeSpace k(5);
  const RowMatrix shapes = sample_points(k, 10, 54);
  for (Index i = 0; i < shapes.rows(); ++i) {
    const Vector y = shapes.row(i).transpose(), p = k.project(y);
    EXPECT_NEAR(p.norm(), 1.0, 1e-14);
    EXPECT_NEAR(p(Eigen::seq(0, Eigen::last, 2)).sum(), 0.0, 1e-14);
    EXPECT_NEAR(p(Eigen::seq(1, Eigen::last, 2)).sum(), 0.0, 1e-14);
    EXPECT_NEAR(k.distance(p, y), 0.0, 1e-7);  // arccos near 1: accurate to sqrt(eps)
    EXPECT_NEAR(k.ambient_distance(p, y), 0.0, 1e-14);
  }
  EXPECT_THROW(k.project(Vector::Constant(10, 2.0)), NumericalError);
}

TEST(AmbientDistance, IsTheChordOfTheGeodesicDistanceOrTheFrobeniusNorm) {
  const SphereManifold s(3);
  const KendallShapeSpace k(6);
  const SpdLogEuclidean le(3);
  for (const Manifold* m : {static_cast<const Manifold*>(&s), static_cast<const Manifold*>(&k)}) {
    const RowMatrix p = sample_points(*m, 6, 55);
    for (Index i = 1; i < p.rows(); ++i) {
      const Vector a = p.row(0).transpose(), b = p.row(i).transpose();
      // On a unit sphere (of points or of pre-shapes after alignment) the chord is 2 sin(d / 2).
      EXPECT_NEAR(m->ambient_distance(a, b), 2.0 * std::sin(m->distance(a, b) / 2.0), 1e-12) << m->name();
    }
  }
  const RowMatrix P = sample_points(le, 2, 56);
  EXPECT_NEAR(le.ambient_distance(P.row(0).transpose(), P.row(1).transpose()),
              (spd::as_matrix(P.row(0).transpose(), 3) - spd::as_matrix(P.row(1).transpose(), 3)).norm(),
              1e-13);
}

TEST(OutputManifoldFactory, NamesTheKeyForUnknownSpacesAndWrongWidths) {
  try {
    make_output_manifold("torus", 3);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "model.output_space");
    EXPECT_EQ(e.context().value, "torus");
  }
  EXPECT_THROW(make_output_manifold("kendall", 7), InputError);
  EXPECT_THROW(make_output_manifold("spd_affine", 8), InputError);
  EXPECT_THROW(make_output_manifold("sphere", 1), InputError);
}

}  // namespace
}  // namespace gplvm
