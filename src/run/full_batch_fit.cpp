#include "gplvm/run/full_batch_fit.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "gplvm/core/error.hpp"
#include "gplvm/core/exit_codes.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/phase_clock.hpp"
#include "gplvm/core/stop_signals.hpp"
#include "gplvm/models/model_registry.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/training_outputs.hpp"
#include "gplvm/train/phase_breakdown.hpp"
#include "gplvm/train/rank_wait_meter.hpp"

namespace gplvm {
namespace {

using Clock = std::chrono::steady_clock;

// The longest the run can still take: the iteration limit at the mean pace so far (L-BFGS usually
// stops earlier, on a tolerance, so this is a bound and says so).
std::string time_to_limit(int iteration, int limit, double seconds) {
  if (iteration <= 0 || limit <= iteration) return "";
  return " ETA <= " + format_duration(seconds / iteration * (limit - iteration)) + " (the iteration limit)";
}

void print_summary(bool json, const std::string& path, const Model& model, const FullBatchResult& r,
                   const std::string& method, const std::string& value_name, double seconds,
                   const PhaseBreakdown& phases) {
  if (!json) {
    std::printf("wrote %s: %s, %d %s iterations, final %s %.10g, stopped: %s, %.1f s\n", path.c_str(),
                model.kind().c_str(), r.iterations, method.c_str(), value_name.c_str(), r.objective,
                r.reason_text.c_str(), seconds);
    return;
  }
  JsonWriter w = json_summary("train");
  w.key("model").value(model.kind()).key("output").value(path);
  w.key("training")
      .value("full_batch")
      .key("optimizer")
      .value(method)
      .key("iterations")
      .value(r.iterations)
      .key("evaluations")
      .value(r.evaluations);
  w.key("final_objective").value(r.objective).key("stop_reason").value(r.reason_text);
  if (value_name != "objective") w.key(value_name).value(r.objective);
  w.key("converged").value(r.converged).key("gradient_norm").value(r.gradient_norm);
  w.key("wall_seconds").value(seconds);
  write_phase_breakdown(w, phases);
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

}  // namespace

int fit_full_batch(const FitRun& run, std::optional<RiemannianMethod> riemannian) {
  const TrainSettings& s = run.settings;
  const Communicator& comm = run.comm;
  // Points of a curved space move by Riemannian steps only, Euclidean ones by L-BFGS only.
  const bool curved = run.model.curved_point_space() != nullptr;
  if (curved != riemannian.has_value())
    throw Error(std::string("the fitting method does not move this model's latents (") +
                (curved ? "points of a curved space" : "Euclidean points") + ")");
  const std::unique_ptr<FullBatchObjective> objective =
      run.model.make_full_batch_objective(comm, run.partition, run.rows);
  require(objective != nullptr, "this model kind is trained by steps only",
          {"", "sparse.training", "full_batch"});
  const RunMetadata metadata = run.metadata();
  // A stopped full-batch run resumes from its checkpoint's iterate and its optimiser's state: L-BFGS's
  // memory (the latest iterates and gradients), Riemannian Adam's moments or the paper method's rate;
  // the resumed run continues as the uninterrupted one, bit for bit under train.reproducible. A
  // checkpoint without that state (written before it was kept, or after a reset of L-BFGS's memory)
  // resumes with an empty one.
  ResumePoint resumed = find_resume_point(run.resume, s.checkpoint_dir, comm, run.model, metadata);
  const TrainingOutputs outputs = prepare_training_outputs(s, comm, run.force, run.config_file, resumed.file);
  TrainingState state = std::move(resumed.state);
  const bool resuming = !resumed.file.empty();
  const Vector initial = resuming ? state.params : run.model.initial_parameters();
  if (comm.is_root() && resuming)
    std::fprintf(stderr, "resuming from %s at iteration %llu\n", resumed.file.c_str(),
                 static_cast<unsigned long long>(state.step));
  const std::uint64_t first_iteration = state.step;
  const double earlier_seconds = state.wall_seconds;
  // The iteration limit counts the iterations before the checkpoint too.
  const int done = static_cast<int>(std::min<std::uint64_t>(first_iteration, 1u << 30));
  FullBatchOptions options = s.full_batch_options;
  options.max_iterations = std::max(1, options.max_iterations - done);
  // The breakdown's coarse phases: the objective's evaluations (model), its collectives, the
  // optimiser's own work (other), the stop poll and progress lines; an iteration is a step.
  std::optional<PhaseRecording> recording(std::in_place);
  RankWaitMeter waits(comm);
  const auto start = Clock::now();
  auto last_report = start;
  options.on_iteration = [&](int iteration, double value, double gradient_norm) {
    waits.step_done();
    const double t = earlier_seconds + std::chrono::duration<double>(Clock::now() - start).count();
    // A resumed run's iteration 0 is the checkpoint's last point, on the curve already.
    if (!(resuming && iteration == 0))
      state.curve.push_back({first_iteration + static_cast<std::uint64_t>(iteration), 0, value, t});
    if (comm.is_root() &&
        std::chrono::duration<double>(Clock::now() - last_report).count() >= s.trainer.progress_seconds) {
      const ScopedPhase phase(StepPhase::progress);
      const double solve_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      std::fprintf(stderr, "iteration %d %s %.10g |grad| %.3g elapsed %.0fs%s | %s\n", iteration,
                   objective->value_name().c_str(), value, gradient_norm, t,
                   time_to_limit(iteration, options.max_iterations, solve_seconds).c_str(),
                   leading_phases(phase_clock().totals(), 3).c_str());
      last_report = Clock::now();
    }
  };
  install_stop_signal_handlers();
  options.should_stop = [&] {
    const ScopedPhase phase(StepPhase::stop_poll);
    return comm.allreduce_max(stop_requested() ? 1.0 : 0.0) > 0.0;
  };
  const std::string method = !riemannian                                 ? "L-BFGS"
                             : *riemannian == RiemannianMethod::paper_gd ? "riemannian_gd_paper"
                                                                         : "riemannian_adam";
  RiemannianFullBatchOptions riemannian_options = s.riemannian;
  if (riemannian) riemannian_options.method = *riemannian;
  riemannian_options.max_iterations = std::max(1, riemannian_options.max_iterations - done);
  riemannian_options.on_iteration = options.on_iteration;
  riemannian_options.should_stop = options.should_stop;
  const RiemannianState riemannian_resume{first_iteration, state.adam, state.step_rate};
  const bool riemannian_state_kept = state.adam.steps > 0 || state.step_rate > 0;
  if (resuming && riemannian) {
    riemannian_options.resume = &riemannian_resume;
    if (comm.is_root() && !riemannian_state_kept)
      std::fprintf(stderr, "the checkpoint holds no %s state: the optimiser starts afresh\n", method.c_str());
  }
  RiemannianState riemannian_final;
  const LbfgsMemory* memory = resuming && !riemannian && state.lbfgs.size() > 0 ? &state.lbfgs : nullptr;
  if (comm.is_root() && resuming && !riemannian && memory == nullptr)
    std::fprintf(stderr, "the checkpoint holds no L-BFGS memory: L-BFGS starts with an empty one\n");
  const FullBatchResult r = riemannian
                                ? train_full_batch_riemannian(run.model, *objective, comm, initial,
                                                              riemannian_options, &riemannian_final)
                                : train_full_batch(run.model, *objective, comm, initial, options, memory);
  state.params = r.params;
  state.lbfgs = r.lbfgs;
  state.step = first_iteration + static_cast<std::uint64_t>(r.iterations);
  // The run file's `converged` attribute: a tolerance (gradient or objective) ended the run, not the
  // iteration limit, as the minibatch runs record their stopping rule.
  state.convergence.converged = r.converged;
  if (r.converged) state.convergence.converged_step = state.step;
  state.wall_seconds = earlier_seconds + std::chrono::duration<double>(Clock::now() - start).count();
  recording.reset();
  const PhaseBreakdown phases =
      spread_over_ranks(comm, phase_seconds(phase_clock().totals(), waits.finish()));
  const LocalLatents latents = encode_local_latents(run.model, state.params, run.rows);
  if (r.reason == TaoStopReason::stop_requested) {
    // Stopped by a signal: a checkpoint to resume from, not the run file, as a minibatch run does.
    // The checkpoint's Adam moments are Riemannian Adam's (zero for L-BFGS and the paper method).
    state.adam = riemannian ? riemannian_final.moments : AdamState{};
    state.step_rate = riemannian ? riemannian_final.rate : 0.0;
    if (state.adam.first_moment.size() != run.model.num_parameters())
      state.adam = {Vector::Zero(run.model.num_parameters()), Vector::Zero(run.model.num_parameters()), 0};
    if (comm.is_root() && !riemannian && !r.lbfgs_restorable)
      std::fprintf(stderr,
                   "L-BFGS reset its memory within its last iterations: the checkpoint holds none, and "
                   "a resumed run starts with an empty one\n");
    const std::string checkpoint = checkpoint_name(s.checkpoint_dir, state.step);
    write_run_file(checkpoint, comm, {run.model, state, latents, run.labels, metadata}, true);
    if (comm.is_root()) prune_checkpoints(s.checkpoint_dir, s.keep_checkpoints);
    const auto signal_number = comm.allreduce_max(static_cast<std::int64_t>(stop_signal()));
    if (comm.is_root())
      std::fprintf(stderr,
                   "stopped by signal %lld after iteration %llu; checkpoint written to %s (resume with "
                   "--resume auto)\n",
                   static_cast<long long>(signal_number), static_cast<unsigned long long>(state.step),
                   checkpoint.c_str());
    return kExitStopped;
  }
  write_run_file(s.output_path, comm, {run.model, state, latents, run.labels, metadata}, false);
  if (comm.is_root() && !r.converged)
    log_warning("the full-batch optimiser stopped before converging (" + r.reason_text +
                "): the model may be undertrained; if it ran out of iterations, raise " +
                model_kind(run.model.kind()).full_batch_section +
                ".max_iterations and continue with --resume auto");
  if (comm.is_root())
    print_summary(run.json, s.output_path, run.model, r, method, objective->value_name(), state.wall_seconds,
                  phases);
  return kExitOk;
}

}  // namespace gplvm
