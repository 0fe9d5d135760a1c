#include "gplvm/run/closed_form_fit.hpp"

#include <chrono>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/core/exit_codes.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/training_outputs.hpp"

namespace gplvm {
namespace {

using Clock = std::chrono::steady_clock;

struct ClosedFormResult {
  double objective = 0.0;
  double gradient_norm = 0.0;
  double seconds = 0.0;
};

void print_summary(bool json, const std::string& path, const Model& model, const std::string& value_name,
                   const ClosedFormResult& r) {
  if (!json) {
    std::printf("wrote %s: %s, closed form, %s %.10g, |grad| %.3g, %.1f s\n", path.c_str(),
                model.kind().c_str(), value_name.c_str(), r.objective, r.gradient_norm, r.seconds);
    return;
  }
  JsonWriter w = json_summary("train");
  w.key("model").value(model.kind()).key("output").value(path);
  w.key("training").value("closed_form").key("optimizer").value("spectral");
  w.key("final_objective").value(r.objective).key(value_name).value(r.objective);
  w.key("gradient_norm").value(r.gradient_norm).key("wall_seconds").value(r.seconds);
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

}  // namespace

int fit_closed_form(const FitRun& run) {
  const TrainSettings& s = run.settings;
  const Communicator& comm = run.comm;
  require(run.resume.empty() || run.resume == "auto",
          "a closed-form fit has no iterations to resume from a checkpoint", {"", "--resume", run.resume});
  const RunMetadata metadata = run.metadata();
  const TrainingOutputs outputs = prepare_training_outputs(s, comm, run.force, run.config_file);
  const auto start = Clock::now();
  auto last_report = start;
  const Model::ClosedFormProgress progress = [&](const std::string& line) {
    if (!comm.is_root()) return;
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    if (std::chrono::duration<double>(Clock::now() - last_report).count() < s.trainer.progress_seconds)
      return;
    std::fprintf(stderr, "%s elapsed %.0fs\n", line.c_str(), t);
    last_report = Clock::now();
  };
  const std::optional<Vector> params = run.model.closed_form_parameters(comm, progress);
  require(params.has_value(), "optim.method = \"spectral\" needs a model with a closed-form optimum",
          {"", "optim.method", "spectral"});
  const std::unique_ptr<FullBatchObjective> objective =
      run.model.make_full_batch_objective(comm, run.partition, run.rows);
  ClosedFormResult r;
  std::string value_name = "objective";
  if (objective) {
    Vector gradient(params->size());
    r.objective = objective->evaluate(*params, gradient);
    const Index shared = run.model.num_shared_parameters();
    r.gradient_norm = std::sqrt(gradient.head(shared).squaredNorm() +
                                comm.allreduce_sum(gradient.tail(gradient.size() - shared).squaredNorm()));
    value_name = objective->value_name();
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  TrainingState state;
  state.params = *params;
  state.wall_seconds = r.seconds;
  state.curve.push_back({0, 0, r.objective, r.seconds});
  const LocalLatents latents = encode_local_latents(run.model, state.params, run.rows);
  write_run_file(s.output_path, comm, {run.model, state, latents, run.labels, metadata}, false);
  if (comm.is_root()) print_summary(run.json, s.output_path, run.model, value_name, r);
  return kExitOk;
}

}  // namespace gplvm
