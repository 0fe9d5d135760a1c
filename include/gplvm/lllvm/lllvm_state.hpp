#pragma once
// The variational posterior q(x) q(C) of LL-LVM and its hyperparameters (docs/math/lllvm.md,
// "Variational EM"): q(x) = N(mean_x, cov_x), q(C) matrix normal with mean mean_c and column
// covariance cov_c (cov(vec C) = cov_c (x) I_{d_y}), both in the dimension-major order.
#include <cstdint>

#include "gplvm/core/types.hpp"
#include "gplvm/lllvm/lllvm_problem.hpp"

namespace gplvm {

struct LllvmState {
  Vector mean_x;        // n d_x
  Matrix cov_x;         // n d_x x n d_x
  Matrix mean_c;        // d_y x n d_x: column r n + i is column r of C_i
  Matrix cov_c;         // n d_x x n d_x
  double gamma = 1.0;   // the noise precision of the local linear fits
  double alpha = 1e-3;  // the precision of x's prior about the origin
};

// <x x^T> = cov_x + mean_x mean_x^T.
Matrix second_moment_x(const LllvmState& state);
// <C^T C> = d_y cov_c + mean_c^T mean_c.
Matrix second_moment_c(const LllvmState& state);

// The start of EM, which updates q(x) first and so starts from q(C): mean_c standard normal (a pure
// function of `seed`), cov_c = I, q(x) at the prior's scale (mean 0, cov I) until its first update.
// InputError naming lllvm.gamma or lllvm.alpha unless they are positive and finite.
LllvmState initial_state(const LllvmProblem& problem, std::uint64_t seed, double gamma, double alpha);

}  // namespace gplvm
