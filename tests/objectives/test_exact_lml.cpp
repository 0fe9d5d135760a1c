#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numbers>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/objectives/gp_marginal.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

using Problem = testing::GpProblem;

EqArdKernel problem_kernel() {
  return EqArdKernel{0.9, Vector::Constant(2, 0.8)};
}

Problem make_problem(Index n, Index d, std::uint64_t seed) {
  return testing::sample_gp_problem(problem_kernel(), 0.3, n, d, seed);
}

// Reference written independently: LU determinant and solve, explicit YY^T trace (fine at small N).
double dense_reference_lml(const Problem& p) {
  Matrix K;
  p.kernel.cross(p.X, p.X, K);
  K.diagonal().array() += p.noise;
  const Eigen::FullPivLU<Matrix> lu(K);
  const double n = p.X.rows(), d = p.Y.cols();
  const Matrix Yc = p.Y;
  return -0.5 * n * d * std::log(2 * std::numbers::pi) - 0.5 * d * std::log(lu.determinant()) -
         0.5 * (lu.solve(Yc) * Yc.transpose()).trace();
}

TEST(ExactLml, MatchesDenseReference) {
  const Problem p = make_problem(40, 5, 1);
  const GpGradient g = exact_log_marginal_likelihood(p.kernel, p.noise, p.X, p.Y, false);
  EXPECT_NEAR(g.value, dense_reference_lml(p), 1e-10 * std::abs(g.value));
}

TEST(ExactLml, SingleOutputEqualsUnivariateGaussianForOnePoint) {
  const Problem p{problem_kernel(), 0.3, Matrix::Constant(1, 2, 0.3), RowMatrix::Constant(1, 1, 1.2)};
  const double var = 0.9 + 0.3;
  const double expected = -0.5 * std::log(2 * std::numbers::pi * var) - 0.5 * 1.44 / var;
  EXPECT_NEAR(exact_log_marginal_likelihood(p.kernel, p.noise, p.X, p.Y, false).value, expected, 1e-14);
}

// Packs latents, kernel hyperparameters and log noise into one vector for finite differences.
Vector pack(const Problem& p) {
  Vector v(p.X.size() + p.kernel.num_hyperparameters() + 1);
  v << Eigen::Map<const Vector>(p.X.data(), p.X.size()), p.kernel.hyperparameters(), std::log(p.noise);
  return v;
}

Problem unpack(const Problem& base, const Vector& v) {
  Problem p = base;
  p.X = Eigen::Map<const Matrix>(v.data(), base.X.rows(), base.X.cols());
  p.kernel.set_hyperparameters(v.segment(p.X.size(), p.kernel.num_hyperparameters()));
  p.noise = std::exp(v[v.size() - 1]);
  return p;
}

TEST(ExactLml, GradientsMatchFiniteDifferences) {
  const Problem p = make_problem(25, 4, 2);
  const GpGradient g = exact_log_marginal_likelihood(p.kernel, p.noise, p.X, p.Y);
  Vector analytic(pack(p).size());
  analytic << Eigen::Map<const Vector>(g.d_latents.data(), g.d_latents.size()), g.d_kernel, g.d_log_noise;
  auto f = [&](const Vector& v) {
    const Problem q = unpack(p, v);
    return exact_log_marginal_likelihood(q.kernel, q.noise, q.X, q.Y, false).value;
  };
  EXPECT_LT(max_relative_error(analytic, finite_difference_gradient(f, pack(p))), 1e-6);
}

TEST(ExactLml, MismatchedOrBadInputsAreErrors) {
  const Problem p = make_problem(10, 3, 3);
  EXPECT_THROW(exact_log_marginal_likelihood(p.kernel, p.noise, p.X.topRows(9), p.Y), InputError);
  EXPECT_THROW(exact_log_marginal_likelihood(p.kernel, -1.0, p.X, p.Y), InputError);
  Matrix bad = p.X;
  bad(4, 1) = std::nan("");
  EXPECT_THROW(exact_log_marginal_likelihood(p.kernel, p.noise, bad, p.Y), InputError);
}

}  // namespace
}  // namespace gplvm
