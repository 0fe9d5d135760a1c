#pragma once
// The full-batch fitting methods: one optimisation of the model's full-batch objective over every
// row: L-BFGS (train/full_batch_trainer.hpp) on Euclidean latents, or Riemannian steps
// (train/riemannian_full_batch_trainer.hpp) when the latents lie on a curved space; then the run
// file, in the same format as a run trained by steps (one curve point per iteration).
#include <optional>

#include "gplvm/run/fitting_method.hpp"
#include "gplvm/train/riemannian_full_batch_trainer.hpp"

namespace gplvm {

// `riemannian` empty: L-BFGS. Returns the exit code (kExitStopped when a stop signal ended training
// early; the run file is written with the parameters reached). InputError naming sparse.training
// if the model has no full-batch objective, and naming --resume for an explicit checkpoint (a
// full-batch optimisation starts afresh: `--resume auto` finds nothing to resume).
int fit_full_batch(const FitRun& run, std::optional<RiemannianMethod> riemannian);

}  // namespace gplvm
