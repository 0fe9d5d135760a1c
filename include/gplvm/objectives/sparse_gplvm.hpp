#pragma once
// The sparse GPLVM (point latents, Titsias 2009) and the Bayesian GPLVM (Gaussian latents
// q(x_n) = N(mu_n, diag s_n), Titsias & Lawrence 2010), distributed by partial sums
// (docs/math/sparse_gplvm.md). One evaluation of the collapsed bound, on every rank:
//
//   1. *_rows_statistics   this rank's rows -> its partial SparseStatistics (and the rows'
//                          Psi-statistics, kept for step 4)
//   2. SparseStatistics::allreduce                      ONE allreduce, M^2 + M D + 4 doubles
//   3. collapsed_bound (or uncollapsed_bound)           redundant on every rank, O(M^3 + M^2 D)
//   4. *_rows_backward     dF/dPsi1 = Y_local (dF/dP)^T etc. pushed through the kernel: the rows'
//                          latent gradients (LOCAL, never communicated) and partial dZ, dhyper
//   5. SharedGradient::allreduce                        ONE allreduce, M Q + H doubles
//   6. inducing_kernel_backward   dF/dK_ZZ -> dZ, dhyper: identical on every rank, added AFTER
//                          step 5 (or by one rank only before it), never summed over ranks
//
// Which gradients need a sum over ranks: dZ and the kernel hyperparameters' (step 5: the rows'
// share), and nothing else. Value, dF/dlog s2 and q(u)'s gradients come out of step 3 already
// global; dX (points) and d mu, d s (Gaussian) are local to the rows' owner. The KL of q(X) travels
// inside the statistics, so the value needs no extra reduction either.
//
// Minibatch (uncollapsed) training: the same steps on a batch's rows, with the reduced statistics
// scaled by N/B (SparseStatistics::scale) before uncollapsed_bound and its adjoint scaled back
// (StatisticsAdjoint::scaled(N/B)) before step 4.
//
// Suggested flat parameter layout for a model class (not defined here):
//   global, replicated on every rank, updated identically:
//     [ Z (M x Q, column-major) | kernel hyperparameters (Kernel::hyperparameters, H) | log s2 |
//       q(u) (uncollapsed only: InducingPosterior::pack, M D + M (M + 1)/2) ]
//   local, one block per rank over the rows it owns (never communicated):
//     points: X rows (N_loc x Q);  Gaussian: mu rows and log s rows (2 N_loc Q; chain
//     d/dlog s = s * d/ds on the d_variance returned here)
// so that the gradient's global block is exactly what steps 3, 5 and 6 produce.
#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/objectives/inducing_jitter.hpp"
#include "gplvm/objectives/sparse_statistics.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Gradients of the replicated inputs Z and kernel hyperparameters. Between steps 4 and 5 a rank
// holds its rows' partial sums.
struct SharedGradient {
  Matrix d_inducing;  // M x Q
  Vector d_kernel;    // H

  static SharedGradient zero(Index num_inducing, Index input_dim, Index num_hyperparameters);
  void allreduce(const Communicator& comm);  // one allreduce of M Q + H doubles
};

// Point latents X_local (N_loc x Q) with their data rows Y_local. psi receives the rows'
// Psi-statistics (psi1 = K_XZ) for the backward pass.
SparseStatistics point_rows_statistics(const Kernel& kernel, const ConstMatrixRef& Z,
                                       const ConstMatrixRef& X_local, const DataRef& Y_local,
                                       PsiStatistics& psi);
// ADDS dF/dX_local to d_latents (N_loc x Q) and the rows' dZ, dhyper to shared.
void point_rows_backward(const Kernel& kernel, const ConstMatrixRef& Z, const ConstMatrixRef& X_local,
                         const DataRef& Y_local, const PsiStatistics& psi, const StatisticsAdjoint& adjoint,
                         Matrix& d_latents, SharedGradient& shared);

// Gaussian latents (means and variances, N_loc x Q), through Kernel::psi_statistics; the
// statistics include the rows' KL(q(x_n) || N(0, I)).
SparseStatistics gaussian_rows_statistics(const Kernel& kernel, const ConstMatrixRef& Z,
                                          const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                                          const DataRef& Y_local, PsiStatistics& psi);
// ADDS dF/dmean, dF/dvariance (the KL's share included, weighted by adjoint.d_kl) and the rows'
// dZ, dhyper to shared.
void gaussian_rows_backward(const Kernel& kernel, const ConstMatrixRef& Z, const ConstMatrixRef& mean,
                            const ConstMatrixRef& variance, const DataRef& Y_local, const PsiStatistics& psi,
                            const StatisticsAdjoint& adjoint, Matrix& d_mean, Matrix& d_variance,
                            SharedGradient& shared);

// ADDS the gradient through K_ZZ = k(Z, Z) (adjoint G = dF/dK_ZZ) to shared (step 6).
void inducing_kernel_backward(const Kernel& kernel, const ConstMatrixRef& Z, const Matrix& inducing_kernel,
                              const Matrix& G, SharedGradient& shared);

// The collapsed bound and all its gradients, steps 1-6.
struct SparseGplvmGradient {
  double value = 0.0;      // global
  Matrix d_latents;        // local rows: dF/dX (points) or dF/dmean (Gaussian)
  Matrix d_variance;       // local rows, Gaussian only (empty for points)
  Matrix d_inducing;       // global (reduced)
  Vector d_kernel;         // global (reduced)
  double d_log_noise = 0;  // global
};
// relative_jitter: K_ZZ's jitter (inducing_jitter.hpp; 0 for the bound without it).
SparseGplvmGradient sparse_gplvm_bound(const Communicator& comm, const Kernel& kernel, double noise_variance,
                                       const ConstMatrixRef& Z, const ConstMatrixRef& X_local,
                                       const DataRef& Y_local,
                                       double relative_jitter = kInducingRelativeJitter);
SparseGplvmGradient bayesian_gplvm_bound(const Communicator& comm, const Kernel& kernel,
                                         double noise_variance, const ConstMatrixRef& Z,
                                         const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                                         const DataRef& Y_local,
                                         double relative_jitter = kInducingRelativeJitter);

}  // namespace gplvm
