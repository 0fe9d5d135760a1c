// LL-LVM's variational EM: the bound never falls after any sub-update, the E-step's updates and the
// closed-form gamma are maximisers (perturbations lower the bound, finite-difference derivatives
// vanish), the cached bound statistics equal recomputed ones, and freeing alpha collapses the
// embedding, as docs/math/lllvm.md warns.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "gplvm/lllvm/linear_statistics.hpp"
#include "gplvm/lllvm/lllvm_e_step.hpp"
#include "gplvm/lllvm/lllvm_em.hpp"
#include "gplvm/lllvm/lllvm_m_step.hpp"
#include "lllvm_test_problems.hpp"
#include "support/test_support.hpp"

namespace gplvm::testing {
namespace {

LllvmProblem swiss_roll_problem(Index n, Index k, Index dx) {
  const Matrix y = swiss_roll(n, 3);
  return lllvm_problem(y, graph_of(knn_adjacency(y, k)), dx, 1e-3);
}

double bound_of(const LllvmProblem& problem, const LllvmState& state) {
  return lllvm_bound(problem, state, bound_statistics(problem, state)).total();
}

// A state a few EM iterations in, so that q is far from its start.
LllvmState state_after(const LllvmProblem& problem, int iterations) {
  LllvmOptions options;
  options.max_iterations = iterations;
  options.relative_tolerance = 0.0;
  return fit_lllvm(problem, options).state;
}

// Directions in which to perturb a covariance S and stay positive definite for |t| < 1:
// S + t S u u^T S / (u^T S u) (one direction, as S^1/2 (I + t v v^T) S^1/2) and (1 + t) S.
std::vector<std::function<Matrix(const Matrix&, double)>> covariance_perturbations(Index size) {
  const Vector u = random_matrix(size, 1, 9, 40);
  return {[u](const Matrix& s, double t) {
            const Vector su = s * u;
            return Matrix(s + t * su * su.transpose() / u.dot(su));
          },
          [](const Matrix& s, double t) { return Matrix((1.0 + t) * s); }};
}

TEST(LllvmEm, BoundNeverFallsAfterAnySubUpdate) {
  const LllvmProblem problem = swiss_roll_problem(60, 6, 2);
  for (const AlphaPolicy policy : {AlphaPolicy::fixed, AlphaPolicy::optimised}) {
    LllvmOptions options;
    options.alpha_policy = policy;
    options.max_iterations = 30;
    options.relative_tolerance = 0.0;
    const LllvmFit fit = fit_lllvm(problem, options);
    ASSERT_EQ(fit.trajectory.size(), static_cast<std::size_t>(policy == AlphaPolicy::fixed ? 90 : 120));
    for (std::size_t t = 1; t < fit.trajectory.size(); ++t) {
      const double before = fit.trajectory[t - 1].bound.total(), after = fit.trajectory[t].bound.total();
      EXPECT_GE(after, before - 1e-10 * std::abs(before))
          << "iteration " << fit.trajectory[t].iteration << ", " << update_name(fit.trajectory[t].update);
    }
  }
}

TEST(LllvmEm, CachedStatisticsEqualRecomputedOnes) {
  const LllvmProblem problem = swiss_roll_problem(40, 5, 2);
  LllvmState state = state_after(problem, 3);
  BoundStatistics cached = bound_statistics(problem, state);
  for (int step = 0; step < 2; ++step) {
    step == 0 ? update_q_x(problem, state, cached) : update_q_c(problem, state, cached);
    const BoundStatistics fresh = bound_statistics(problem, state);
    EXPECT_NEAR(cached.quadratic_form, fresh.quadratic_form, 1e-10 * std::abs(fresh.quadratic_form));
    EXPECT_NEAR(cached.log_det_cov_x, fresh.log_det_cov_x, 1e-9 * std::abs(fresh.log_det_cov_x));
    EXPECT_NEAR(cached.log_det_cov_c, fresh.log_det_cov_c, 1e-9 * std::abs(fresh.log_det_cov_c));
  }
}

// q(x) maximises the bound with q(C) and the hyperparameters fixed: moving its mean or covariance
// either way lowers the bound, and the bound's gradient in the mean, <b> - Lambda_x mean_x, vanishes.
TEST(LllvmEm, QxUpdateIsAMaximiser) {
  const LllvmProblem problem = swiss_roll_problem(40, 5, 2);
  LllvmState state = state_after(problem, 3);
  BoundStatistics statistics = bound_statistics(problem, state);
  update_q_x(problem, state, statistics);
  const double best = bound_of(problem, state);
  const Vector direction = random_matrix(problem.latent_size(), 1, 9, 41);
  for (const double t : {-1e-3, 1e-3}) {
    LllvmState moved = state;
    moved.mean_x += t * state.mean_x.norm() / direction.norm() * direction;
    EXPECT_LT(bound_of(problem, moved), best);
    for (const auto& perturb : covariance_perturbations(problem.latent_size())) {
      LllvmState widened = state;
      widened.cov_x = perturb(state.cov_x, t);
      EXPECT_LT(bound_of(problem, widened), best);
    }
  }
  const auto bound_in_mean = [&](const Vector& mean) {
    LllvmState s = state;
    s.mean_x = mean;
    return bound_of(problem, s);
  };
  const Vector gradient = finite_difference_gradient(bound_in_mean, state.mean_x, 1e-5);
  const Vector b = expected_b(problem, state.mean_c, state.gamma);
  EXPECT_LT(gradient.cwiseAbs().maxCoeff(), 1e-6 * b.cwiseAbs().maxCoeff());
}

TEST(LllvmEm, QcUpdateIsAMaximiser) {
  const LllvmProblem problem = swiss_roll_problem(40, 5, 2);
  LllvmState state = state_after(problem, 3);
  BoundStatistics statistics = bound_statistics(problem, state);
  update_q_c(problem, state, statistics);
  const double best = bound_of(problem, state);
  const Matrix direction = random_matrix(problem.data_dims(), problem.latent_size(), 9, 42);
  for (const double t : {-1e-3, 1e-3}) {
    LllvmState moved = state;
    moved.mean_c += t * state.mean_c.norm() / direction.norm() * direction;
    EXPECT_LT(bound_of(problem, moved), best);
    for (const auto& perturb : covariance_perturbations(problem.latent_size())) {
      LllvmState widened = state;
      widened.cov_c = perturb(state.cov_c, t);
      EXPECT_LT(bound_of(problem, widened), best);
    }
  }
}

// The closed-form gamma is the bound's maximiser in gamma: d bound / d log gamma = 0 by central
// differences, relative to the size of its two opposing parts (d_y (n - 1) / 2 each).
TEST(LllvmEm, ClosedFormGammaIsStationary) {
  const LllvmProblem problem = swiss_roll_problem(40, 5, 2);
  LllvmState state = state_after(problem, 3);
  const BoundStatistics statistics = bound_statistics(problem, state);
  state.gamma = optimal_gamma(problem, state, statistics);
  const auto bound_at = [&](double log_gamma) {
    LllvmState s = state;
    s.gamma = std::exp(log_gamma);
    return lllvm_bound(problem, s, statistics).total();
  };
  const double h = 1e-4, log_gamma = std::log(state.gamma);
  const double derivative = (bound_at(log_gamma + h) - bound_at(log_gamma - h)) / (2.0 * h);
  const double scale = 0.5 * static_cast<double>(problem.data_dims() * (problem.nodes() - 1));
  EXPECT_LT(std::abs(derivative) / scale, 1e-6);
  EXPECT_LT(bound_at(log_gamma + 1e-2), bound_at(log_gamma));
  EXPECT_LT(bound_at(log_gamma - 1e-2), bound_at(log_gamma));
}

// alpha's root satisfies its stationarity condition and is the bound's maximiser in alpha.
TEST(LllvmEm, AlphaRootIsStationary) {
  const LllvmProblem problem = swiss_roll_problem(40, 5, 2);
  LllvmState state = state_after(problem, 3);
  state.alpha = optimal_alpha(problem, state);
  const double lhs = static_cast<double>(problem.latent_dims) *
                     (state.alpha + 2.0 * problem.spectrum.eigenvalues.array()).inverse().sum();
  const double rhs = state.cov_x.trace() + state.mean_x.squaredNorm();
  EXPECT_NEAR(lhs, rhs, 1e-12 * rhs);
  const BoundStatistics statistics = bound_statistics(problem, state);
  const auto bound_at = [&](double log_alpha) {
    LllvmState s = state;
    s.alpha = std::exp(log_alpha);
    return lllvm_bound(problem, s, statistics).total();
  };
  const double h = 1e-4, log_alpha = std::log(state.alpha);
  const double derivative = (bound_at(log_alpha + h) - bound_at(log_alpha - h)) / (2.0 * h);
  EXPECT_LT(std::abs(derivative) / (0.5 * state.alpha * rhs), 1e-6);
}

// Optimising alpha lets the bound climb towards the no-manifold model: alpha grows by orders of
// magnitude, the latent means shrink towards 0, and the final bound beats the fixed-alpha fit's.
TEST(LllvmEm, FreeAlphaCollapsesTheEmbedding) {
  const LllvmProblem problem = swiss_roll_problem(60, 6, 2);
  LllvmOptions options;
  options.max_iterations = 60;
  options.relative_tolerance = 0.0;
  const LllvmFit fixed = fit_lllvm(problem, options);
  options.alpha_policy = AlphaPolicy::optimised;
  options.alpha = 1.0;
  CapturedLog log;
  const LllvmFit free = fit_lllvm(problem, options);
  EXPECT_TRUE(log.any_warning_contains("collapse"));
  EXPECT_GT(free.state.alpha, 100.0);
  const double rms_fixed = fixed.state.mean_x.norm() / std::sqrt(static_cast<double>(problem.latent_size()));
  const double rms_free = free.state.mean_x.norm() / std::sqrt(static_cast<double>(problem.latent_size()));
  EXPECT_LT(rms_free, 1e-6 * rms_fixed);
  EXPECT_GT(free.final_bound(), fixed.final_bound());
}

}  // namespace
}  // namespace gplvm::testing
