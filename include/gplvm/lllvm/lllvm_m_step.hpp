#pragma once
// The M-step of LL-LVM (docs/math/lllvm.md, "The M-step"): the hyperparameters that maximise the
// bound with q(x) q(C) fixed.
//
// gamma has a closed form: the bound is b log gamma - a gamma + const in it, with
// b = d_y (n - 1) / 2 and a = Q / 4 - tr(mean_c^T <H>) + tr(Y^T L Y) > 0.
// alpha is the root of d_x sum_i 1 / (alpha + 2 omega_i) = tr(cov_x) + |mean_x|^2, whose left side
// falls strictly from +inf (omega_1 = 0) to 0, so the root is unique. Optimising alpha collapses
// the embedding (mean_x -> 0 as alpha grows without bound, the bound rising towards the no-manifold
// model); the fit keeps it fixed unless asked (lllvm_em.hpp).
#include "gplvm/lllvm/lllvm_bound.hpp"
#include "gplvm/lllvm/lllvm_problem.hpp"
#include "gplvm/lllvm/lllvm_state.hpp"

namespace gplvm {

// NumericalError naming lllvm.gamma if a <= 0 (the data fit worse than no model at all: not
// possible for a valid state, so a sign of a broken one).
double optimal_gamma(const LllvmProblem& problem, const LllvmState& state, const BoundStatistics& statistics);

// By bisection in log alpha within a bracket that provably holds the root, to rounding.
double optimal_alpha(const LllvmProblem& problem, const LllvmState& state);

}  // namespace gplvm
