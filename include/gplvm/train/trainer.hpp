#pragma once
// The data-parallel training loop for any Model: batches from the schedule, the model's
// TrainingStep per batch, sharded Adam on every rank, the training curve, progress lines from
// rank 0 and checkpoints.
#include <functional>
#include <memory>
#include <string>

#include "gplvm/models/model.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "gplvm/train/training_state.hpp"

namespace gplvm {

struct TrainerOptions {
  std::uint64_t batch_size = 1024;
  std::uint64_t epochs = 1;
  std::uint64_t max_steps = 0;  // 0: run all epochs; else stop after this many steps in total
  AdamOptions adam;
  std::uint64_t checkpoint_every = 0;  // steps between checkpoints; 0: only at the end
  double progress_seconds = 5.0;       // rank 0 prints a line this often
  std::uint64_t seed = 0;
};

// What one call of Trainer::run did, for summaries and benchmarks.
struct TrainRunStats {
  bool finished = false;         // reached total_steps (false: stopped early)
  std::uint64_t steps = 0;       // steps taken in this call
  std::uint64_t points = 0;      // data rows processed (batches hold B to 2B-1 rows)
  double seconds = 0.0;          // wall time of those steps
  std::uint64_t bytes_sent = 0;  // bytes this rank contributed to collectives in those steps
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
  // from the statistics' seconds and bytes.
  TrainRunStats run(TrainingState& state, const CheckpointFn& checkpoint = {}, const StopFn& stop = {}) const;

 private:
  void validate_options() const;
  void report_progress(const TrainingState& state, double objective, double seconds, std::uint64_t points,
                       bool final_line) const;

  const Model& model_;
  const Communicator& comm_;
  std::unique_ptr<TrainingStep> step_;
  BatchSchedule schedule_;
  TrainerOptions options_;
};

}  // namespace gplvm
