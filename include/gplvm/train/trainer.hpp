#pragma once
// The data-parallel training loop for any Model: batches from the schedule, the model's
// TrainingStep per batch, sharded Adam on every rank, the training curve, progress lines from
// rank 0 and checkpoints.
#include <functional>
#include <memory>
#include <string>

#include "gplvm/models/model.hpp"
#include "gplvm/optim/learning_rate_schedule.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "gplvm/train/convergence_monitor.hpp"
#include "gplvm/train/phase_breakdown.hpp"
#include "gplvm/train/training_state.hpp"

namespace gplvm {

enum class DivergenceAction { rollback, stop };
DivergenceAction parse_divergence_action(const std::string& name);  // "rollback" | "stop"

struct TrainerOptions {
  std::uint64_t batch_size = 1024;
  std::uint64_t epochs = 1;
  std::uint64_t max_steps = 0;    // 0: run all epochs; else stop after this many steps in total
  AdamOptions adam;               // adam.learning_rate is the schedule's base rate
  LearningRateSchedule schedule;  // base_rate and total_steps are taken from adam and the run
  double clip_norm = 0.0;         // > 0: scale the gradient to this global 2-norm where it is larger
  ConvergenceOptions convergence;
  DivergenceAction on_divergence = DivergenceAction::rollback;
  double rollback_lr_factor = 0.5;     // each rollback multiplies the learning rate by this
  std::uint64_t max_rollbacks = 3;     // one more divergence stops the run
  std::uint64_t checkpoint_every = 0;  // steps between checkpoints; 0: only at the end
  double progress_seconds = 5.0;       // rank 0 prints a line this often
  std::uint64_t seed = 0;
};

// Why a run ended: its stopping rule fired (converged), it reached its last step, it diverged
// beyond recovery, or a stop request ended it.
enum class StopReason { tolerance, max_steps, diverged, stopped };
std::string to_string(StopReason reason);  // "tolerance" | "max_steps" | "diverged" | "stopped"

// What one call of Trainer::run did, for summaries and benchmarks.
struct TrainRunStats {
  bool finished = false;  // converged or reached total_steps (false: stopped or diverged)
  StopReason reason = StopReason::max_steps;
  std::uint64_t divergence_step = 0;  // diverged: the step whose objective or gradient failed
  std::string divergence;             // diverged: what failed
  std::uint64_t steps = 0;            // steps taken in this call
  std::uint64_t points = 0;           // data rows processed (batches hold B to 2B-1 rows)
  double seconds = 0.0;               // wall time of those steps
  std::uint64_t bytes_sent = 0;       // bytes this rank contributed to collectives in those steps
  // Where this rank's time went (core/phase_clock.hpp), checkpoints included: phases.wall is
  // seconds plus the time spent writing checkpoints.
  PhaseSeconds phases;
};

class Trainer {
 public:
  // Called collectively with the state after `state.step` steps (every checkpoint_every steps).
  using CheckpointFn = std::function<void(const TrainingState&)>;
  // Polled after every step, collectively reduced: true on any rank stops the loop early.
  using StopFn = std::function<bool()>;

  // local_data: this rank's rows, as float64 or (for fp32 models, half the memory) float32.
  Trainer(const Model& model, const Communicator& comm, const RowPartition& partition, LocalRows local_data,
          TrainerOptions options);

  std::uint64_t total_steps() const;
  TrainingState initial_state() const;
  // Runs from state.step to total_steps() (or until stop() is true). Checkpoint time is excluded
  // from the statistics' seconds and bytes. Records the run's phases (core/phase_clock.hpp).
  TrainRunStats run(TrainingState& state, const CheckpointFn& checkpoint = {}, const StopFn& stop = {}) const;

 private:
  void validate_options() const;
  double learning_rate(const TrainingState& state) const;
  // The model's active set (Model::active_set) redrawn into state.params when state.step is a
  // multiple of its interval: refresh state.step / K (models/active_set.hpp). Collective.
  void refresh_due_active_set(TrainingState& state) const;
  void report_progress(const TrainingState& state, double objective, double gradient_norm, double seconds,
                       std::uint64_t points, bool final_line) const;

  const Model& model_;
  const Communicator& comm_;
  std::unique_ptr<TrainingStep> step_;
  BatchSchedule schedule_;
  TrainerOptions options_;
  ConvergenceMonitor monitor_;
};

}  // namespace gplvm
