#pragma once
// The ProbDR Wishart covariance objective (the PCA / probabilistic-PCA / GPLVM-with-linear-kernel
// member; docs/math/probdr.md):
//
//   f(X, s2) = d/2 [log|C| + tr(C^{-1} S_hat)],   C = X X^T + s2 I_n,
//
// the KL from W(S_hat, d) to W(C, d) less its X-free part, to be minimised. S_hat comes through a
// CovarianceOperator (covariance_operator.hpp): a low-rank factor F F^T (PCA, F the zero-mean data
// over sqrt(d)), dense rows (classical MDS, kernel PCA) or anything else that applies it to X by
// rows. X (n x l) is distributed by rows like S_hat. Nothing n x n is formed: with A = s2 I_l + X^T X
// (l x l) and M = X^T S_hat X (l x l),
//
//   log|C| = (n - l) log s2 + log|A|,   tr(C^{-1} S_hat) = (tr S_hat - tr(A^{-1} M)) / s2,
//
// so an evaluation needs S_hat X (the operator's apply, with its own communication: an allgather of
// X for dense rows) and X^T X, X^T S_hat X summed over the ranks in ONE allreduce of 2 l^2 doubles.
// A LowRankCovariance is seen through its factor instead: X^T X and G = F^T X in ONE allreduce of
// l^2 + d l doubles, M = G^T G and S_hat X = F G. Every rank then holds the same small pieces and
// forms its own rows of the gradient. n and tr S_hat are summed once, at construction. Cost per evaluation:
// the apply (O(n d l / P) for a factor, O(n^2 l / P) for dense rows) plus O(n l^2 / P + l^3).
#include <memory>

#include "gplvm/core/types.hpp"
#include "gplvm/objectives/covariance_operator.hpp"
#include "gplvm/objectives/wishart_noise.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class WishartCovariance {
 public:
  // Collective. `covariance` must outlive the objective; `degrees_of_freedom` is the Wishart's d
  // (any positive value for a moment other than Y Y^T / d: it scales f only).
  WishartCovariance(const Communicator& comm, const CovarianceOperator& covariance,
                    double degrees_of_freedom);
  // Collective. S_hat = F F^T from this rank's rows of F (a LowRankCovariance the objective owns);
  // `degrees_of_freedom` is F's column count for PCA.
  WishartCovariance(const Communicator& comm, RowMatrix local_factor, double degrees_of_freedom);

  // Collective: f at (X, s2), and its gradients when `with_gradient`. `local_latents` are this
  // rank's rows of X (as many as of S_hat). InputError unless s2 > 0 and finite.
  WishartEvaluation evaluate(const ConstMatrixRef& local_latents, double noise_variance,
                             bool with_gradient = true) const;

  Index num_rows() const noexcept { return num_rows_; }  // n, over all ranks
  double degrees_of_freedom() const noexcept { return dof_; }
  double trace() const noexcept { return trace_; }  // tr S_hat
  const CovarianceOperator& covariance() const noexcept { return covariance_; }

 private:
  void sum_constants();  // checks d, then n and tr S_hat (collective)

  const Communicator& comm_;
  std::unique_ptr<CovarianceOperator> owned_;  // the factor constructor's operator; null otherwise
  const CovarianceOperator& covariance_;
  double dof_;
  Index num_rows_ = 0;
  double trace_ = 0.0;
};

}  // namespace gplvm
