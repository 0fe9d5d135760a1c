// The Manifold interface on every implementation (euclidean, lorentz, sphere, kendall, spd_affine,
// spd_log_euclidean): exp and log are inverse and distance is |log|, parallel transport is an
// isometry onto the destination's tangent space, the tangent basis is orthonormal in the metric,
// the Riemannian gradient matches finite differences along exp-map curves, the row-block maps are
// the per-point ones, and the Fréchet mean has its closed form where there is one.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/manifold/kendall_shape_space.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/manifold/lorentz_manifold.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/manifold/spd_affine.hpp"
#include "gplvm/manifold/spd_log_euclidean.hpp"
#include "gplvm/manifold/spd_matrix_functions.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::random_normal;

struct Case {
  std::string label;
  std::function<std::unique_ptr<Manifold>()> make;
  // A point of the manifold from a standard normal ambient vector.
  std::function<Vector(const Manifold&, const Vector&)> point;
  double max_step;  // below the injectivity radius
};

Vector spd_point(const Manifold& m, const Vector& z) {
  const Index n = spd::matrix_order(m.ambient_dim(), "spd");
  Matrix s = spd::exp(0.5 * spd::symmetric_part(spd::as_matrix(z, n)));
  s(0, 0) *= 3.0;  // anisotropic, so that the metrics differ
  return spd::as_flat(spd::symmetric_part(s));
}

std::vector<Case> cases() {
  return {
      {"euclidean", [] { return std::make_unique<EuclideanManifold>(3); },
       [](const Manifold&, const Vector& z) -> Vector { return z; }, 2.0},
      {"lorentz", [] { return std::make_unique<LorentzManifold>(3); },
       [](const Manifold&, const Vector& z) -> Vector { return lorentz::lift(0.7 * z.tail(3)); }, 1.5},
      {"sphere", [] { return std::make_unique<SphereManifold>(4); },
       [](const Manifold&, const Vector& z) -> Vector { return z.normalized(); }, 1.2},
      {"kendall", [] { return std::make_unique<KendallShapeSpace>(5); },
       [](const Manifold& m, const Vector& z) -> Vector { return m.project(z); }, 0.6},
      {"spd_affine", [] { return std::make_unique<SpdAffine>(3); }, spd_point, 0.8},
      {"spd_log_euclidean", [] { return std::make_unique<SpdLogEuclidean>(3); }, spd_point, 0.8},
  };
}

class ManifoldLayer : public ::testing::TestWithParam<Case> {
 protected:
  std::unique_ptr<Manifold> m = GetParam().make();

  Vector point(std::uint64_t seed) const {
    return m->canonical(GetParam().point(*m, random_normal(m->ambient_dim(), 1, seed).col(0)));
  }
  // A tangent vector at p of the given length in the metric, in a random direction.
  Vector tangent(const Vector& p, double length, std::uint64_t seed) const {
    const Vector c = random_normal(m->intrinsic_dim(), 1, seed).col(0);
    return m->from_coordinates(m->tangent_basis(p), c * (length / c.norm()));
  }
  // |v - w| relative to |v| + |w| (Euclidean in ambient coordinates).
  static double relative(const Vector& v, const Vector& w) {
    return (v - w).norm() / (v.norm() + w.norm() + 1e-300);
  }
  // Whether v is tangent at p: it is its own projection onto span(tangent_basis(p)).
  bool is_tangent(const Vector& p, const Vector& v) const {
    const Matrix basis = m->tangent_basis(p);
    return relative(m->from_coordinates(basis, m->to_coordinates(p, basis, v)), v) < 1e-10;
  }
};

TEST_P(ManifoldLayer, ExpAndLogAreInverseAndDistanceIsTheLengthOfTheLog) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Vector p = point(seed);
    const Vector v = tangent(p, GetParam().max_step * 0.2 * static_cast<double>(seed), 100 + seed);
    const Vector q = m->exp(p, v);
    EXPECT_TRUE(m->off_manifold_reason(q, 1e-9).empty()) << m->off_manifold_reason(q, 1e-9);
    EXPECT_LT(relative(m->log(p, q), v), 1e-9) << "seed " << seed;
    EXPECT_NEAR(m->distance(p, q), m->norm(p, v), 1e-10 * (1.0 + m->norm(p, v)));
    EXPECT_NEAR(m->distance(p, q), m->norm(p, m->log(p, q)), 1e-10 * (1.0 + m->distance(p, q)));
    EXPECT_NEAR(m->distance(p, q), m->distance(q, p), 1e-10 * (1.0 + m->distance(p, q)));
  }
}

TEST_P(ManifoldLayer, TangentBasisIsOrthonormalInTheMetric) {
  const Vector p = point(7);
  const Matrix basis = m->tangent_basis(p);
  ASSERT_EQ(basis.rows(), m->ambient_dim());
  ASSERT_EQ(basis.cols(), m->intrinsic_dim());
  for (Index a = 0; a < basis.cols(); ++a) {
    EXPECT_TRUE(is_tangent(p, basis.col(a)));
    for (Index b = 0; b < basis.cols(); ++b)
      EXPECT_NEAR(m->inner(p, basis.col(a), basis.col(b)), a == b ? 1.0 : 0.0, 1e-11) << a << ", " << b;
  }
}

