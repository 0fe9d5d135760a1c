// The assembled bound against a Monte-Carlo average of log p(y, C, x) - log q(x) - log q(C) over
// draws from q, every density evaluated literally from dense Kronecker matrices in node-major order
// (the normalised likelihood, both priors, q's Gaussian and matrix-normal densities): checks the KL
// terms, the normaliser's bookkeeping and the expectations under q's covariances together.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/lllvm/dimension_major.hpp"
#include "gplvm/lllvm/lllvm_bound.hpp"
#include "gplvm/lllvm/lllvm_em.hpp"
#include "lllvm_oracle.hpp"
#include "lllvm_test_problems.hpp"

namespace gplvm::testing {
namespace {

namespace oracle = lllvm_oracle;

// N(mean, cov) with its Cholesky factor, for draws and densities.
struct DenseGaussian {
  Vector mean;
  Eigen::LLT<Matrix> llt;
  DenseGaussian(Vector m, const Matrix& cov) : mean(std::move(m)), llt(cov) {}
  Vector draw(std::uint64_t seed, std::uint64_t step) const {
    return mean + llt.matrixL() * Vector(random_matrix(mean.size(), 1, seed, step));
  }
  double log_density(const Vector& v) const {
    const Vector white = llt.matrixL().solve(v - mean);
    const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    return -0.5 *
           (white.squaredNorm() + log_det + static_cast<double>(v.size()) * std::log(2.0 * std::numbers::pi));
  }
};

TEST(LllvmMonteCarlo, BoundIsTheExpectedLogRatio) {
  const Index n = 6, dx = 2, dy = 3;
  oracle::Instance p{
      random_connected_adjacency(n, 8), random_matrix(n, dy, 8, 50), Matrix(), Vector(), dx, 0.0, 1e-2};
  const LllvmProblem problem = lllvm_problem(p.y, graph_of(p.g), dx, p.epsilon);
  LllvmOptions options;
  options.max_iterations = 1;
  options.alpha = 0.5;
  const LllvmState q = fit_lllvm(problem, options).state;
  p.gamma = q.gamma;
  const double analytic = lllvm_bound(problem, q, bound_statistics(problem, q)).total();

  // q and the model in node-major order; vec C stacks C's columns (d_y entries per (i, r)).
  const Permutation to_dm = node_to_dimension_major(n, dx);
  const Matrix id_y = Matrix::Identity(dy, dy), id_x = Matrix::Identity(dx, dx);
  const Matrix mean_c = q.mean_c * to_dm;
  const DenseGaussian q_x(to_dm.transpose() * q.mean_x, to_dm.transpose() * q.cov_x * to_dm);
  const DenseGaussian q_c(Eigen::Map<const Vector>(mean_c.data(), mean_c.size()),
                          oracle::kron(to_dm.transpose() * q.cov_c * to_dm, id_y));
  const Matrix laplacian = oracle::laplacian(p.g);
  const Matrix prior_x_precision = oracle::kron(q.alpha * Matrix::Identity(n, n) + 2.0 * laplacian, id_x);
  const Matrix prior_c_precision =
      oracle::kron(oracle::kron(p.epsilon * Matrix::Ones(n, n) + 2.0 * laplacian, id_x), id_y);
  const DenseGaussian prior_x(Vector::Zero(n * dx), prior_x_precision.inverse());
  const DenseGaussian prior_c(Vector::Zero(n * dx * dy), prior_c_precision.inverse());
  const Matrix sigma_y = oracle::sigma_y(p);
  const Vector y = Eigen::Map<const Vector>(Matrix(p.y.transpose()).data(), p.y.size());

  const int draws = 40000;
  double sum = 0.0, sum_squares = 0.0;
  for (int t = 0; t < draws; ++t) {
    p.x = q_x.draw(60, static_cast<std::uint64_t>(2 * t));
    const Vector vec_c = q_c.draw(60, static_cast<std::uint64_t>(2 * t + 1));
    p.c = Eigen::Map<const Matrix>(vec_c.data(), dy, n * dx);
    const double log_ratio = oracle::log_normal(y, sigma_y * oracle::e_direct(p), sigma_y) +
                             prior_x.log_density(p.x) + prior_c.log_density(vec_c) - q_x.log_density(p.x) -
                             q_c.log_density(vec_c);
    sum += log_ratio;
    sum_squares += log_ratio * log_ratio;
  }
  const double mean = sum / draws;
  const double standard_error = std::sqrt((sum_squares / draws - mean * mean) / draws);
  EXPECT_LT(standard_error, 0.05);
  EXPECT_LT(std::abs(mean - analytic), 4.0 * standard_error)
      << "analytic " << analytic << ", Monte Carlo " << mean;
}

}  // namespace
}  // namespace gplvm::testing
