#pragma once
// The ProbDR Wishart covariance objective (the PCA / probabilistic-PCA / GPLVM-with-linear-kernel
// member; docs/math/probdr.md):
//
//   f(X, s2) = d/2 [log|C| + tr(C^{-1} S_hat)],   C = X X^T + s2 I_n,   S_hat = F F^T,
//
// the KL from W(S_hat, d) to W(C, d) less its X-free part, to be minimised. F (n x d, e.g. the
// zero-mean data over sqrt(d)) and X (n x l) are distributed by rows alike: each rank holds the same
// rows of both. Nothing n x n is formed: with A = s2 I_l + X^T X (l x l) and G = F^T X (d x l),
//
//   log|C| = (n - l) log s2 + log|A|,   tr(C^{-1} S_hat) = (||F||^2 - tr(A^{-1} G^T G)) / s2,
//
// so an evaluation needs X^T X and F^T X summed over the ranks: ONE allreduce of l^2 + d l doubles,
// after which every rank holds the same small pieces and forms its own rows of the gradient. The
// X-free n and ||F||^2 are summed once, at construction. Cost per evaluation O(n d l / P + d l^2 +
// l^3); the l x l and d x l pieces are replicated, so d may be large but not d^2.
#include "gplvm/core/types.hpp"
#include "gplvm/objectives/wishart_noise.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class WishartCovariance {
 public:
  // Collective. `local_factor` is this rank's rows of F; `degrees_of_freedom` is the Wishart's d
  // (F's column count for PCA; any positive value for another moment: it scales f only).
  WishartCovariance(const Communicator& comm, RowMatrix local_factor, double degrees_of_freedom);

  // Collective: f at (X, s2), and its gradients when `with_gradient`. `local_latents` are this
  // rank's rows of X (as many as of F). InputError unless s2 > 0 and finite.
  WishartEvaluation evaluate(const ConstMatrixRef& local_latents, double noise_variance,
                             bool with_gradient = true) const;

  Index num_rows() const noexcept { return num_rows_; }  // n, over all ranks
  double degrees_of_freedom() const noexcept { return dof_; }
  double trace() const noexcept { return trace_; }  // tr S_hat = ||F||_F^2
  const RowMatrix& local_factor() const noexcept { return factor_; }

 private:
  const Communicator& comm_;
  RowMatrix factor_;
  double dof_;
  Index num_rows_ = 0;
  double trace_ = 0.0;
};

}  // namespace gplvm