TEST_P(ManifoldLayer, ParallelTransportIsAnIsometryOntoTheDestinationsTangentSpace) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Vector p = point(10 * seed), q = m->exp(p, tangent(p, GetParam().max_step * 0.8, 11 * seed));
    const Vector u = tangent(p, 0.7, 12 * seed), w = tangent(p, 1.3, 13 * seed);
    const Vector tu = m->parallel_transport(p, q, u), tw = m->parallel_transport(p, q, w);
    EXPECT_TRUE(is_tangent(q, tu)) << "seed " << seed;
    EXPECT_NEAR(m->norm(q, tu), m->norm(p, u), 1e-10);
    EXPECT_NEAR(m->inner(q, tu, tw), m->inner(p, u, w), 1e-10);
    // Along the geodesic: the initial velocity arrives as minus the velocity back, and
    // transporting back returns the vector.
    EXPECT_LT(relative(m->parallel_transport(p, q, m->log(p, q)), -m->log(q, p)), 1e-9);
    EXPECT_LT(relative(m->parallel_transport(q, p, tu), u), 1e-9);
    EXPECT_LT(relative(m->parallel_transport(p, p, u), u), 1e-12);
  }
}

// f(x) = a . x + sum_i b_i x_i^2 / 2 in ambient coordinates, with ambient gradient a + b o x.
TEST_P(ManifoldLayer, RiemannianGradientMatchesFiniteDifferencesAlongExpCurves) {
  const Index d = m->ambient_dim();
  const Vector a = random_normal(d, 1, 31).col(0), b = random_normal(d, 1, 32).col(0);
  const auto f = [&](const Vector& x) { return a.dot(x) + 0.5 * (b.array() * x.array().square()).sum(); };
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Vector p = point(40 + seed);
    const Vector gradient = m->riemannian_gradient_at(p, a + b.cwiseProduct(p));
    EXPECT_TRUE(is_tangent(p, gradient));
    for (std::uint64_t direction = 0; direction < 3; ++direction) {
      const Vector w = tangent(p, 1.0, 50 + 3 * seed + direction);
      constexpr double h = 1e-5;
      const double numeric = (f(m->exp(p, h * w)) - f(m->exp(p, -h * w))) / (2.0 * h);
      const double analytic = m->inner(p, gradient, w);
      EXPECT_LT(std::abs(numeric - analytic), 1e-6 * (std::abs(numeric) + m->norm(p, gradient)))
          << "seed " << seed << ", numeric " << numeric << ", analytic " << analytic;
    }
  }
}

TEST_P(ManifoldLayer, RowBlockMapsAreThePerPointOnes) {
  const Index n = 4, d = m->ambient_dim();
  Matrix X(n, d), Y(n, d), V(n, d), G = random_normal(n, d, 61);
  for (Index i = 0; i < n; ++i) {
    X.row(i) = point(62 + i).transpose();
    V.row(i) = tangent(X.row(i).transpose(), 0.3 * GetParam().max_step, 66 + i).transpose();
    Y.row(i) = m->exp(X.row(i).transpose(), V.row(i).transpose()).transpose();
  }
  EXPECT_EQ(m->first_row_outside(X, 1e-9), -1);
  EXPECT_EQ(m->first_row_outside(Matrix(n, d + 1), 1e-9), 0);

  const Matrix D = m->distances(X, Y);
  Matrix riemannian = G;
  m->riemannian_gradient(X, riemannian);
  Matrix moved = X;
  m->retract(moved, V);
  const Vector squared = m->tangent_squared_norms(X, V);
  Matrix transported = V;
  m->transport(X, Y, transported);
  for (Index i = 0; i < n; ++i) {
    const Vector x = X.row(i).transpose(), v = V.row(i).transpose();
    for (Index j = 0; j < n; ++j)
      EXPECT_NEAR(D(i, j), m->distance(x, Y.row(j).transpose()), 1e-12 * (1.0 + D(i, j)));
    EXPECT_LT(relative(riemannian.row(i).transpose(), m->riemannian_gradient_at(x, G.row(i).transpose())),
              1e-12);
    EXPECT_LT(m->distance(moved.row(i).transpose(), Y.row(i).transpose()), 1e-12);
    EXPECT_NEAR(squared[i], m->inner(x, v, v), 1e-12 * (1.0 + squared[i]));
    EXPECT_LT(relative(transported.row(i).transpose(), m->parallel_transport(x, Y.row(i).transpose(), v)),
              1e-12);
  }
}

