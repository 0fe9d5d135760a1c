#pragma once
// The E-step of LL-LVM's variational EM (docs/math/lllvm.md, "q(x)" and "q(C)"): each update sets
// one factor to the exact maximiser of the bound with the other factor and the hyperparameters
// fixed, so the bound cannot fall. q(x) is updated first, then q(C).
//
// Each update returns the bound's statistics for the state it leaves (lllvm_bound.hpp), read off
// what it computed anyway: the coupling form of the other factor's moment and the Cholesky factor
// of its new precision.
#include "gplvm/lllvm/lllvm_bound.hpp"
#include "gplvm/lllvm/lllvm_problem.hpp"
#include "gplvm/lllvm/lllvm_state.hpp"

namespace gplvm {

// q(x): precision (gamma / 2) Phi_A(<C^T C>; L^+) + I (x) (alpha I + 2 L), mean cov_x <b>.
// `statistics` keeps its log_det_cov_c; NumericalError naming the precision if it cannot be factorised.
void update_q_x(const LllvmProblem& problem, LllvmState& state, BoundStatistics& statistics);

// q(C): precision (gamma / 2) Phi_Gamma(<x x^T>; L^+) + I (x) (eps 1 1^T + 2 L), mean
// gamma <H> cov_c. `statistics` keeps its log_det_cov_x.
void update_q_c(const LllvmProblem& problem, LllvmState& state, BoundStatistics& statistics);

}  // namespace gplvm
