// The spline basis: L + 1 free parameters per coordinate, zero at both ends, and continuous with
// its first and second derivatives at every interior knot, the second derivative of
// c0 + c1 t + c2 t^2 + c3 t^3 being 2 c2 + 6 c3 t (a row [0, 0, 6t, 2] would constrain something else).
#include <gtest/gtest.h>

#include "gplvm/geometry/cubic_spline.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

TEST(CubicSpline, HasOneMoreFreeParameterThanSegmentsAndVanishesAtTheEnds) {
  for (const Index L : {1, 2, 5, 10}) {
    const CubicSplineBasis basis(L);
    EXPECT_EQ(basis.num_free(), L + 1);
    const Vector ends = (Vector(2) << 0.0, 1.0).finished();
    EXPECT_LT(basis.at(ends).cwiseAbs().maxCoeff(), 1e-13);
    // Orthonormal columns.
    EXPECT_LT((basis.coefficients().transpose() * basis.coefficients() - Matrix::Identity(L + 1, L + 1))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-12);
  }
}

// At each interior knot tau, every derivative up to the second agrees between the left and the
// right segment's cubic, from the coefficients directly.
TEST(CubicSpline, IsTwiceContinuouslyDifferentiableAtTheKnots) {
  const Index L = 6;
  const CubicSplineBasis basis(L);
  const Matrix& B = basis.coefficients();
  for (Index s = 1; s < L; ++s) {
    const double tau = static_cast<double>(s) / L;
    const Eigen::RowVector4d value(1, tau, tau * tau, tau * tau * tau), slope(0, 1, 2 * tau, 3 * tau * tau),
        curvature(0, 0, 2, 6 * tau);
    for (const Eigen::RowVector4d& row : {value, slope, curvature}) {
      const Eigen::RowVectorXd left = row * B.middleRows(4 * (s - 1), 4),
                               right = row * B.middleRows(4 * s, 4);
      EXPECT_LT((left - right).cwiseAbs().maxCoeff(), 1e-12) << "knot " << s;
    }
  }
}

TEST(CubicSpline, DerivativesAreFiniteDifferencesAndTheZeroWeightsAreTheStraightLine) {
  const CubicSplineBasis basis(4);
  const SplineCurve curve{(Vector(2) << 0.0, 1.0).finished(), (Vector(2) << 2.0, -1.0).finished(),
                          testing::random_normal(5, 2, 3)};
  const Vector t = (Vector(3) << 0.13, 0.5 + 1e-3, 0.91).finished();
  constexpr double h = 1e-6;
  const Matrix v = curve.evaluate(basis, t, 1), a = curve.evaluate(basis, t, 2);
  const Vector up = t.array() + h, down = t.array() - h;
  EXPECT_LT((v - (curve.evaluate(basis, up) - curve.evaluate(basis, down)) / (2 * h)).cwiseAbs().maxCoeff(),
            1e-7);
  EXPECT_LT(
      (a - (curve.evaluate(basis, up, 1) - curve.evaluate(basis, down, 1)) / (2 * h)).cwiseAbs().maxCoeff(),
      1e-6);
  const SplineCurve line{curve.start, curve.end, Matrix::Zero(5, 2)};
  const Matrix points = line.evaluate(basis, t);
  for (Index j = 0; j < t.size(); ++j)
    EXPECT_LT((points.row(j).transpose() - ((1 - t[j]) * curve.start + t[j] * curve.end)).norm(), 1e-14);
}

TEST(CubicSpline, FittingASplinesOwnPointsRecoversItsWeights) {
  const CubicSplineBasis basis(5);
  const SplineCurve curve{(Vector(2) << -1.0, 0.5).finished(), (Vector(2) << 1.0, 0.0).finished(),
                          testing::random_normal(6, 2, 9)};
  const Vector t = uniform_parameters(30);
  const Matrix w = fitted_weights(basis, t, curve.evaluate(basis, t), curve.start, curve.end);
  EXPECT_LT((w - curve.weights).cwiseAbs().maxCoeff(), 1e-10);
}

}  // namespace
}  // namespace gplvm
