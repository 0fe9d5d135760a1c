// The minibatch fitting method: Adam steps (Riemannian Adam for points of a curved space) on
// batches, checkpointed and resumable, ended by the stopping rule, the step limit, divergence or a
// stop signal.
#include "gplvm/run/minibatch_fit.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>

#include "gplvm/core/error.hpp"
#include "gplvm/core/exit_codes.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/resource_usage.hpp"
#include "gplvm/core/stop_signals.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/training_outputs.hpp"
#include "gplvm/train/curve_plateau.hpp"
#include "gplvm/train/phase_breakdown.hpp"
#include "gplvm/train/trainer.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

// The limit that ended a run the stopping rule did not: "train.max_steps = 300" or
// "train.epochs = 10 (10 steps)"; empty for a run that converged or stopped otherwise.
std::string budget_limit(const TrainSettings& s, const TrainingState& state, const TrainRunStats& stats) {
  if (state.convergence.converged || stats.reason != StopReason::max_steps) return "";
  const TrainerOptions& o = s.trainer;
  if (o.max_steps > 0 && state.step >= o.max_steps) return "train.max_steps = " + std::to_string(o.max_steps);
  return "train.epochs = " + std::to_string(o.epochs) + " (" + std::to_string(state.step) + " steps)";
}

// Said plainly, once: a run cut short by its budget is not a trained model (a user who reads only
// the summary took ten steps of Adam for a result).
void warn_about_budget(const TrainSettings& s, const std::string& limit) {
  char tolerance[32];
  std::snprintf(tolerance, sizeof tolerance, "%g", s.trainer.convergence.tolerance);
  log_warning("training ended at its budget, " + limit + ", before the stopping rule (train.tolerance = " +
              tolerance + ") found it converged: the model may be undertrained; raise " +
              limit.substr(0, limit.find(' ')) + " and continue with --resume auto");
}

void print_summary(bool json, const TrainSettings& s, const TrainingState& state, const TrainRunStats& stats,
                   const Communicator& comm) {
  // Bytes per step: the mean over ranks of what each rank contributed to collectives.
  const double bytes_per_step = comm.allreduce_sum(static_cast<double>(stats.bytes_sent)) / comm.size() /
                                std::max<std::uint64_t>(stats.steps, 1);
  const double peak_rss = peak_resident_bytes();
  const double peak_rss_max = comm.allreduce_max(peak_rss);
  const double peak_rss_mean = comm.allreduce_sum(peak_rss) / comm.size();
  const PhaseBreakdown phases = spread_over_ranks(comm, stats.phases);
  if (!comm.is_root()) return;
  const double seconds = stats.seconds;
  const double points_per_second = stats.points / std::max(seconds, 1e-12);
  const double objective = state.curve.empty() ? 0.0 : state.curve.back().objective;
  const bool converged = state.convergence.converged;
  const std::string reason = to_string(stats.reason);
  const std::optional<double> final_change = final_tenth_change(state.curve);
  const std::string limit = budget_limit(s, state, stats);
  if (!limit.empty()) warn_about_budget(s, limit);
  if (!json) {
    char change[96] = "";
    if (final_change)
      std::snprintf(change, sizeof change, "; the last 10%% of steps changed the objective by %.2g%%",
                    100.0 * *final_change);
    std::printf("wrote %s: %llu steps, final objective %.6g, %.1f s, %s (%s)%s\n", s.output_path.c_str(),
                static_cast<unsigned long long>(state.step), objective, seconds,
                converged ? ("converged at step " + std::to_string(state.convergence.converged_step)).c_str()
                          : "not converged by the stopping rule",
                limit.empty() ? reason.c_str() : ("stopped by " + limit).c_str(), change);
    return;
  }
  JsonWriter w = json_summary("train");
  w.key("output").value(s.output_path).key("checkpoint_dir").value(s.checkpoint_dir);
  w.key("ranks").value(comm.size()).key("steps").value(state.step).key("final_objective").value(objective);
  w.key("converged").value(converged).key("reason").value(reason);
  w.key("stopped_by");
  if (limit.empty())
    w.null();
  else
    w.value(limit.substr(0, limit.find(' ')));
  w.key("converged_step");
  if (converged)
    w.value(state.convergence.converged_step);
  else
    w.null();
  w.key("final_tenth_change");
  if (final_change)
    w.value(*final_change);
  else
    w.null();
  w.key("best_step").value(state.convergence.best_step).key("rollbacks").value(state.convergence.rollbacks);
  w.key("wall_seconds").value(seconds).key("points_per_second").value(points_per_second);
  w.key("bytes_per_step_per_rank").value(bytes_per_step);
  w.key("peak_rss_bytes_max_rank").value(peak_rss_max).key("peak_rss_bytes_mean_rank").value(peak_rss_mean);
  w.key("threads_per_rank").value(threads_per_rank());
  write_phase_breakdown(w, phases);
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

}  // namespace