TEST_P(ManifoldLayer, FrechetMeanIsStationary) {
  RowMatrix P(6, m->ambient_dim());
  const Vector centre = point(71);
  for (Index i = 0; i < P.rows(); ++i)
    P.row(i) = m->exp(centre, tangent(centre, 0.3 * GetParam().max_step, 72 + i)).transpose();
  const FrechetMean mean = m->frechet_mean(P);
  Vector sum = Vector::Zero(m->ambient_dim());
  for (Index i = 0; i < P.rows(); ++i) sum += m->log(mean.point, P.row(i).transpose());
  EXPECT_LT(m->norm(mean.point, sum) / static_cast<double>(P.rows()), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(EveryManifold, ManifoldLayer, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.label; });

TEST(EuclideanManifold, FrechetMeanIsTheArithmeticMeanAndIsFlat) {
  const EuclideanManifold m(3);
  const RowMatrix P = random_normal(5, 3, 81);
  const FrechetMean mean = m.frechet_mean(P);
  EXPECT_LT((mean.point - P.colwise().mean().transpose()).norm(), 1e-15);
  EXPECT_EQ(mean.iterations, 0);
  EXPECT_FALSE(m.is_curved());
  EXPECT_TRUE(m.off_manifold_reason(Vector::Constant(3, std::nan("")), 1e-8).size() > 0);
}

TEST(LorentzManifold, FrechetMeanOfTwoPointsIsTheGeodesicMidpoint) {
  const LorentzManifold m(2);
  const Vector p = lorentz::lift(Vector{{0.4, -1.1}}), q = lorentz::lift(Vector{{-0.9, 0.3}});
  RowMatrix P(2, 3);
  P.row(0) = p.transpose();
  P.row(1) = q.transpose();
  const Vector midpoint = m.exp(p, 0.5 * m.log(p, q));
  EXPECT_LT(m.distance(m.frechet_mean(P).point, midpoint), 1e-9);
  EXPECT_TRUE(m.is_curved());
}

TEST(LorentzManifold, MembershipNamesWhyAPointIsOffTheSheet) {
  const LorentzManifold m(2);
  EXPECT_TRUE(m.off_manifold_reason(lorentz::lift(Vector{{0.3, 0.2}}), 1e-12).empty());
  EXPECT_NE(m.off_manifold_reason(Vector{{-1.0, 0.0, 0.0}}, 1e-8).find("time-like"), std::string::npos);
  EXPECT_NE(m.off_manifold_reason(Vector{{1.5, 0.0, 0.0}}, 1e-8).find("<x, x>_L"), std::string::npos);
  EXPECT_LT(m.distance(m.project(Vector{{7.0, 0.3, 0.2}}), lorentz::lift(Vector{{0.3, 0.2}})), 1e-15);
}

TEST(SpdMatrixFunctions, ExpDerivativeMatchesFiniteDifferences) {
  const Matrix a = random_normal(3, 3, 91), h_raw = random_normal(3, 3, 92);
  const Matrix s = spd::symmetric_part(a), h = spd::symmetric_part(h_raw);
  constexpr double step = 1e-5;
  const Matrix numeric = (spd::exp(s + step * h) - spd::exp(s - step * h)) / (2.0 * step);
  EXPECT_LT((numeric - spd::exp_derivative(s, h)).norm(), 1e-6 * numeric.norm());
  // Repeated eigenvalues: the derivative at the identity is exp(0) H = H.
  EXPECT_LT((spd::exp_derivative(Matrix::Zero(3, 3), h) - h).norm(), 1e-15);
}

TEST(OutputSpaceRegistry, HoldsEuclideanDataAndTheManifolds) {
  const std::vector<std::string> all = registered_output_spaces(), curved = output_manifold_names();
  EXPECT_EQ(all,
            (std::vector<std::string>{"euclidean", "kendall", "spd_affine", "spd_log_euclidean", "sphere"}));
  EXPECT_EQ(curved, (std::vector<std::string>{"kendall", "spd_affine", "spd_log_euclidean", "sphere"}));
  EXPECT_FALSE(output_space_is(kEuclideanSpace, &Manifold::is_curved));
  EXPECT_TRUE(output_space_is(kKendallSpace, &Manifold::is_curved));
  EXPECT_EQ(make_output_manifold(kEuclideanSpace, 4)->ambient_dim(), 4);
  EXPECT_NO_THROW(require_output_manifold(kSphereSpace, "--project-to"));
  try {
    require_output_manifold(kEuclideanSpace, "--project-to");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "--project-to");
    EXPECT_EQ(e.context().value, "euclidean");
  }
  // Both SPD metrics are metrics on the same points.
  EXPECT_EQ(make_output_manifold(kSpdAffineSpace, 9)->point_set(),
            make_output_manifold(kSpdLogEuclideanSpace, 9)->point_set());
  EXPECT_NE(make_output_manifold(kSphereSpace, 9)->point_set(),
            make_output_manifold(kSpdAffineSpace, 9)->point_set());
}

}  // namespace
}  // namespace gplvm
