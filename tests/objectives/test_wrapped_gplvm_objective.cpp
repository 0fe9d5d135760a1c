// The constant-basepoint wrapped GPLVM (docs/math/wrapped_gplvm.md): its log-likelihood, written
// out here from the definition (tangent vectors Log_mu(p_i) computed by the test's own formulas,
// expressed in a random orthonormal frame of T_mu, and the Gaussian log density of the columns
// under K = k(X, X) + s2 I), equals the exact GPLVM objective on the chart's tangent coordinates,
// for every output manifold. The frame is another than the chart's, so this is also the frame
// invariance of the objective.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <cmath>
#include <complex>
#include <numbers>

#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/manifold/tangent_chart.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/objectives/gp_marginal.hpp"
#include "gplvm/synthetic/manifold_generators.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::random_normal;

Matrix square(const Vector& flat, Index n) {
  return Eigen::Map<const Matrix>(flat.data(), n, n);  // symmetric: either order
}

Matrix matrix_function(const Matrix& s, double (*f)(double)) {
  const Eigen::SelfAdjointEigenSolver<Matrix> e(0.5 * (s + s.transpose()));
  return e.eigenvectors() * e.eigenvalues().unaryExpr(f).asDiagonal() * e.eigenvectors().transpose();
}

double inv_sqrt(double x) {
  return 1.0 / std::sqrt(x);
}

// Log_mu(p) as an ambient vector (sphere, Kendall, log-Euclidean), or for the affine-invariant
// metric the whitened log(mu^-1/2 p mu^-1/2), whose Frobenius norm is the metric's.
Vector reference_log(const std::string& space, const Vector& mu, const Vector& p) {
  if (space == "sphere") {
    const double c = std::clamp(mu.dot(p), -1.0, 1.0), theta = std::acos(c);
    return theta / std::sin(theta) * (p - c * mu);
  }
  if (space == "kendall") {
    const Index k = p.size() / 2;
    Eigen::VectorXcd m(k), w(k);
    for (Index j = 0; j < k; ++j) m[j] = {mu[2 * j], mu[2 * j + 1]}, w[j] = {p[2 * j], p[2 * j + 1]};
    w.array() -= w.mean();
    w /= w.norm();
    const std::complex<double> c = (m.array() * w.array().conjugate()).sum();
    w *= c / std::abs(c);
    const double theta = std::acos(std::min(1.0, std::abs(c)));
    const Eigen::VectorXcd v = theta / std::sin(theta) * (w - std::cos(theta) * m);
    Vector out(2 * k);
    for (Index j = 0; j < k; ++j) out[2 * j] = v[j].real(), out[2 * j + 1] = v[j].imag();
    return out;
  }
  const Index n = static_cast<Index>(std::lround(std::sqrt(static_cast<double>(p.size()))));
  Matrix l;
  if (space == "spd_log_euclidean") {
    l = matrix_function(square(p, n), std::log) - matrix_function(square(mu, n), std::log);
  } else {
    const Matrix w = matrix_function(square(mu, n), inv_sqrt);
    l = matrix_function(w * square(p, n) * w, std::log);
  }
  return Eigen::Map<const Vector>(l.data(), l.size());
}

// A random orthonormal frame of the tangent space (in the coordinates reference_log returns):
// random vectors projected onto it and orthonormalised.
Matrix random_frame(const std::string& space, const Vector& mu, Index intrinsic_dim) {
  const Index m = mu.size();
  Matrix projector = Matrix::Identity(m, m);
  if (space == "sphere") projector -= mu * mu.transpose();
  if (space == "kendall") {
    Matrix normals = Matrix::Zero(m, 4);
    for (Index j = 0; j < m / 2; ++j) {
      normals(2 * j, 0) = normals(2 * j + 1, 1) = 1.0;
      normals(2 * j, 3) = -mu[2 * j + 1];
      normals(2 * j + 1, 3) = mu[2 * j];
    }
    normals.col(2) = mu;
    const Eigen::HouseholderQR<Matrix> qr(normals);
    const Matrix q = (qr.householderQ() * Matrix::Identity(m, m)).leftCols(4);
    projector -= q * q.transpose();
  }
  if (space.rfind("spd_", 0) == 0) {  // symmetric matrices: v -> (v + v^T) / 2
    const Index n = static_cast<Index>(std::lround(std::sqrt(static_cast<double>(m))));
    projector.setZero();
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < n; ++j)
        projector(i * n + j, i * n + j) += 0.5, projector(i * n + j, j * n + i) += 0.5;
  }
  const Matrix spanning = projector * random_normal(m, intrinsic_dim, 77);
  const Eigen::HouseholderQR<Matrix> qr(spanning);
  return (qr.householderQ() * Matrix::Identity(m, m)).leftCols(intrinsic_dim);
}

// Eq. 12: sum over the d coordinates of log N(V_:,c | 0, K).
double wrapped_log_likelihood(const Matrix& X, const Matrix& V, double variance, double lengthscale,
                              double noise) {
  const Index n = X.rows(), d = V.cols();
  Matrix K(n, n);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j)
      K(i, j) = variance * std::exp(-(X.row(i) - X.row(j)).squaredNorm() / (2 * lengthscale * lengthscale));
  K.diagonal().array() += noise;
  const Eigen::LLT<Matrix> llt(K);
  const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return -0.5 * static_cast<double>(n * d) * std::log(2 * std::numbers::pi) -
         0.5 * static_cast<double>(d) * log_det - 0.5 * (V.transpose() * llt.solve(V)).trace();
}

TEST(WrappedGplvmObjective, ConstantBasepointObjectiveIsTheGplvmOnTangentCoordinates) {
  const Index N = 30;
  const Matrix X = random_normal(N, 2, 5);
  const double variance = 0.8, lengthscale = 0.7, noise = 0.05;
  const EqArdKernel kernel(variance, lengthscale, 2);
  for (const std::string space : {"sphere", "kendall", "spd_log_euclidean", "spd_affine"}) {
    const SyntheticData data = space == "sphere"    ? sphere_curve(N, 3, 0.05)
                               : space == "kendall" ? planar_shapes(N, 6, 3, 0.02)
                                                    : spd_tensors(N, 3, 0.05);
    const std::shared_ptr<const Manifold> manifold = make_output_manifold(space, data.Y.cols());
    const TangentChart chart = TangentChart::at_frechet_mean(manifold, data.Y);
    const double gplvm =
        exact_log_marginal_likelihood(kernel, noise, X, chart.coordinates(data.Y), false).value;

    const Matrix frame = random_frame(space, chart.basepoint, manifold->intrinsic_dim());
    Matrix V(N, manifold->intrinsic_dim());
    for (Index i = 0; i < N; ++i)
      V.row(i) =
          (frame.transpose() * reference_log(space, chart.basepoint, data.Y.row(i).transpose())).transpose();
    const double wrapped = wrapped_log_likelihood(X, V, variance, lengthscale, noise);
    EXPECT_NEAR(gplvm, wrapped, 1e-10 * std::abs(wrapped)) << space;
  }
}

}  // namespace
}  // namespace gplvm