int fit_by_minibatch_steps(const FitRun& run) {
  const TrainSettings& s = run.settings;
  const Model& model = run.model;
  const Communicator& comm = run.comm;
  const LocalRows& rows = run.rows;
  const auto* labels = run.labels;
  const Trainer trainer(model, comm, run.partition, rows, s.trainer);  // validates B, A and the rows
  const RunMetadata meta = run.metadata();
  const std::string& resume = run.resume;
  ResumePoint start = find_resume_point(resume, s.checkpoint_dir, comm, model, meta);
  TrainingState state = start.file.empty() ? trainer.initial_state() : std::move(start.state);
  // After the checkpoint is read: a bad one leaves no directories behind.
  const TrainingOutputs outputs = prepare_training_outputs(s, comm, run.force, run.config_file, start.file);
  if (comm.is_root() && !start.file.empty())
    std::fprintf(stderr, "resuming from %s at step %llu\n", start.file.c_str(),
                 static_cast<unsigned long long>(state.step));

  // Each write encodes the latents of all local rows (a full encoder pass): the final checkpoint
  // and the run file share one encoding, and a step already checkpointed is not written again.
  std::uint64_t checkpointed_step = ~std::uint64_t{0};  // none yet
  auto write_checkpoint = [&](const TrainingState& st, const LocalLatents& latents) {
    write_run_file(checkpoint_name(s.checkpoint_dir, st.step), comm, {model, st, latents, labels, meta},
                   true);
    if (comm.is_root()) prune_checkpoints(s.checkpoint_dir, s.keep_checkpoints);
    comm.barrier();
    checkpointed_step = st.step;
  };
  auto checkpoint = [&](const TrainingState& st) {
    write_checkpoint(st, encode_local_latents(model, st.params, rows));
  };
  install_stop_signal_handlers();
  const TrainRunStats stats = trainer.run(state, checkpoint, stop_requested);
  const LocalLatents latents = encode_local_latents(model, state.params, rows);
  if (checkpointed_step != state.step) write_checkpoint(state, latents);
  if (stats.reason == StopReason::diverged) {
    // The state is the last good one (never the parameters that failed); it is checkpointed above.
    if (comm.is_root())
      std::fprintf(
          stderr, "error: training diverged at step %llu: %s; the last good state (step %llu) is in %s\n",
          static_cast<unsigned long long>(stats.divergence_step), stats.divergence.c_str(),
          static_cast<unsigned long long>(state.step), checkpoint_name(s.checkpoint_dir, state.step).c_str());
    if (run.json) print_summary(true, s, state, stats, comm);
    return kExitFailure;
  }
  if (!stats.finished) {
    // The signal may have reached one rank only (a scheduler signalling one task): name it on all.
    const auto signal_number = comm.allreduce_max(static_cast<std::int64_t>(stop_signal()));
    if (comm.is_root())
      std::fprintf(
          stderr,
          "stopped by signal %lld after step %llu; checkpoint written to %s (resume with --resume auto)\n",
          static_cast<long long>(signal_number), static_cast<unsigned long long>(state.step),
          checkpoint_name(s.checkpoint_dir, state.step).c_str());
    return kExitStopped;
  }
  const LocalLatents best_latents = encode_local_latents(model, state.best_params, rows);
  write_run_file(s.output_path, comm, {model, state, latents, labels, meta, &best_latents}, false);
  print_summary(run.json, s, state, stats, comm);
  return kExitOk;
}

}  // namespace gplvm
