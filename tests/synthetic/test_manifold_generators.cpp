// The manifold generators: every point on its manifold, and the latent structure as documented,
// checked from the points (not from the generator's own intermediate values): the sphere curve's
// geodesic radius and phase, the shapes' invariance to the random poses, the tensors' fractional
// anisotropy, the covariances' spread of eigenvalues; and reproducibility from the seed.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <numbers>

#include "gplvm/manifold/manifold.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/synthetic/manifold_generators.hpp"

namespace gplvm {
namespace {

void expect_on_manifold(const SyntheticData& d, const std::string& space) {
  const auto m = make_output_manifold(space, d.Y.cols());
  EXPECT_EQ(first_off_manifold_row(*m, d.Y, 1e-12).row, -1) << space;
  EXPECT_EQ(d.output_space.rfind(space.substr(0, 3), 0), 0u);
}

Matrix at(const RowMatrix& Y, Index row, Index n) {
  return Eigen::Map<const Matrix>(Y.row(row).data(), n, n);
}

TEST(ManifoldGenerators, SphereCurveIsASmallCircleParametrisedByItsPhase) {
  const SyntheticData d = sphere_curve(50, 3, 0.0);
  expect_on_manifold(d, "sphere");
  for (Index i = 0; i < d.Y.rows(); ++i) {
    EXPECT_NEAR(std::acos(d.Y(i, 2)), 0.5, 1e-12);  // geodesic distance from the pole
    const double phase = std::atan2(d.Y(i, 1), d.Y(i, 0));
    EXPECT_NEAR(std::remainder(phase - d.latent_true(i, 0), 2 * std::numbers::pi), 0.0, 1e-12);
  }
  expect_on_manifold(sphere_curve(50, 3, 0.1), "sphere");
}

TEST(ManifoldGenerators, ShapesDependOnlyOnTheLatentsNotOnThePose) {
  const SyntheticData d = planar_shapes(40, 12, 4, 0.0);
  expect_on_manifold(d, "kendall");
  const auto m = make_output_manifold("kendall", 24);
  // Each row is, up to its random pose, the documented outline of its latents (a, b): an ellipse
  // of aspect ratio e^{a/2} bent by y += 0.4 b x^2.
  for (Index i = 0; i < d.Y.rows(); ++i) {
    const double a = d.latent_true(i, 0), b = d.latent_true(i, 1);
    Vector outline(24);
    for (Index j = 0; j < 12; ++j) {
      const double theta = 2 * std::numbers::pi * static_cast<double>(j) / 12.0, x = std::cos(theta);
      outline[2 * j] = x;
      outline[2 * j + 1] = std::exp(0.5 * a) * std::sin(theta) + 0.4 * b * x * x;
    }
    EXPECT_LT(m->distance(outline, d.Y.row(i).transpose()), 1e-7) << i;
    EXPECT_GT(m->distance(outline, d.Y.row((i + 1) % d.Y.rows()).transpose()), 1e-3) << i;
  }
  // The same latents twice (same seed) give the same shapes.
  const SyntheticData again = planar_shapes(40, 12, 4, 0.0);
  EXPECT_EQ((again.Y - d.Y).cwiseAbs().maxCoeff(), 0.0);
}

TEST(ManifoldGenerators, TensorsSpreadTheirAnisotropyAndCovariancesTheirScales) {
  const SyntheticData t = spd_tensors(60, 5, 0.0);
  expect_on_manifold(t, "spd_log_euclidean");
  for (Index i = 0; i < t.Y.rows(); ++i) {
    const Vector values = Eigen::SelfAdjointEigenSolver<Matrix>(at(t.Y, i, 3)).eigenvalues();
    const double u = t.latent_true(i, 0);
    EXPECT_NEAR(values.maxCoeff(), std::exp(2 * u), 1e-12 * std::exp(2 * u));
    EXPECT_NEAR(values.minCoeff(), std::exp(-u), 1e-12);
  }
  // FA of eigenvalues (e^{2u}, e^{-u}, e^{-u}) rises from 0 at u = 0.
  EXPECT_NEAR(fractional_anisotropy(Vector{{1.0, 1.0, 1.0}}), 0.0, 1e-15);
  EXPECT_NEAR(fractional_anisotropy(Vector{{1.0, 0.0, 0.0}}), 1.0, 1e-15);

  const SyntheticData c = spd_covariances(20, 6, 0.0);
  expect_on_manifold(c, "spd_log_euclidean");
  for (Index i = 0; i < c.Y.rows(); ++i) {
    const Vector values = Eigen::SelfAdjointEigenSolver<Matrix>(at(c.Y, i, 10)).eigenvalues();
    EXPECT_GT(values.maxCoeff() / values.minCoeff(), 1e4);  // five orders, less the tilt by s
  }
  expect_on_manifold(spd_covariances(20, 6, 0.05), "spd_log_euclidean");
}

}  // namespace
}  // namespace gplvm
