#include "gplvm/train/trainer.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"

namespace gplvm {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Trainer::Trainer(const Model& model, const Communicator& comm, const RowPartition& partition,
                 LocalRows local_data, TrainerOptions options)
    : model_(model),
      comm_(comm),
      step_(model.make_step(comm, partition, local_data)),
      schedule_(model.num_data(), options.batch_size, options.seed),
      options_(options) {
  validate_options();
}

void Trainer::validate_options() const {
  require(options_.epochs >= 1 || options_.max_steps >= 1, "training needs at least one epoch or step",
          {"", "train.epochs", std::to_string(options_.epochs)});
  // B <= N is the schedule's check (it names sas.batch_size); model-specific batch constraints
  // (SAS: 1 <= A < B) are checked where the model's settings are read.
}

std::uint64_t Trainer::total_steps() const {
  const std::uint64_t all = options_.epochs * schedule_.batches_per_epoch();
  return options_.max_steps > 0 ? std::min(all == 0 ? options_.max_steps : all, options_.max_steps) : all;
}

TrainingState Trainer::initial_state() const {
  TrainingState s;
  s.params = model_.initial_parameters();
  s.adam.first_moment = Vector::Zero(s.params.size());
  s.adam.second_moment = Vector::Zero(s.params.size());
  return s;
}

TrainRunStats Trainer::run(TrainingState& state, const CheckpointFn& checkpoint, const StopFn& stop) const {
  // The optimiser owns its moments while the loop runs; they are copied back into the state only
  // where someone reads them (a checkpoint, the end of the run). Copying them every step was two
  // vectors of the full parameter size per step: ~8.6 MB, 0.4-0.8 ms, 2-4% of an fp32 step.
  // Sharded over the ranks: each updates its slice of the encoder weights (ShardedAdam).
  ShardedAdam adam(comm_, state.params.size(), model_.summed_block(), options_.adam);
  adam.set_state(std::move(state.adam));
  // fp32 encoders: the step and Adam exchange the encoder's float weights and gradient directly
  // (optim/float32_shadow.hpp), the same values without two conversion passes per step. Only Adam
  // changes the parameters inside this loop, and it keeps the shadow's weights current.
  std::optional<Float32Shadow> shadow;
  if (model_.uses_float32_shadow()) shadow.emplace(model_.summed_block());
  Float32Shadow* const encoder_shadow = shadow ? &*shadow : nullptr;
  const auto start = Clock::now();
  auto last_report = start;
  const double base_seconds = state.wall_seconds;
  const std::uint64_t first_step = state.step, per_epoch = schedule_.batches_per_epoch();
  Vector gradient;
  TrainRunStats stats;
  double checkpoint_seconds = 0;
  std::uint64_t checkpoint_bytes = 0;
  const std::uint64_t bytes_before = comm_.bytes_sent();
  auto finish = [&](bool finished) {
    state.adam = adam.state();
    stats.finished = finished;
    stats.steps = state.step - first_step;
    stats.seconds = std::chrono::duration<double>(Clock::now() - start).count() - checkpoint_seconds;
    stats.bytes_sent = comm_.bytes_sent() - bytes_before - checkpoint_bytes;
    return stats;
  };
  while (state.step < total_steps()) {
    const std::uint64_t epoch = state.step / per_epoch, batch = state.step % per_epoch;
    const auto rows = schedule_.batch_rows(epoch, batch);
    const BatchTerms terms =
        step_->evaluate(state.params, rows, {epoch, batch}, gradient, &adam.slice_counts(), encoder_shadow);
    if (encoder_shadow)
      adam.ascend(state.params, gradient, *encoder_shadow);
    else
      adam.ascend(state.params, gradient);
    ++state.step;
    stats.points += rows.size();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    state.wall_seconds = base_seconds + seconds;
    state.curve.push_back({state.step, epoch, terms.objective, state.wall_seconds});
    const bool done = state.step == total_steps();
    if (std::chrono::duration<double>(Clock::now() - last_report).count() >= options_.progress_seconds ||
        done) {
      report_progress(state, terms.objective, seconds, stats.points, done);
      last_report = Clock::now();
    }
    if (checkpoint && options_.checkpoint_every > 0 && state.step % options_.checkpoint_every == 0 && !done) {
      const auto t0 = Clock::now();
      const std::uint64_t b0 = comm_.bytes_sent();
      state.adam = adam.state();
      checkpoint(state);
      checkpoint_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      checkpoint_bytes += comm_.bytes_sent() - b0;
    }
    if (stop) {  // collective: a stop request on any rank stops all of them after the same step
      const bool local_stop = stop();
      if (comm_.allreduce_max(local_stop ? 1.0 : 0.0) > 0.0) return finish(false);
    }
  }
  return finish(true);
}

void Trainer::report_progress(const TrainingState& state, double objective, double seconds,
                              std::uint64_t points, bool final_line) const {
  if (!comm_.is_root()) return;
  const double points_per_second = points / std::max(seconds, 1e-9);
  const double points_left = (total_steps() - state.step) * static_cast<double>(model_.num_data()) /
                             static_cast<double>(schedule_.batches_per_epoch());
  const double eta = points_left / std::max(points_per_second, 1e-9);
  const std::uint64_t per_epoch = schedule_.batches_per_epoch();
  char line[256];
  std::snprintf(line, sizeof line, "epoch %llu step %llu/%llu objective %.6g points/s %.0f elapsed %s ETA %s",
                static_cast<unsigned long long>((state.step - 1) / per_epoch),
                static_cast<unsigned long long>(state.step), static_cast<unsigned long long>(total_steps()),
                objective, points_per_second, format_duration(state.wall_seconds).c_str(),
                format_duration(eta).c_str());
  // A live bar only on a terminal; plain lines keep SLURM logs readable. stderr, so that stdout
  // carries nothing but a command's --json summary.
  if (isatty(STDERR_FILENO))
    std::fprintf(stderr, "\r%s%s", line, final_line ? "\n" : "");
  else
    std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
}

}  // namespace gplvm
