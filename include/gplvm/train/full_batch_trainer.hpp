#pragma once
// Full-batch training of any Model with a FullBatchObjective (Model::make_full_batch_objective):
// maximise it over every parameter with PETSc TAO's L-BFGS (TAOBLMVM, unbounded).
//
// Distribution, as the exact trainer's: TAO's vector is the model's shared block on rank 0
// followed by every rank's own local block (rank r's slice: its local block, preceded on rank 0
// by the shared block). Each evaluation broadcasts the shared block from rank 0, evaluates the
// objective collectively, and hands TAO rank 0's copy of the (replicated) shared gradient and
// each rank's own local gradient. Collective; needs a live PetscSession.
//
// With FullBatchOptions::replicated (train.reproducible) TAO's vector is instead replicated: a
// sequential vector on every rank holding the shared block and every row's local values in global
// row order, so every rank runs the same L-BFGS arithmetic (PETSc's dot products and norms over a
// distributed vector add the ranks' parts in an order that follows the rank count). Each
// evaluation takes this rank's rows from it and gathers every rank's local gradient rows (a move,
// no sum). With an objective whose sums do not depend on the rank count, the run is then the same
// bits at any rank count. Memory: about 38 vectors of (shared + N x local values per row) doubles
// on every rank; a run that would not fit is refused (InputError naming train.reproducible).
#include <functional>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/train/training_state.hpp"

namespace gplvm {

struct FullBatchOptions {
  // TAO's gradient tolerances on the objective's gradient (0 switches one off).
  double gatol = 1e-5;
  double grtol = 1e-8;
  double gttol = 0;  // ||g|| / ||g_0||
  int max_iterations = 2000;
  double frtol = 0;  // converged when the objective changed by <= frtol |objective| over 10 iterations
  // Called on every rank after each iteration (0 = initial point) with the objective (maximised).
  std::function<void(int iteration, double objective, double gradient_norm)> on_iteration;
  // Polled after each iteration; must answer the same on every rank.
  std::function<bool()> should_stop;
  // TAO's vector replicated on every rank (file comment), for train.reproducible.
  bool replicated = false;
};

struct FullBatchResult {
  Vector params;              // the model's parameters at the end (this rank's layout)
  double objective = 0;       // at params
  std::vector<double> curve;  // objective after each iteration, the initial point first
  TaoStopReason reason = TaoStopReason::still_iterating;
  std::string reason_text;  // why it stopped, in words (TAO's reason, or the Riemannian trainer's)
  bool converged = false;
  int iterations = 0;
  std::int64_t evaluations = 0;
  double gradient_norm = 0;
  // After a stop (reason stop_requested): L-BFGS's memory, which a solve resumed from params with
  // it continues exactly as this one would have (TaoMemory); lbfgs_restorable false (lbfgs empty)
  // when it could not be recorded (TaoResult::memory_restorable).
  bool lbfgs_restorable = false;
  LbfgsMemory lbfgs;
};

// `memory`: a stopped run's FullBatchResult::lbfgs, initial_params its params: L-BFGS continues with
// it instead of an empty memory (InputError on every rank if it does not fit the model).
FullBatchResult train_full_batch(const Model& model, const FullBatchObjective& objective,
                                 const Communicator& comm, const Vector& initial_params,
                                 const FullBatchOptions& options = {}, const LbfgsMemory* memory = nullptr);

}  // namespace gplvm
