#include "gplvm/train/trainer.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/phase_clock.hpp"
#include "gplvm/models/active_set.hpp"
#include "gplvm/train/point_rows_adam.hpp"
#include "gplvm/train/rank_wait_meter.hpp"

namespace gplvm {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

DivergenceAction parse_divergence_action(const std::string& name) {
  if (name == "rollback") return DivergenceAction::rollback;
  if (name == "stop") return DivergenceAction::stop;
  throw InputError("unknown divergence action (expected rollback or stop)",
                   {"", "train.on_divergence", name});
}

std::string to_string(StopReason reason) {
  switch (reason) {
    case StopReason::tolerance:
      return "tolerance";
    case StopReason::max_steps:
      return "max_steps";
    case StopReason::diverged:
      return "diverged";
    case StopReason::stopped:
      return "stopped";
  }
  return "stopped";
}

Trainer::Trainer(const Model& model, const Communicator& comm, const RowPartition& partition,
                 LocalRows local_data, TrainerOptions options)
    : model_(model),
      comm_(comm),
      step_(model.make_step(comm, partition, local_data)),
      schedule_(model.num_data(), options.batch_size, options.seed),
      options_(options),
      monitor_(options.convergence, schedule_.batches_per_epoch()) {
  options_.schedule.base_rate = options_.adam.learning_rate;
  options_.schedule.total_steps = total_steps();
  validate_options();
}

void Trainer::validate_options() const {
  require(options_.epochs >= 1 || options_.max_steps >= 1, "training needs at least one epoch or step",
          {"", "train.epochs", std::to_string(options_.epochs)});
  // B <= N is the schedule's check (it names sas.batch_size); model-specific batch constraints
  // (SAS: 1 <= A < B) are checked where the model's settings are read.
  validate(options_.schedule);
  require(std::isfinite(options_.clip_norm) && options_.clip_norm >= 0,
          "train.clip_norm must be finite and >= 0",
          {"", "train.clip_norm", std::to_string(options_.clip_norm)});
  require(options_.rollback_lr_factor > 0 && options_.rollback_lr_factor < 1,
          "train.rollback_lr_factor must be in (0, 1)",
          {"", "train.rollback_lr_factor", std::to_string(options_.rollback_lr_factor)});
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

double Trainer::learning_rate(const TrainingState& state) const {
  return state.convergence.learning_rate_factor * learning_rate_at(options_.schedule, state.step);
}

namespace {

// The state a divergence rolls back to: taken at every window end that passed the checks.
struct GoodState {
  Vector params;
  AdamState adam;
  std::uint64_t step = 0;
  std::size_t curve_size = 0;
  ConvergenceState convergence;
};

// The full AdamState: sharded Adam's, with the free points' Riemannian moments in their columns
// (train/point_rows_adam.hpp) when the model has curved free points.
AdamState adam_state(const ShardedAdam& adam, const PointRowsAdam* point_adam) {
  AdamState s = adam.state();
  if (point_adam) point_adam->put_moments(s);
  return s;
}

void set_adam_state(ShardedAdam& adam, PointRowsAdam* point_adam, AdamState s) {
  if (point_adam) point_adam->take_moments(s);
  adam.set_state(std::move(s));
}

GoodState keep_good_state(const TrainingState& state, const ShardedAdam& adam,
                          const PointRowsAdam* point_adam) {
  return {state.params, adam_state(adam, point_adam), state.step, state.curve.size(), state.convergence};
}

// Back to `good`, keeping the rollback count and learning-rate factor (they only ever grow and
// fall, and the run must remember them).
void restore_good_state(TrainingState& state, ShardedAdam& adam, PointRowsAdam* point_adam,
                        const GoodState& good) {
  const ConvergenceState current = state.convergence;
  state.params = good.params;
  set_adam_state(adam, point_adam, good.adam);
  state.step = good.step;
  state.curve.resize(good.curve_size);
  state.convergence = good.convergence;
  state.convergence.rollbacks = current.rollbacks;
  state.convergence.learning_rate_factor = current.learning_rate_factor;
}

}  // namespace

TrainRunStats Trainer::run(TrainingState& state, const CheckpointFn& checkpoint, const StopFn& stop) const {
  // The optimiser owns its moments while the loop runs; they are copied back into the state only
  // where someone reads them (a checkpoint, the end of the run, a window end kept for rollback).
  // Copying them every step was two vectors of the full parameter size per step: ~8.6 MB,
  // 0.4-0.8 ms, 2-4% of an fp32 step.
  // Sharded over the ranks: each updates its slice of the encoder weights (ShardedAdam).
  ShardedAdam adam(comm_, state.params.size(), model_.summed_block(), options_.adam);
  // Free points on a curved space (Model::curved_point_space) take Riemannian Adam steps instead.
  std::optional<PointRowsAdam> points;
  if (model_.curved_point_space()) points.emplace(model_, options_.adam);
  PointRowsAdam* const point_adam = points ? &*points : nullptr;
  const std::vector<Index> fixed = model_.fixed_parameter_indices();
  set_adam_state(adam, point_adam, std::move(state.adam));
  // fp32 encoders: the step and Adam exchange the encoder's float weights and gradient directly
  // (optim/float32_shadow.hpp), the same values without two conversion passes per step. Only Adam
  // changes the parameters inside this loop (and a rollback, which clears weights_current).
  std::optional<Float32Shadow> shadow;
  if (model_.uses_float32_shadow()) shadow.emplace(model_.summed_block());
  Float32Shadow* const encoder_shadow = shadow ? &*shadow : nullptr;
  if (state.best_params.size() != state.params.size()) state.best_params = state.params;
  GoodState good = keep_good_state(state, adam, point_adam);
  const PhaseRecording recording;
  RankWaitMeter waits(comm_);
  const auto start = Clock::now();
  auto last_report = start;
  const double base_seconds = state.wall_seconds;
  const std::uint64_t first_step = state.step, per_epoch = schedule_.batches_per_epoch();
  Vector gradient;
  TrainRunStats stats;
  double checkpoint_seconds = 0;
  std::uint64_t checkpoint_bytes = 0;
  const std::uint64_t bytes_before = comm_.bytes_sent();
  auto finish = [&](StopReason reason) {
    state.adam = adam_state(adam, point_adam);
    stats.reason = reason;
    stats.finished = reason == StopReason::tolerance || reason == StopReason::max_steps;
    stats.steps = state.step - first_step;
    stats.seconds = std::chrono::duration<double>(Clock::now() - start).count() - checkpoint_seconds;
    phase_clock().stop();
    stats.phases = phase_seconds(phase_clock().totals(), waits.finish());
    stats.bytes_sent = comm_.bytes_sent() - bytes_before - checkpoint_bytes - waits.bytes_sent();
    return stats;
  };
  if (state.convergence.converged) return finish(StopReason::tolerance);  // resumed after convergence
  while (state.step < total_steps()) {
    refresh_due_active_set(state);
    const std::uint64_t epoch = state.step / per_epoch, batch = state.step % per_epoch;
    const auto rows = [&] {
      const ScopedPhase draw_phase(StepPhase::batch_draw);
      return schedule_.batch_rows(epoch, batch);
    }();
    // Parameters a step refuses (an infinite noise variance, a kernel matrix beyond jitter) are
    // divergence too. They are shared parameters, the same on every rank, so every rank fails alike.
    BatchTerms terms;
    std::string step_failure;
    try {
      const ScopedPhase model_phase(StepPhase::model);
      terms =
          step_->evaluate(state.params, rows, {epoch, batch}, gradient, &adam.slice_counts(), encoder_shadow);
    } catch (const Error& e) {
      step_failure = e.what();
    }
    // Held parameters (model.fixed_hyperparameters) get no gradient: their moments stay zero, so
    // Adam leaves their bits, and they do not count in the norm.
    if (step_failure.empty())
      for (const Index i : fixed) gradient[i] = 0.0;
    // Judged before the update, so a failing step never reaches the parameters.
    const double norm = step_failure.empty()
                            ? adam.gradient_norm(gradient, model_.num_shared_parameters(), encoder_shadow)
                            : 0.0;
    StepVerdict verdict;
    if (step_failure.empty())
      verdict = monitor_.observe(state.convergence, state.step + 1, terms.objective, norm);
    else
      verdict = {.diverged = true, .divergence = "the step failed: " + step_failure};
    if (verdict.diverged) {
      const std::uint64_t failed = state.step + 1;
      const bool give_up = options_.on_divergence == DivergenceAction::stop ||
                           state.convergence.rollbacks >= options_.max_rollbacks;
      if (encoder_shadow) encoder_shadow->weights_current = encoder_shadow->gradient_ready = false;
      restore_good_state(state, adam, point_adam, good);
      if (give_up) {
        stats.divergence_step = failed;
        stats.divergence = verdict.divergence;
        return finish(StopReason::diverged);
      }
      ++state.convergence.rollbacks;
      state.convergence.learning_rate_factor *= options_.rollback_lr_factor;
      state.convergence.recovering = true;
      if (comm_.is_root())
        log_warning("training diverged at step " + std::to_string(failed) + " (" + verdict.divergence +
                    "); rolled back to step " + std::to_string(good.step) + " with the learning rate times " +
                    std::to_string(state.convergence.learning_rate_factor) + " (rollback " +
                    std::to_string(state.convergence.rollbacks) + " of " +
                    std::to_string(options_.max_rollbacks) + ")");
      continue;
    }
    adam.set_learning_rate(learning_rate(state));
    const double clip = options_.clip_norm > 0 && norm > options_.clip_norm ? options_.clip_norm / norm : 1.0;
    if (point_adam) {  // before sharded Adam, which must not see the points' gradient
      const ScopedPhase adam_phase(StepPhase::adam);
      const PointRowsAdam::PointGradient point_gradient = point_adam->take_gradient(gradient);
      point_adam->set_learning_rate(learning_rate(state));
      point_adam->ascend(state.params, point_gradient, clip);
    }
    if (encoder_shadow)
      adam.ascend(state.params, gradient, *encoder_shadow, clip);
    else
      adam.ascend(state.params, gradient, clip);
    ++state.step;
    waits.step_done();
    stats.points += rows.size();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    state.wall_seconds = base_seconds + seconds;
    state.curve.push_back({state.step, epoch, terms.objective, state.wall_seconds});
    if (verdict.new_best) state.best_params = state.params;
    if (verdict.window_end) good = keep_good_state(state, adam, point_adam);
    const bool done = state.step == total_steps() || verdict.converged;
    if (std::chrono::duration<double>(Clock::now() - last_report).count() >= options_.progress_seconds ||
        done) {
      const ScopedPhase progress_phase(StepPhase::progress);
      report_progress(state, terms.objective, norm, seconds, stats.points, done);
      last_report = Clock::now();
    }
    if (verdict.converged) return finish(StopReason::tolerance);
    if (checkpoint && options_.checkpoint_every > 0 && state.step % options_.checkpoint_every == 0 && !done) {
      const ScopedPhase checkpoint_phase(StepPhase::checkpoint);
      const auto t0 = Clock::now();
      const std::uint64_t b0 = comm_.bytes_sent();
      state.adam = adam_state(adam, point_adam);
      checkpoint(state);
      checkpoint_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      checkpoint_bytes += comm_.bytes_sent() - b0;
    }
    if (stop) {  // collective: a stop request on any rank stops all of them after the same step
      const ScopedPhase poll_phase(StepPhase::stop_poll);
      const bool local_stop = stop();
      if (comm_.allreduce_max(local_stop ? 1.0 : 0.0) > 0.0) return finish(StopReason::stopped);
    }
  }
  return finish(StopReason::max_steps);
}

void Trainer::refresh_due_active_set(TrainingState& state) const {
  // Redrawn before steps 0, K, 2K, ... from the latents as the previous steps left them. A
  // checkpoint is written after a step, before the next one's redraw, and stores Z with the shared
  // parameters, so a run resumed there redraws what the uninterrupted run does; after a rollback
  // the restored Z is the one its step began with, or is redrawn alike.
  const Index every = model_.active_set().every;
  if (every == 0 || state.step % static_cast<std::uint64_t>(every) != 0) return;
  const ScopedPhase model_phase(StepPhase::model);
  refresh_active_set(model_, comm_, state.params, state.step / static_cast<std::uint64_t>(every));
}

void Trainer::report_progress(const TrainingState& state, double objective, double gradient_norm,
                              double seconds, std::uint64_t points, bool final_line) const {
  if (!comm_.is_root()) return;
  const double points_per_second = points / std::max(seconds, 1e-9);
  const double points_left = (total_steps() - state.step) * static_cast<double>(model_.num_data()) /
                             static_cast<double>(schedule_.batches_per_epoch());
  const double eta = points_left / std::max(points_per_second, 1e-9);
  const std::uint64_t per_epoch = schedule_.batches_per_epoch();
  const DecoderSummary decoder = model_.decoder_summary(state.params);
  char lengthscales[64] = "";
  if (decoder.has_lengthscales)
    std::snprintf(lengthscales, sizeof lengthscales, " lengthscales %.3g-%.3g", decoder.min_lengthscale,
                  decoder.max_lengthscale);
  // Rank 0's three largest phases so far; the summary has every phase over all ranks.
  const std::string phases = leading_phases(phase_clock().totals(), 3);
  char line[512];
  std::snprintf(line, sizeof line,
                "epoch %llu step %llu/%llu objective %.6g smoothed %.6g noise %.3g%s |grad| %.3g lr %.3g "
                "points/s %.0f elapsed %s ETA %s | %s",
                static_cast<unsigned long long>((state.step - 1) / per_epoch),
                static_cast<unsigned long long>(state.step), static_cast<unsigned long long>(total_steps()),
                objective, state.convergence.smoothed, decoder.noise_variance, lengthscales, gradient_norm,
                learning_rate(state), points_per_second, format_duration(state.wall_seconds).c_str(),
                format_duration(eta).c_str(), phases.c_str());
  // A live bar only on a terminal; plain lines keep SLURM logs readable. stderr, so that stdout
  // carries nothing but a command's --json summary.
  if (isatty(STDERR_FILENO))
    std::fprintf(stderr, "\r%s%s", line, final_line ? "\n" : "");
  else
    std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
}

}  // namespace gplvm
