#pragma once
// Full-batch training of the exact GPLVM: maximise the exact log marginal likelihood (the
// ScaLAPACK engine of objectives/exact_distributed.hpp) over the latents, the kernel's
// log-hyperparameters and the log noise variance with TAO's bound-constrained L-BFGS.
//
// Distribution. Data rows and their latents stay with the rank that owns them under the
// RowPartition; TAO's parameter vector is distributed the same way (below). Each evaluation
// allgathers the latents (N x Q doubles, small next to the N^2 / P of the kernel matrix),
// broadcasts the H + 1 hyperparameters from rank 0, and builds ExactDistributedGp; the gradient
// comes back replicated and each rank keeps its own rows' part.
//
// Every function here is collective over the communicator.
#include <functional>
#include <memory>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/models/pca_latents.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

// The negated exact log marginal likelihood as a DistributedObjective of flat parameters.
//
// Layout. The global parameter vector is [kernel log-hyperparameters (H), log noise variance,
// latents X row-major (N x Q)], the same at any rank count. Rank r's slice is its own rows'
// latents, preceded on rank 0 by the H + 1 shared parameters.
class ExactGplvmObjective {
 public:
  // Keeps a view of Y_local and a reference to comm, which must outlive the objective (pass a
  // row-major block: a DataRef bound to anything else holds a temporary copy that dies with the
  // call), and a clone of the kernel, whose hyperparameters each evaluation overwrites. Every
  // evaluation builds ExactDistributedGp with these options; with_gradient is forced on.
  ExactGplvmObjective(const Kernel& kernel, const DataRef& Y_local, const RowPartition& partition,
                      const Communicator& comm, ExactDistributedOptions options = {});
  ~ExactGplvmObjective();
  ExactGplvmObjective(const ExactGplvmObjective&) = delete;
  ExactGplvmObjective& operator=(const ExactGplvmObjective&) = delete;

  Index latent_dim() const noexcept;
  Index num_shared() const noexcept;  // H + 1
  Index local_rows() const noexcept;
  Index local_size() const noexcept;  // local_rows() * Q (+ H + 1 on rank 0)

  // This rank's slice from its latents (local_rows() x Q) and, used on rank 0 only, the kernel's
  // log-hyperparameters and the noise variance. Not collective.
  Vector pack(const ConstMatrixRef& latents_local, const ConstVectorRef& log_hyperparameters,
              double noise_variance) const;
  Matrix local_latents(const ConstVectorRef& local_x) const;  // not collective
  // Rank 0's [log-hyperparameters, log noise variance], on every rank (a broadcast).
  Vector shared_parameters(const ConstVectorRef& local_x) const;

  // -log p(Y | X, theta, s2) and this rank's slice of its gradient. Collective.
  double operator()(const ConstVectorRef& local_x, VectorRef local_gradient);
  std::int64_t evaluations() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct ExactTrainingOptions {
  // Initial kernel (a kernel-registry expression and its initial values) and noise (the latents
  // are an argument, e.g. pca_latents).
  std::string kernel = "eq_ard";
  double kernel_variance = 1.0;
  double lengthscale = 1.0;  // every latent dimension
  double kernel_period = 1.0;
  double noise_variance = 0.1;
  // Lower bound on the noise variance (the only bound; latents and kernel are free). The
  // likelihood of a GPLVM grows without limit as s2 -> 0 once the latents can interpolate the
  // data, and K + s2 I becomes numerically singular there; the floor keeps K + s2 I
  // well-conditioned relative to a unit-scale kernel (condition number <= ~N theta / s2).
  double min_noise_variance = 1e-6;
  // TAO's tolerances on the projected gradient of -LML (TaoOptions): ||g|| <= gatol,
  // ||g|| / |LML| <= grtol, ||g|| / ||g_0|| <= gttol; 0 switches one off.
  double gatol = 1e-5;
  double grtol = 1e-8;
  double gttol = 0;
  int max_iterations = 2000;
  // Block size, grid, memory check and jitter policy of ExactDistributedGp. The memory check runs
  // once before training, not at every evaluation; with_gradient is ignored (always on).
  ExactDistributedOptions gp;
  // Called on every rank after each iteration (iteration 0 = initial point), e.g. for progress.
  std::function<void(int iteration, double log_marginal_likelihood, double gradient_norm)> on_iteration;
  // Polled after each iteration; true stops training at the current parameters (reason
  // stop_requested). Must answer the same on every rank (e.g. stop_requested() agreed by allreduce).
  std::function<bool()> should_stop;
};

struct ExactTrainingResult {
  Matrix latents;                  // this rank's rows (partition.count(rank) x Q)
  std::shared_ptr<Kernel> kernel;  // with the trained hyperparameters
  double noise_variance = 0;
  double log_marginal_likelihood = 0;  // at the returned parameters
  std::vector<double> lml_curve;       // LML after each TAO iteration, the initial point first
  TaoStopReason reason = TaoStopReason::still_iterating;
  bool converged = false;  // stopped on a gradient tolerance
  int iterations = 0;
  std::int64_t evaluations = 0;  // objective + gradient evaluations (line search included)
  double gradient_norm = 0;      // projected gradient of -LML at the returned parameters
};

// Trains from the given latents (this rank's rows, partition.count(rank) x Q) and the options'
// initial kernel and noise. Needs a live PetscSession. InputError on every rank for bad options or
// inconsistent shapes; a failure inside an evaluation (e.g. NumericalError from the Cholesky
// factorisation) propagates unchanged.
ExactTrainingResult train_exact_gplvm(const DataRef& Y_local, const RowPartition& partition,
                                      const Communicator& comm, const ConstMatrixRef& initial_latents,
                                      const ExactTrainingOptions& options = {});

}  // namespace gplvm
