#include "gplvm/apps/full_batch_training_run.hpp"

#include <chrono>
#include <cstdio>

#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/json_summary.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/stop_signals.hpp"

namespace gplvm {
namespace {

using Clock = std::chrono::steady_clock;

void print_summary(bool json, const std::string& path, const Model& model, const FullBatchResult& r,
                   const std::string& method, const std::string& value_name, double seconds) {
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
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

}  // namespace

int run_full_batch_training(const TrainSettings& s, const FullBatchRun& run, const Communicator& comm,
                            bool json) {
  const std::unique_ptr<FullBatchObjective> objective =
      run.model.make_full_batch_objective(comm, run.partition, run.rows);
  require(objective != nullptr, "this model kind is trained by steps only",
          {"", "sparse.training", "full_batch"});
  FullBatchOptions options = s.full_batch_options;
  const auto start = Clock::now();
  auto last_report = start;
  TrainingState state;
  options.on_iteration = [&](int iteration, double value, double gradient_norm) {
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    state.curve.push_back({static_cast<std::uint64_t>(iteration), 0, value, t});
    if (comm.is_root() &&
        std::chrono::duration<double>(Clock::now() - last_report).count() >= s.trainer.progress_seconds) {
      std::fprintf(stderr, "iteration %d %s %.10g |grad| %.3g elapsed %.0fs\n", iteration,
                   objective->value_name().c_str(), value, gradient_norm, t);
      last_report = Clock::now();
    }
  };
  install_stop_signal_handlers();
  options.should_stop = [&] { return comm.allreduce_max(stop_requested() ? 1.0 : 0.0) > 0.0; };
  // Points on a curved space move by Riemannian steps; everything else by L-BFGS.
  const bool riemannian = run.model.curved_point_space() != nullptr;
  const std::string method = !riemannian                                         ? "L-BFGS"
                             : s.riemannian.method == RiemannianMethod::paper_gd ? "riemannian_gd_paper"
                                                                                 : "riemannian_adam";
  RiemannianFullBatchOptions riemannian_options = s.riemannian;
  riemannian_options.on_iteration = options.on_iteration;
  riemannian_options.should_stop = options.should_stop;
  const FullBatchResult r =
      riemannian ? train_full_batch_riemannian(run.model, *objective, comm, run.model.initial_parameters(),
                                               riemannian_options)
                 : train_full_batch(run.model, *objective, comm, run.model.initial_parameters(), options);
  state.params = r.params;
  state.step = static_cast<std::uint64_t>(r.iterations);
  state.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const LocalLatents latents = encode_local_latents(run.model, state.params, run.rows);
  write_run_file(s.output_path, comm, {run.model, state, latents, run.labels, run.metadata}, false);
  if (comm.is_root())
    print_summary(json, s.output_path, run.model, r, method, objective->value_name(), state.wall_seconds);
  return r.reason == TaoStopReason::stop_requested ? kExitStopped : kExitOk;
}

}  // namespace gplvm
