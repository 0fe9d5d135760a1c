#include "gplvm/run/neighbour_descent_fit.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/core/exit_codes.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/stop_signals.hpp"
#include "gplvm/models/neighbour_embedding_model.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/training_outputs.hpp"

namespace gplvm {
namespace {

using Clock = std::chrono::steady_clock;

struct DescentSummary {
  Index iterations = 0;
  double kl = 0.0;
  bool estimated = false;
  double seconds = 0.0;
};

void print_summary(bool json, const std::string& path, const NeighbourEmbeddingModel& model,
                   const std::string& approximation, const DescentSummary& r) {
  const std::string& method = model.settings().method;
  if (!json) {
    std::printf("wrote %s: probdr %s, %lld iterations, KL %.10g%s, %s, %.1f s\n", path.c_str(),
                method.c_str(), static_cast<long long>(r.iterations), r.kl, r.estimated ? " (estimated)" : "",
                approximation.c_str(), r.seconds);
    return;
  }
  JsonWriter w = json_summary("train");
  w.key("model").value(model.kind()).key("method").value(method).key("output").value(path);
  w.key("training").value("neighbour_descent").key("approximation").value(approximation);
  w.key("iterations").value(static_cast<std::int64_t>(r.iterations));
  w.key("final_objective").value(-r.kl).key("kl").value(r.kl).key("kl_estimated").value(r.estimated);
  w.key("wall_seconds").value(r.seconds);
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

// t-SNE's velocity and gains travel in the checkpoint's Adam moment slots (same layout as params).
void store_descent_state(const NeighbourEmbeddingModel& model, const DescentState& d, const Vector& params,
                         TrainingState& state) {
  state.adam.first_moment = Vector::Zero(params.size());
  state.adam.second_moment = Vector::Zero(params.size());
  if (d.update.rows() == static_cast<Index>(model.local_rows())) {
    model.set_latents(state.adam.first_moment, d.update);
    model.set_latents(state.adam.second_moment, d.gains);
  }
  state.adam.steps = static_cast<std::int64_t>(state.step);
}

DescentState restored_descent_state(const NeighbourEmbeddingModel& model, const TrainingState& state) {
  DescentState d;
  if (state.adam.first_moment.size() != model.num_parameters() || state.adam.steps == 0) return d;
  d.update = model.latents(state.adam.first_moment);
  d.gains = model.latents(state.adam.second_moment);
  if (d.gains.size() > 0 && d.gains.maxCoeff() == 0.0) return DescentState{};  // UMAP keeps none
  return d;
}

}  // namespace

int fit_neighbour_descent(const FitRun& run) {
  const auto* model = dynamic_cast<const NeighbourEmbeddingModel*>(&run.model);
  if (model == nullptr) throw Error("neighbour_descent fits SNE, t-SNE and UMAP models only");
  const TrainSettings& s = run.settings;
  const Communicator& comm = run.comm;
  const RunMetadata metadata = run.metadata();
  ResumePoint resumed = find_resume_point(run.resume, s.checkpoint_dir, comm, run.model, metadata);
  const TrainingOutputs outputs = prepare_training_outputs(s, comm, run.force, run.config_file, resumed.file);
  TrainingState state = std::move(resumed.state);
  const bool resuming = !resumed.file.empty();
  if (!resuming) state.params = run.model.initial_parameters();
  if (comm.is_root() && resuming)
    std::fprintf(stderr, "resuming from %s at iteration %llu\n", resumed.file.c_str(),
                 static_cast<unsigned long long>(state.step));
  RowMatrix y = model->latents(state.params);
  DescentState descent = resuming ? restored_descent_state(*model, state) : DescentState{};
  const std::unique_ptr<NeighbourOptimiser> optimiser =
      make_neighbour_optimiser(model->affinities(), model->settings(), model->num_data(), comm);
  const Index total = optimiser->iterations();
  if (comm.is_root())
    std::fprintf(stderr, "%s: %s; %lld iterations, %s\n", model->settings().method.c_str(),
                 model->affinities().description.c_str(), static_cast<long long>(total),
                 optimiser->approximation().c_str());
  install_stop_signal_handlers();
  const double earlier = state.wall_seconds;
  const auto start = Clock::now();
  auto last_report = start;
  Index last_reported = static_cast<Index>(state.step);
  auto elapsed = [&] { return earlier + std::chrono::duration<double>(Clock::now() - start).count(); };
  DescentSummary summary;
  bool stopped = false;
  for (Index t = static_cast<Index>(state.step); t < total; ++t) {
    const NeighbourStep step = optimiser->step(y, descent, t);
    state.step = static_cast<std::uint64_t>(t + 1);
    if (std::isfinite(step.kl)) {
      summary.kl = step.kl;
      summary.estimated = step.kl_estimated;
      state.curve.push_back({static_cast<std::uint64_t>(t), 0, -step.kl, elapsed()});
    }
    const double since = std::chrono::duration<double>(Clock::now() - last_report).count();
    if (comm.is_root() && (since >= s.trainer.progress_seconds || t + 1 == total)) {
      std::fprintf(stderr, "iteration %lld/%lld KL %.8g%s exaggeration %g %.1f it/s elapsed %.0fs\n",
                   static_cast<long long>(t + 1), static_cast<long long>(total), summary.kl,
                   summary.estimated ? " (estimated)" : "", step.exaggeration,
                   static_cast<double>(t + 1 - last_reported) / std::max(since, 1e-9), elapsed());
      last_report = Clock::now();
      last_reported = t + 1;
    }
    const bool checkpoint_due =
        s.trainer.checkpoint_every > 0 && state.step % s.trainer.checkpoint_every == 0;
    stopped = comm.allreduce_max(stop_requested() ? 1.0 : 0.0) > 0.0;
    if ((checkpoint_due || stopped) && t + 1 < total) {
      model->set_latents(state.params, y);
      state.wall_seconds = elapsed();
      store_descent_state(*model, descent, state.params, state);
      const LocalLatents latents = encode_local_latents(run.model, state.params, run.rows);
      const std::string checkpoint = checkpoint_name(s.checkpoint_dir, state.step);
      write_run_file(checkpoint, comm, {run.model, state, latents, run.labels, metadata}, true);
      if (comm.is_root()) prune_checkpoints(s.checkpoint_dir, s.keep_checkpoints);
      if (stopped) {
        if (comm.is_root())
          std::fprintf(stderr,
                       "stopped after iteration %llu; checkpoint written to %s (resume with --resume auto)\n",
                       static_cast<unsigned long long>(state.step), checkpoint.c_str());
        return kExitStopped;
      }
    }
  }
  model->set_latents(state.params, y);
  // The final KL exactly where every pair is affordable; else the optimiser's own figure.
  if (static_cast<Index>(model->num_data()) <= model->settings().dense_limit) {
    summary.kl = exact_neighbour_kl(y, model->affinities(), comm);
    summary.estimated = false;
  }
  summary.iterations = static_cast<Index>(state.step);
  summary.seconds = elapsed();
  state.wall_seconds = summary.seconds;
  model->record_optimisation(optimiser->approximation(), summary.kl, summary.estimated);
  const LocalLatents latents = encode_local_latents(run.model, state.params, run.rows);
  write_run_file(s.output_path, comm, {run.model, state, latents, run.labels, metadata}, false);
  if (comm.is_root()) print_summary(run.json, s.output_path, *model, optimiser->approximation(), summary);
  return kExitOk;
}

}  // namespace gplvm
