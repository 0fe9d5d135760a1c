#pragma once
// Full-batch training of a Model whose free latents are points of a curved space
// (Model::curved_point_space(), e.g. the hyperboloid of the point, sparse and Bayesian hGP-LVM):
// L-BFGS would move them off the space, so every iteration takes a Riemannian step of the point
// rows and of the replicated points (Model::curved_shared_points: inducing inputs) (gradient made
// tangent, exponential map) and a Euclidean step of everything else (kernel log-hyperparameters,
// log noise, any non-point columns of the local block: the Bayesian kind's log variances). Two
// methods (optim.method):
//   - adam: Riemannian Adam (optim/riemannian_adam.hpp) on the points, Adam on the rest; stops
//     when an iteration changes the objective by at most `tolerance`;
//   - paper_gd: the optimiser of the hGP-LVM paper's code (Watanabe et al. 2025): plain Riemannian
//     gradient ascent with each point's chart gradient clipped to norm 1, the log-parametrised
//     values stepped in natural units (gradient clipped to |g| <= 1, kernel and noise floored at
//     1e-10; the Bayesian kind's variances as standard deviations, floored at 1e-8 and held for
//     the first 100 iterations), a trial accepted only if it
//     increases the objective (else the rate falls tenfold), and a stop when a trial changes the
//     objective by at most `tolerance`.
// An active set (Model::active_set: inducing inputs that are copies of latents) is drawn before the
// first evaluation and redrawn after every `every` iterations (models/active_set.hpp), the iterate
// then evaluated again; paper_gd restarts at the rate 1e-3 after each redraw, as the paper's code.
// An objective whose Monte Carlo noise is redrawn per iteration (FullBatchObjective::redraws_noise)
// gets draw i for iteration i: paper_gd evaluates the iterate again under it, so the trial and the
// value it must beat share their samples; adam evaluates step i's iterate under it.
// Distribution: each rank moves its own point rows; the shared block's gradient is the same on
// every rank, so every rank takes the same shared step; the accept decision is rank 0's.
// Collective.
#include <functional>
#include <limits>

#include "gplvm/models/model.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/train/full_batch_trainer.hpp"

namespace gplvm {

enum class RiemannianMethod { adam, paper_gd };

// Where a Riemannian run stands after `iteration` iterations (counted from the run's first start), so
// that a run stopped there and resumed from it continues as the uninterrupted one, bit for bit:
// adam's moments and step count in the parameters' layout (each point's first moment, a tangent
// vector, at its coordinates; its one second moment at each of its coordinates; the other
// parameters' moments at theirs) and paper_gd's rate. A checkpoint keeps it (TrainingState::adam,
// TrainingState::step_rate).
struct RiemannianState {
  std::uint64_t iteration = 0;
  AdamState moments;  // adam
  double rate = 0;    // paper_gd
};

struct RiemannianFullBatchOptions {
  RiemannianMethod method = RiemannianMethod::adam;
  // adam: Adam's options for both blocks; paper_gd: learning_rate is the initial rate.
  AdamOptions adam;
  double tolerance = 1e-5;  // stop when an iteration (paper_gd: a trial) changes F by <= this
  // Stop once the iterate's objective exceeds this (the hGP-LVM paper's code stops its point model
  // at F > -100); +infinity: never.
  double stop_above = std::numeric_limits<double>::infinity();
  int max_iterations = 2000;
  std::function<void(int iteration, double objective, double gradient_norm)> on_iteration;
  std::function<bool()> should_stop;  // must answer the same on every rank
  // A stopped run's final state (params its iterate): the run continues from it, its iterations
  // numbered on from resume->iteration (the noise draws, the active-set schedule and paper_gd's
  // held variances follow the absolute count; max_iterations counts this run's).
  const RiemannianState* resume = nullptr;
};

// InputError (naming model.latent_space) if the model has no curved point space. The result's
// reason is stop_requested after should_stop, max_iterations at the limit; converged is true on the
// tolerance or above stop_above (reason_text says which).
// `final_state`, when given, receives the state at the end (what a checkpoint keeps).
FullBatchResult train_full_batch_riemannian(const Model& model, const FullBatchObjective& objective,
                                            const Communicator& comm, const Vector& initial_params,
                                            const RiemannianFullBatchOptions& options,
                                            RiemannianState* final_state = nullptr);

}  // namespace gplvm
