#include "gplvm/apps/exact_training_run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/json_summary.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/stop_signals.hpp"
#include "gplvm/core/version.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/models/model.hpp"

namespace gplvm {
namespace {

using Clock = std::chrono::steady_clock;

struct Curve {
  std::vector<double> lml, seconds;
};

void write_exact_run(const TrainSettings& s, const Config& config, const DistributedDataset& data,
                     const Communicator& comm, const ExactTrainingResult& r, const Curve& curve) {
  const std::uint64_t begin = data.partition.begin(comm.rank());
  Hdf5ResultWriter out(s.output_path, comm.raw());
  out.write_distributed_rows("/latent/mean", RowMatrix(r.latents), begin, data.rows);
  if (data.labels) out.write_distributed_int64("/labels", *data.labels, begin, data.rows);
  write_gp_parameters(out, *r.kernel, r.noise_variance);
  Vector shared(r.kernel->num_hyperparameters() + 1);  // the SasModel layout with free latents
  shared << r.kernel->hyperparameters(), std::log(r.noise_variance);
  out.write_vector("/params/shared", shared);
  Matrix m(curve.lml.size(), 4);
  for (size_t i = 0; i < curve.lml.size(); ++i) m.row(i) << double(i), 0.0, curve.lml[i], curve.seconds[i];
  out.write_matrix("/train/curve", m);
  out.write_attribute("/train/curve", "columns", "iteration,epoch,log_marginal_likelihood,wall_seconds");
  out.write_string("/config", config.to_toml());
  out.write_attribute("/", "version", version());
  out.write_attribute("/", "git_commit", git_commit());
  out.write_attribute("/", "ranks", comm.size());
  out.write_attribute("/", "seed", static_cast<std::int64_t>(s.model.seed));
  out.write_attribute("/", "num_data", static_cast<std::int64_t>(data.rows));
  out.write_attribute("/", "data_dim", static_cast<std::int64_t>(data.cols));
  out.write_attribute("/", "latent_dim", static_cast<std::int64_t>(s.model.latent_dim));
  out.write_attribute("/", "model", "exact");
  out.write_attribute("/", "kernel", r.kernel->name());
  out.write_attribute("/", "latents", "free");
  out.write_attribute("/", "steps", static_cast<std::int64_t>(r.iterations));
  out.write_attribute("/", "stop_reason", to_string(r.reason));
  out.write_attribute("/", "log_marginal_likelihood", r.log_marginal_likelihood);
  out.write_attribute("/", "data_file", data.file);
  out.write_attribute("/", "data_path_as_given", s.data_file_as_given);
  out.commit();
}

}  // namespace

int run_exact_training(const TrainSettings& s, const Config& config, const DistributedDataset& data,
                       const Communicator& comm, bool json) {
  ExactTrainingOptions options = s.exact_options;
  const auto start = Clock::now();
  auto last_report = start;
  Curve curve;
  options.on_iteration = [&](int iteration, double lml, double gradient_norm) {
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    curve.lml.push_back(lml);
    curve.seconds.push_back(t);
    if (comm.is_root() &&
        std::chrono::duration<double>(Clock::now() - last_report).count() >= s.trainer.progress_seconds) {
      std::fprintf(stderr, "iteration %d log p(Y|X) %.10g |grad| %.3g elapsed %.0fs\n", iteration, lml,
                   gradient_norm, t);
      last_report = Clock::now();
    }
  };
  install_stop_signal_handlers();
  options.should_stop = [&] { return comm.allreduce_max(stop_requested() ? 1.0 : 0.0) > 0.0; };
  const Matrix initial = pca_latents(data.local, data.partition, comm, s.model.latent_dim);
  const ExactTrainingResult r = train_exact_gplvm(data.local, data.partition, comm, initial, options);
  write_exact_run(s, config, data, comm, r, curve);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (comm.is_root()) {
    if (json) {
      JsonWriter w = json_summary("train");
      w.key("model").value("exact").key("output").value(s.output_path);
      w.key("ranks")
          .value(comm.size())
          .key("iterations")
          .value(r.iterations)
          .key("evaluations")
          .value(r.evaluations);
      w.key("log_marginal_likelihood")
          .value(r.log_marginal_likelihood)
          .key("stop_reason")
          .value(to_string(r.reason));
      w.key("converged")
          .value(r.converged)
          .key("gradient_norm")
          .value(r.gradient_norm)
          .key("wall_seconds")
          .value(seconds);
      w.end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("wrote %s: exact GPLVM, %d iterations, log p(Y|X) = %.10g, stopped: %s, %.1f s\n",
                  s.output_path.c_str(), r.iterations, r.log_marginal_likelihood, to_string(r.reason).c_str(),
                  seconds);
    }
  }
  return r.reason == TaoStopReason::stop_requested ? kExitStopped : kExitOk;
}

}  // namespace gplvm
