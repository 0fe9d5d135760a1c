#pragma once
// Everything that determines how a run continues: parameters, optimiser state and the step
// counter. Batches and noise are keyed by (seed, epoch, step), so a run restored from this state
// continues exactly as if it had never stopped.
#include <cstdint>
#include <vector>

#include "gplvm/optim/adam.hpp"
#include "gplvm/train/convergence_monitor.hpp"

namespace gplvm {

struct CurvePoint {
  std::uint64_t step = 0;
  std::uint64_t epoch = 0;
  double objective = 0.0;
  double wall_seconds = 0.0;
};

// Full-batch L-BFGS's memory (TaoMemory) in the model's parameter layout (this process's view:
// shared block + its local block), oldest point first: TAO's iterates and the projected gradients of
// its minimised objective (the negated one) there, with that objective and the gradient's norm.
// Empty: none (a fresh memory on resume).
struct LbfgsMemory {
  std::vector<Vector> x, gradient;
  std::vector<double> objective, gradient_norm;
  std::size_t size() const noexcept { return x.size(); }
};

struct TrainingState {
  Vector params;              // this process's view: shared block + its local block
  AdamState adam;             // same layout as params
  std::uint64_t step = 0;     // steps completed
  double wall_seconds = 0.0;  // training time accumulated before this process started
  std::vector<CurvePoint> curve;
  ConvergenceState convergence;  // the stopping rule's, the best-so-far's and the rollbacks' state
  Vector best_params;            // parameters at convergence.best_step (layout of params; empty: none yet)
  LbfgsMemory lbfgs;             // full-batch training's L-BFGS memory at the step (empty: none)
  // Full-batch riemannian_gd_paper's step rate at the step (0: none); riemannian_adam keeps its
  // moments in `adam` (train/riemannian_full_batch_trainer.hpp, RiemannianState).
  double step_rate = 0.0;
};

}  // namespace gplvm
