#pragma once
// The exact GPLVM objective on ScaLAPACK: the same quantity as exact_log_marginal_likelihood
// (gp_marginal.hpp), for N too large for one process.
//
//   log p(Y | X) = -N D / 2 log 2 pi - D / 2 log |K + s2 I| - 1/2 ||L^{-1} Y||_F^2,  L L^T = K + s2 I.
//
// Layout. The latents X (N x Q, small) are replicated; Y arrives in the training code's layout,
// each rank holding its RowPartition block of rows. K + s2 I lives 2-D block-cyclically on a
// Pr x Pc BLACS grid and every rank generates only its own blocks from the replicated latents, so
// no N x N data is ever communicated; Y is moved to the block-cyclic layout with pdgemr2d.
//
// Work and memory per rank: N^3 / (3P) flops for pdpotrf (the rest is O(N^2 D / P)), about
// 8 N^2 / P bytes for the one N x N matrix (the factor, later K^{-1} and the adjoint in place) and
// 8 N D / P for Y (later L^{-1} Y, then alpha). See exact_distributed_bytes_per_rank.
//
// Every function here is collective over the communicator: every rank calls it with the same
// replicated arguments and gets the same results. Ranks outside a grid smaller than the
// communicator own no blocks and contribute zeros to the reductions. Bad input throws InputError
// on every rank alike (local checks, such as a wrong row count on one rank, are agreed first).
#include <memory>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/linalg/cholesky.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/objectives/gp_marginal.hpp"
#include "gplvm/parallel/blacs_grid.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

struct ExactDistributedOptions {
  // MB = NB of every distributed matrix; need not divide N. 128 from the pdpotrf sweeps on 2 ranks
  // on three machines (bench/tune_pdpotrf_block.py, docs/benchmarks.md, "The exact path"): the
  // block size whose worst pdpotrf / (dpotrf x ranks) at N = 5,000 and 10,000 is highest. 128:
  // 0.79-0.83 (Zen 5), 0.75-0.84 (Zen 4), 0.81-0.85 (Intel Xeon); 96: 0.86-0.88, 0.70-0.79 and
  // 0.72-0.83. No size is best everywhere; users tune it with exact.block_size / --block.
  int block_size = 128;
  int grid_rows = 0;  // Pr x Pc <= P; 0 x 0: BlacsGrid::default_shape on all ranks
  int grid_cols = 0;
  bool with_gradient = true;  // for exact_log_marginal_likelihood_distributed and the estimate
  bool check_memory = true;   // refuse (InputError) before allocating what does not fit
  CholeskyOptions cholesky;   // the jitter policy, shared with the serial CholeskyFactor
};

struct ExactPrediction {
  Matrix mean;      // M x D: K_{*N} alpha
  Vector variance;  // M: k(x*, x*) + s2 - ||L^{-1} K_{N*}||^2 per test point (shared by the D outputs)
};

// The Jacobian of the predictive mean at each test point and its covariance (models/gp_posterior.hpp):
//   E[J] = alpha^T G (D x Q),  Sigma_J = H - ||L^{-1} G||^2-Gram (Q x Q),  G = d K_{N*} / dx*.
struct ExactJacobianPrediction {
  std::vector<Matrix> mean;
  std::vector<Matrix> covariance;
};

// Estimated peak bytes on the busiest rank for N points, D outputs, `ranks` processes and the
// options' grid and block size: the local part of the N x N matrix and of the N x D blocks, the
// row-block copy of Y and the redistribution buffers, and ScaLAPACK's panel workspaces. The
// replicated N x Q latents and gradients are not counted (N Q << N^2 / P), nor is predict()'s
// workspace (test points go in chunks of about N / 4 columns: under a quarter more).
// A double so that absurd sizes do not overflow.
double exact_distributed_bytes_per_rank(Index n, Index d, int ranks, const ExactDistributedOptions& options);

// What this rank may use: min(MemAvailable, the cgroup's remaining limit) divided by the number of
// ranks on this node (MPI_COMM_TYPE_SHARED). Collective; +infinity if /proc/meminfo is unreadable.
double available_bytes_per_rank(const Communicator& comm);

// Throws InputError ("needs X GiB per rank, Y GiB available; use more ranks/nodes") on every rank
// unless the estimate fits in the smallest per-rank availability. Collective.
void check_exact_distributed_memory(Index n, Index d, const Communicator& comm,
                                    const ExactDistributedOptions& options);

class ExactDistributedGp {
 public:
  // Validates, checks memory, factorises K + s2 I (escalating jitter exactly as CholeskyFactor, the
  // warnings logged on rank 0 only) and evaluates the log marginal likelihood.
  // X: the latents of all N points (replicated); Y_local: this rank's rows
  // [partition.begin(rank), +count) of Y; partition over comm.size() ranks.
  ExactDistributedGp(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                     const DataRef& Y_local, const RowPartition& partition, const Communicator& comm,
                     const ExactDistributedOptions& options = {});
  ~ExactDistributedGp();
  ExactDistributedGp(const ExactDistributedGp&) = delete;
  ExactDistributedGp& operator=(const ExactDistributedGp&) = delete;

  double log_marginal_likelihood() const noexcept;
  double jitter() const noexcept;  // added to the diagonal by the escalation (0 if none)
  const BlacsGrid& grid() const noexcept;

  // Predictive mean and variance at the replicated test latents X_star (M x Q), on every rank.
  // Needs the Cholesky factor: call before gradient(), which overwrites it (Error otherwise).
  ExactPrediction predict(const ConstMatrixRef& X_star);
  // E[J] and Sigma_J at the replicated test latents, on every rank; needs the factor, as predict().
  // InputError naming model.kernel when the kernel has no second input derivative.
  ExactJacobianPrediction predict_jacobian(const ConstMatrixRef& X_star);

  // dL/dX, dL/dhyperparameters, dL/dlog s2 (value included), on every rank. Overwrites the factor
  // with K^{-1} and then the adjoint (no second N x N matrix); later calls return the same result.
  GpGradient gradient();

  // This rank's RowPartition block of rows of alpha = (K + s2 I)^{-1} Y (the partition Y came in):
  // dL/dY = -alpha, for objectives whose Y depends on parameters. Before or after gradient().
  RowMatrix local_alpha();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The value and, if options.with_gradient, the gradients: the distributed counterpart of
// exact_log_marginal_likelihood (same GpGradient, identical on every rank).
GpGradient exact_log_marginal_likelihood_distributed(const Kernel& kernel, double noise_variance,
                                                     const ConstMatrixRef& X, const DataRef& Y_local,
                                                     const RowPartition& partition, const Communicator& comm,
                                                     const ExactDistributedOptions& options = {});

}  // namespace gplvm
