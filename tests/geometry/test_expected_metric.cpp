// The expected metric E[G] = E[J]^T E[J] + D Sigma_J, its derivatives and its Christoffel symbols,
// against references computed without the code under test: finite differences of the dense
// posterior mean and covariance, the Christoffel symbols' closed form for the EQ kernel (eq. 6.33 of
// the source thesis, its third-derivative term zero for a stationary kernel), and the linear
// kernel's constant metric.
#include <gtest/gtest.h>

#include "geometry_fixture.hpp"
#include "gplvm/geometry/expected_metric.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/linear_kernel.hpp"

namespace gplvm {
namespace {

using namespace testing;

Vector flat(const Matrix& m) {
  return Eigen::Map<const Vector>(m.data(), m.size());
}

TEST(ExpectedMetric, IsTheMeanJacobianGramPlusDTimesTheJacobianCovarianceByFiniteDifferences) {
  for (const char* expression : {"eq_ard", "matern52", "eq_ard+linear"}) {
    const auto k = geometry_kernel(expression);
    const Matrix Z = circle_latents(24, 3), Y = smooth_outputs(Z);
    const double noise = 0.01;
    const GpPosterior posterior = GpPosterior::given_observations(*k, Z, Y, noise);
    const Matrix x = (Matrix(1, 2) << 0.9, -0.7).finished();
    // E[J] by central differences of the dense posterior mean.
    Matrix K;
    k->cross(Z, Z, K);
    K.diagonal().array() += noise;
    const Matrix weights = K.ldlt().solve(Y);
    Matrix mean_jacobian(kGeometryD, kGeometryQ);
    for (Index d = 0; d < kGeometryD; ++d) {
      const auto mean_d = [&](const Vector& v) {
        Matrix kx;
        k->cross(Z, v.transpose(), kx);
        return (kx.transpose() * weights.col(d))(0, 0);
      };
      mean_jacobian.row(d) = finite_difference_gradient(mean_d, x.row(0).transpose()).transpose();
    }
    Matrix sigma(kGeometryQ, kGeometryQ);
    for (Index a = 0; a < kGeometryQ; ++a)
      for (Index b = 0; b < kGeometryQ; ++b)
        sigma(a, b) = mixed_second_difference(
            [&](const Matrix& u, const Matrix& v) { return dense_posterior_covariance(*k, Z, noise, u, v); },
            x, a, b, 1e-3);
    const Matrix want = mean_jacobian.transpose() * mean_jacobian + static_cast<double>(kGeometryD) * sigma;
    const Matrix got = ExpectedMetric(posterior).metric(x);
    EXPECT_LT(max_relative_error(flat(got), flat(want)), 1e-6) << expression << "\n" << got << "\n" << want;
  }
}

// dE[G]/dx_k against central differences of E[G] itself, given observed rows and given inducing
// values (whose spread R adds a term), for kernels whose prior Jacobian covariance is constant.
TEST(ExpectedMetric, DerivativesAreFiniteDifferencesOfTheMetric) {
  for (const char* expression : {"eq_ard", "matern52", "periodic", "eq_ard+linear", "eq_ard*periodic"})
    for (const bool inducing : {false, true}) {
      const GpPosterior posterior =
          inducing ? inducing_posterior(expression) : observed_posterior(expression);
      const ExpectedMetric metric(posterior);
      const Matrix x = (Matrix(1, 2) << 0.4, 1.1).finished();
      const MetricWithDerivatives g = metric.with_derivatives(x);
      EXPECT_LT(max_relative_error(flat(g.metric), flat(metric.metric(x))), 1e-13);
      constexpr double h = 1e-5;
      for (Index k = 0; k < kGeometryQ; ++k) {
        Matrix up = x, down = x;
        up(0, k) += h;
        down(0, k) -= h;
        const Matrix fd = (metric.metric(up) - metric.metric(down)) / (2 * h);
        EXPECT_LT(max_relative_error(flat(g.derivatives[k]), flat(fd), g.metric.norm()), 1e-7)
            << expression << (inducing ? " (inducing)" : "") << " k = " << k;
      }
    }
}

TEST(ExpectedMetric, ChristoffelSymbolsEqualTheClosedFormForTheEqKernel) {
  const Vector lengthscales = (Vector(2) << 0.8, 1.3).finished();
  const EqArdKernel k(1.4, lengthscales);
  const Matrix Z = circle_latents(20, 7), Y = smooth_outputs(Z);
  const double noise = 0.02, D = kGeometryD;
  const GpPosterior posterior = GpPosterior::given_observations(k, Z, Y, noise);
  const Matrix x = (Matrix(1, 2) << -0.3, 0.8).finished();
  const std::vector<Matrix> got = ExpectedMetric(posterior).christoffel_symbols(x);

  // Gamma^i_jk = g^il (phi_l . phi_jk - D (d2_jk k_*)^T K^{-1} d_l k_*), everything written out.
  Matrix K;
  k.cross(Z, Z, K);
  K.diagonal().array() += noise;
  const Matrix Kinv = K.inverse();
  const Index M = Z.rows(), Q = 2;
  const Vector inv_l2 = lengthscales.array().square().inverse();
  Matrix grad(M, Q);                                      // d k(x, z_m) / dx
  std::vector<Matrix> hess(static_cast<std::size_t>(M));  // d2 k(x, z_m) / dx dx
  for (Index m = 0; m < M; ++m) {
    const Vector d = (x.row(0) - Z.row(m)).transpose();
    const double km = 1.4 * std::exp(-0.5 * d.cwiseProduct(d).dot(inv_l2));
    const Vector s = d.cwiseProduct(inv_l2);
    grad.row(m) = -km * s.transpose();
    hess[m] = km * (s * s.transpose() - Matrix(inv_l2.asDiagonal()));
  }
  const Matrix mean_jacobian = Y.transpose() * Kinv * grad;  // D x Q
  const Matrix g = mean_jacobian.transpose() * mean_jacobian +
                   D * (Matrix(1.4 * inv_l2.asDiagonal()) - grad.transpose() * Kinv * grad);
  const Matrix g_inv = g.inverse();
  const Matrix alpha = Kinv * Y;
  for (Index i = 0; i < Q; ++i) {
    Matrix want = Matrix::Zero(Q, Q);
    for (Index j = 0; j < Q; ++j)
      for (Index kk = 0; kk < Q; ++kk) {
        Vector hjk(M);
        for (Index m = 0; m < M; ++m) hjk[m] = hess[m](j, kk);
        const Vector mean_second = alpha.transpose() * hjk;  // d2 mu_d / dx_j dx_k
        for (Index l = 0; l < Q; ++l) {
          const double term = mean_jacobian.col(l).dot(mean_second) - D * hjk.dot(Kinv * grad.col(l));
          want(j, kk) += g_inv(i, l) * term;
        }
      }
    EXPECT_LT(max_relative_error(flat(got[i]), flat(want)), 1e-9) << "i = " << i << "\n"
                                                                  << got[i] << "\n"
                                                                  << want;
  }
}

// k = sum_q a_q x_q z_q: the mean is linear, mu(x) = x^T diag(a) Z^T alpha, so E[J] = alpha^T Z diag(a)
// everywhere and Sigma_J = diag(a) - diag(a) Z^T (K + s2 I)^{-1} Z diag(a): a constant metric, whose
// Christoffel symbols vanish.
TEST(ExpectedMetric, ALinearKernelGivesItsConstantClosedFormAndNoConnection) {
  const Vector a = (Vector(2) << 0.7, 1.9).finished();
  const LinearArdKernel k(a);
  const Matrix Z = circle_latents(15, 8), Y = smooth_outputs(Z);
  const double noise = 0.05;
  const GpPosterior posterior = GpPosterior::given_observations(k, Z, Y, noise);
  Matrix K = Z * a.asDiagonal() * Z.transpose();
  K.diagonal().array() += noise;
  const Matrix A = a.asDiagonal();
  const Matrix J = K.ldlt().solve(Y).transpose() * Z * A;
  const Matrix want = J.transpose() * J + kGeometryD * (A - A * Z.transpose() * K.ldlt().solve(Z * A));
  const ExpectedMetric metric(posterior);
  for (const Matrix& x :
       {Matrix((Matrix(1, 2) << 0.1, 0.2).finished()), Matrix((Matrix(1, 2) << -3.0, 5.0).finished())}) {
    EXPECT_LT(max_relative_error(flat(metric.metric(x)), flat(want)), 1e-10);
    for (const Matrix& gamma : metric.christoffel_symbols(x)) EXPECT_LT(gamma.cwiseAbs().maxCoeff(), 1e-10);
  }
}

// Far from every conditioning point E[J] -> 0 and Sigma_J -> the prior's H: E[G] -> D H.
TEST(ExpectedMetric, FarFromTheDataTheMetricIsThePriorsUncertainty) {
  const GpPosterior posterior = observed_posterior("eq_ard");
  const Matrix far = (Matrix(1, 2) << 40.0, -40.0).finished();
  const Matrix want = static_cast<double>(kGeometryD) * posterior.kernel().gradient_covariance(far);
  EXPECT_LT(max_relative_error(flat(ExpectedMetric(posterior).metric(far)), flat(want)), 1e-12);
}

TEST(ExpectedMetric, VolumeElementIsHalfTheLogDeterminantAndPullBackRestricts) {
  const Matrix G = (Matrix(2, 2) << 4.0, 1.0, 1.0, 3.0).finished();
  EXPECT_NEAR(log_volume_element(G), 0.5 * std::log(11.0), 1e-14);
  EXPECT_EQ(log_volume_element(-G), -std::numeric_limits<double>::infinity());
  const Matrix B = (Matrix(2, 1) << 1.0, 0.0).finished();
  EXPECT_DOUBLE_EQ(pulled_back(G, B)(0, 0), 4.0);
}

}  // namespace
}  // namespace gplvm
