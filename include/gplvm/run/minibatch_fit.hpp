#pragma once
// The minibatch fitting method (`adam`): Adam steps on batches (Riemannian Adam for points of a
// curved latent space) with checkpoints, --resume, the stopping rule and divergence rollback, then
// the run file (a checkpoint and kExitStopped when a stop signal ends it early).
#include "gplvm/run/fitting_method.hpp"

namespace gplvm {

int fit_by_minibatch_steps(const FitRun& run);

}  // namespace gplvm
