#pragma once
// LL-LVM's variational lower bound, term by term (docs/math/lllvm.md, "The bound"):
//   L = E_q[log p(y | x, C)] - KL(q(C) || p(C)) - KL(q(x) || p(x)),
// the expected log-likelihood split into its four parts.
//
// Three of its inputs cost a dense form or factorisation each: the expected quadratic form
// Q = tr(Phi_Gamma(<x x^T>; L^+) <C^T C>) = tr(Phi_A(<C^T C>; L^+) <x x^T>) and the log-determinants
// of cov_x and cov_c. The E-step updates leave them as by-products (BoundStatistics), so the bound
// after every sub-update costs O((n d_x)^2); bound_statistics recomputes them from any state.
#include "gplvm/core/types.hpp"
#include "gplvm/lllvm/lllvm_problem.hpp"
#include "gplvm/lllvm/lllvm_state.hpp"

namespace gplvm {

struct BoundStatistics {
  double quadratic_form = 0.0;  // Q: E_q[e^T Sigma_y e] = (gamma / 2) Q
  double log_det_cov_x = 0.0;
  double log_det_cov_c = 0.0;
};

struct LllvmBound {
  double expected_quadratic = 0.0;  // -(1/2) E_q[e^T Sigma_y e] = -(gamma / 4) Q
  double expected_linear = 0.0;     // E_q[y^T e] = gamma tr(mean_c^T H(mean_x))
  double data_quadratic = 0.0;      // -(1/2) y^T Sigma_y^-1 y
  double log_normaliser = 0.0;      // -(1/2) log |2 pi Sigma_y|
  double neg_kl_c = 0.0;            // -KL(q(C) || p(C))
  double neg_kl_x = 0.0;            // -KL(q(x) || p(x))
  double expected_log_likelihood() const {
    return expected_quadratic + expected_linear + data_quadratic + log_normaliser;
  }
  double total() const { return expected_log_likelihood() + neg_kl_c + neg_kl_x; }
};

// From scratch: Phi_Gamma of <x x^T> and Cholesky factorisations of cov_x and cov_c (NumericalError
// naming the covariance if one is not positive definite).
BoundStatistics bound_statistics(const LllvmProblem& problem, const LllvmState& state);

LllvmBound lllvm_bound(const LllvmProblem& problem, const LllvmState& state,
                       const BoundStatistics& statistics);

}  // namespace gplvm
