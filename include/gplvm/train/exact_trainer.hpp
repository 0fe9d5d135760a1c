#pragma once
// Full-batch training of the exact GPLVM from given initial latents: the exact model
// (models/exact_gplvm_model.hpp) maximised by full_batch_trainer's L-BFGS, with the options of a
// direct call (kernel, noise and its floor, tolerances, ScaLAPACK layout) rather than a config.
// `gplvm train` with model.kind = "exact" goes through the model registry instead; both run the
// same objective and the same minimiser. Collective over the communicator.
#include <functional>
#include <memory>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/models/exact_gplvm_objective.hpp"
#include "gplvm/models/gp_decoder.hpp"
#include "gplvm/models/pca_latents.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

struct ExactTrainingOptions {
  // Initial kernel (a kernel-registry expression and its initial values) and noise (the latents
  // are an argument, e.g. pca_latents); fixed_hyperparameters are held at their initial values.
  GpDecoderSettings decoder = {.kernel = "eq_ard", .init = {}, .noise_variance = 0.1};
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
