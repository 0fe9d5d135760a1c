// The collapsed Bayesian GPLVM bound (Gaussian latents): it tends to the sparse (point) bound as
// q(X)'s variances vanish, and its gradients with respect to the means, variances, inducing
// inputs, hyperparameters and log noise match finite differences. The Psi-statistics come from a
// brute-force quadrature kernel (support/quadrature_psi_kernel.hpp), independent of any closed form.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/model/gaussian_kl.hpp"
#include "gplvm/objectives/sparse_gplvm.hpp"
#include "support/quadrature_psi_kernel.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::QuadraturePsiKernel;
using testing::random_normal;

EqArdKernel base_kernel() {
  return EqArdKernel{1.1, (Vector(2) << 0.9, 1.4).finished()};
}

// Whether `kernel` has Psi-statistics of its own (the base class throws where it has none).
void expect_tends_to_sparse_bound(const Kernel& kernel) {
  const testing::GpProblem p = testing::sample_gp_problem(base_kernel(), 0.2, 30, 3, 1);
  const Matrix Z = random_normal(7, 2, 2);
  const double point = sparse_gplvm_bound(Communicator(), kernel, p.noise, Z, p.X, p.Y).value;
  double previous_gap = INFINITY;
  for (const double s : {1e-2, 1e-4, 1e-6, 1e-8}) {
    const Matrix variance = Matrix::Constant(30, 2, s);
    const double bayesian =
        bayesian_gplvm_bound(Communicator(), kernel, p.noise, Z, p.X, variance, p.Y).value;
    // The data part: the bound plus KL(q(X) || p(X)), which itself grows like -log s.
    const double gap = std::abs(bayesian + gaussian_kl(p.X, variance) - point);
    EXPECT_LT(gap, 0.5 * previous_gap) << "s = " << s;
    EXPECT_LT(gap, 1e3 * s * std::abs(point)) << "s = " << s;
    previous_gap = gap;
  }
}

TEST(BayesianGplvm, TendsToSparseBoundAsVariancesVanish) {
  expect_tends_to_sparse_bound(QuadraturePsiKernel(base_kernel(), 6));
}

TEST(BayesianGplvm, ClosedFormEqArdTendsToSparseBound) {
  expect_tends_to_sparse_bound(base_kernel());
}

// mu, s, Z, hyperparameters, log noise in one vector.
struct Layout {
  Index n, m, q, h;
  Vector pack(const Matrix& mean, const Matrix& variance, const Matrix& Z, const Kernel& kernel,
              double noise) const {
    Vector v(2 * n * q + m * q + h + 1);
    v << Eigen::Map<const Vector>(mean.data(), n * q), Eigen::Map<const Vector>(variance.data(), n * q),
        Eigen::Map<const Vector>(Z.data(), m * q), kernel.hyperparameters(), std::log(noise);
    return v;
  }
  double evaluate(const Vector& v, const RowMatrix& Y, const Kernel& base) const {
    const std::unique_ptr<Kernel> kernel_copy = base.clone();
    Kernel& kernel = *kernel_copy;
    const Matrix mean = Eigen::Map<const Matrix>(v.data(), n, q);
    const Matrix variance = Eigen::Map<const Matrix>(v.data() + n * q, n, q);
    const Matrix Z = Eigen::Map<const Matrix>(v.data() + 2 * n * q, m, q);
    kernel.set_hyperparameters(v.segment(2 * n * q + m * q, h));
    return bayesian_gplvm_bound(Communicator(), kernel, std::exp(v(v.size() - 1)), Z, mean, variance, Y)
        .value;
  }
};

void expect_gradients_match_finite_differences(const Kernel& kernel) {
  const testing::GpProblem p = testing::sample_gp_problem(base_kernel(), 0.2, 12, 3, 3);
  const Matrix Z = random_normal(5, 2, 4);
  const Matrix variance = (0.3 * random_normal(12, 2, 5)).array().exp() * 0.2;
  const Layout l{12, 5, 2, kernel.num_hyperparameters()};
  const SparseGplvmGradient g = bayesian_gplvm_bound(Communicator(), kernel, p.noise, Z, p.X, variance, p.Y);
  Vector analytic(2 * l.n * l.q + l.m * l.q + l.h + 1);
  analytic << Eigen::Map<const Vector>(g.d_latents.data(), g.d_latents.size()),
      Eigen::Map<const Vector>(g.d_variance.data(), g.d_variance.size()),
      Eigen::Map<const Vector>(g.d_inducing.data(), g.d_inducing.size()), g.d_kernel, g.d_log_noise;
  const Vector numeric =
      finite_difference_gradient([&](const Vector& v) { return l.evaluate(v, p.Y, kernel); },
                                 l.pack(p.X, variance, Z, kernel, p.noise), 1e-6);
  EXPECT_LT(max_relative_error(analytic, numeric), 1e-6);
  const Index nq = l.n * l.q;
  const Index blocks[][2] = {{0, nq}, {nq, nq}, {2 * nq, l.m * l.q}, {2 * nq + l.m * l.q, l.h + 1}};
  for (const auto& b : blocks)
    EXPECT_LT(max_relative_error(analytic.segment(b[0], b[1]), numeric.segment(b[0], b[1])), 1e-6)
        << "block at " << b[0];
}

TEST(BayesianGplvm, GradientsMatchFiniteDifferences) {
  expect_gradients_match_finite_differences(QuadraturePsiKernel(base_kernel(), 5));
}

TEST(BayesianGplvm, ClosedFormEqArdGradientsMatchFiniteDifferences) {
  expect_gradients_match_finite_differences(base_kernel());
}

// The closed form and a fine quadrature give the same bound and gradients.
TEST(BayesianGplvm, ClosedFormEqArdAgreesWithQuadrature) {
  const testing::GpProblem p = testing::sample_gp_problem(base_kernel(), 0.2, 25, 3, 7);
  const Matrix Z = random_normal(6, 2, 8);
  const Matrix variance = 0.05 * (0.3 * random_normal(25, 2, 9)).array().exp();
  const SparseGplvmGradient closed =
      bayesian_gplvm_bound(Communicator(), base_kernel(), p.noise, Z, p.X, variance, p.Y);
  const SparseGplvmGradient quadrature = bayesian_gplvm_bound(
      Communicator(), QuadraturePsiKernel(base_kernel(), 20), p.noise, Z, p.X, variance, p.Y);
  EXPECT_NEAR(closed.value, quadrature.value, 1e-8 * std::abs(quadrature.value));
  EXPECT_LT((closed.d_latents - quadrature.d_latents).norm(), 1e-7 * quadrature.d_latents.norm());
  EXPECT_LT((closed.d_variance - quadrature.d_variance).norm(), 1e-7 * quadrature.d_variance.norm());
  EXPECT_LT((closed.d_inducing - quadrature.d_inducing).norm(), 1e-7 * quadrature.d_inducing.norm());
  EXPECT_LT((closed.d_kernel - quadrature.d_kernel).norm(), 1e-7 * quadrature.d_kernel.norm());
}

}  // namespace
}  // namespace gplvm
