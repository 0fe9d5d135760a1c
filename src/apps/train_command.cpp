// gplvm train: distributed training of any model kind from a TOML config (steps with Adam, or
// full batch with L-BFGS).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>
#include <variant>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/full_batch_training_run.hpp"
#include "gplvm/apps/json_summary.hpp"
#include "gplvm/apps/manifold_data.hpp"
#include "gplvm/apps/train_config.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/resource_usage.hpp"
#include "gplvm/core/stop_signals.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/models/model_registry.hpp"
#include "gplvm/train/curve_plateau.hpp"
#include "gplvm/train/run_file.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

CommandLine train_command_line() {
  return CommandLine(
      "train",
      {{"config", true, "TOML configuration file (keys: see below)"},
       {"resume", true,
        "checkpoint file to continue from, or 'auto': the newest valid one in "
        "output.checkpoint_dir (a fresh start if there is none)"},
       {"force", false, "replace an existing run file at output.path (checkpoints are replaced regardless)"}},
      true);
}

std::string checkpoint_name(const std::string& dir, std::uint64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "checkpoint-%012llu.h5", static_cast<unsigned long long>(step));
  return (fs::path(dir) / name).string();
}

// Keeps the newest `keep` checkpoints of the directory (names sort by step).
void prune_checkpoints(const std::string& dir, std::int64_t keep) {
  std::vector<fs::path> files;
  static const std::regex pattern("checkpoint-[0-9]{12}\\.h5");
  for (const auto& entry : fs::directory_iterator(dir))
    if (std::regex_match(entry.path().filename().string(), pattern)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i + keep < files.size(); ++i) fs::remove(files[i]);
}

struct ResumePoint {
  std::string file;  // empty: a fresh start
  TrainingState state;
};

// The newest checkpoint of the directory that reads back as a valid state of this model (finite,
// shapes matching); unreadable, truncated or non-finite ones (a disk can corrupt one, a rank
// killed mid-write leaves only a temporary file) are skipped with a warning. One written for a
// different configuration or data stops the run, named. A fresh start if there is none.
ResumePoint newest_valid_checkpoint(const std::string& dir, const Communicator& comm, const Model& model,
                                    const RunMetadata& meta) {
  std::vector<fs::path> files;
  static const std::regex pattern("checkpoint-[0-9]{12}\\.h5");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (std::regex_match(entry.path().filename().string(), pattern)) files.push_back(entry.path());
  std::sort(files.rbegin(), files.rend());
  for (const auto& file : files) {
    try {
      return {file.string(), read_checkpoint(file.string(), comm, model, meta)};
    } catch (const CheckpointMismatch&) {
      throw;  // another run's checkpoints: a fresh start would prune them away
    } catch (const InputError& e) {
      // Every rank skips together: read_checkpoint's input errors are agreed over the ranks.
      if (comm.is_root()) log_warning("skipping invalid checkpoint " + file.string() + ": " + e.what());
    }
  }
  return {};
}

// Creates the output and checkpoint directories (rank 0) and proves both writable before any
// work, so that a bad path fails in seconds rather than after hours of training. The output path is
// checked before the checkpoint directory is made, so an output that cannot be written leaves none.
void create_directory(const fs::path& dir, const TrainSettings& s, const Communicator& comm) {
  std::string failure;
  if (comm.is_root() && !dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) failure = "cannot create directory '" + dir.string() + "': " + ec.message();
  }
  failure = comm.broadcast(failure);
  require(failure.empty(), failure, {s.output_path, "output.path", ""});
}

// Refuses an output that is one of the inputs, or an existing run file without --force, first.
void prepare_outputs(const TrainSettings& s, const Communicator& comm, bool force,
                     const std::string& config_file) {
  require_output_not_input({s.output_path, "output.path"},
                           {{s.data_file, "data.path"}, {config_file, "--config"}});
  require(force || !fs::exists(s.output_path),
          "the run file exists already; pass --force to replace it (or choose another output.path)",
          {s.output_path, "output.path", ""});
  create_directory(fs::path(s.output_path).parent_path(), s, comm);
  Hdf5ResultWriter::check_writable(s.output_path);
  create_directory(fs::path(s.checkpoint_dir), s, comm);
  Hdf5ResultWriter::check_writable(checkpoint_name(s.checkpoint_dir, 0));
  // Temporary files a killed writer left next to the run file or among the checkpoints.
  clean_stale_temporaries_beside(s.output_path, comm);
  clean_stale_temporaries_beside(checkpoint_name(s.checkpoint_dir, 0), comm);
}

void print_summary(bool json, const TrainSettings& s, const TrainingState& state, const TrainRunStats& stats,
                   const Communicator& comm) {
  // Bytes per step: the mean over ranks of what each rank contributed to collectives.
  const double bytes_per_step = comm.allreduce_sum(static_cast<double>(stats.bytes_sent)) / comm.size() /
                                std::max<std::uint64_t>(stats.steps, 1);
  const double peak_rss = peak_resident_bytes();
  const double peak_rss_max = comm.allreduce_max(peak_rss);
  const double peak_rss_mean = comm.allreduce_sum(peak_rss) / comm.size();
  if (!comm.is_root()) return;
  const double seconds = stats.seconds;
  const double points_per_second = stats.points / std::max(seconds, 1e-12);
  const double objective = state.curve.empty() ? 0.0 : state.curve.back().objective;
  const bool converged = state.convergence.converged;
  const std::string reason = to_string(stats.reason);
  const std::optional<double> final_change = final_tenth_change(state.curve);
  if (!json) {
    char change[96] = "";
    if (final_change)
      std::snprintf(change, sizeof change, "; the last 10%% of steps changed the objective by %.2g%%",
                    100.0 * *final_change);
    std::printf("wrote %s: %llu steps, final objective %.6g, %.1f s, %s (%s)%s\n", s.output_path.c_str(),
                static_cast<unsigned long long>(state.step), objective, seconds,
                converged ? ("converged at step " + std::to_string(state.convergence.converged_step)).c_str()
                          : "not converged by the stopping rule",
                reason.c_str(), change);
    return;
  }
  JsonWriter w = json_summary("train");
  w.key("output").value(s.output_path).key("checkpoint_dir").value(s.checkpoint_dir);
  w.key("ranks").value(comm.size()).key("steps").value(state.step).key("final_objective").value(objective);
  w.key("converged").value(converged).key("reason").value(reason).key("converged_step");
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
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

}  // namespace

int train_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = train_command_line();
  cl.parse(args);
  const ConfigSchema schema = train_config_schema();
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf(
          "%s\nconfiguration keys:\n%s",
          cl.help(
                "Train a model of model.kind: sas, bayesian_sas, exact, sparse_gplvm, bayesian_gplvm or vae.")
              .c_str(),
          schema.help_text().c_str());
    return kExitOk;
  }
  const ResolvedTrainConfig resolved =
      resolve_train_config(schema, cl.value_or("config", ""), cl.overrides());
  const Config& config = resolved.config;
  if (comm.is_root())
    std::fprintf(stderr, "# %s\n# ranks: %d, %s\n# resolved configuration\n%s\n", blas_kernel_note().c_str(),
                 comm.size(), thread_note().c_str(), config.to_toml().c_str());

  // fp32 models hold their rows as float32: half the memory (the exact model is fp64 only, which
  // its settings enforce).
  require_basepoint_supported(config);
  const bool float32_rows = parse_precision(config.get_string("model.precision")) == Precision::float32;
  DistributedDataset data = load_distributed_dataset(
      config.get_string("data.path"), config.get_string("data.dataset"), config.get_string("data.labels"),
      comm, float32_rows ? Precision::float32 : Precision::float64);
  // Data on a manifold: the model sees their tangent coordinates at the Fréchet mean.
  const std::string output_space = config.get_string("model.output_space");
  std::optional<TangentChart> output_chart;
  if (output_space != "euclidean") {
    require_output_space_model(config.get_string("model.kind"), output_space);
    output_chart = map_training_data_to_tangent(data, output_space, comm);
  }
  TrainSettings s = train_settings(config, static_cast<Index>(data.cols));
  s.data_file_as_given = resolved.data_path_as_given;
  const DataTransform preprocess = preprocess_training_data(data, s.center, s.standardize, comm);
  // SAS steps call OpenBLAS only for the A x A Cholesky; the rank's own threads run the rest. An
  // OpenBLAS pool (OPENBLAS_NUM_THREADS > 1) would spin between its calls on the cores those
  // threads need (seen in perf as sched_yield taking a tenth of a 2-thread step), so it gets one.
  set_blas_threads(1);
  const std::uint64_t begin = data.partition.begin(comm.rank()), count = data.partition.count(comm.rank());
  const std::unique_ptr<Model> model_ptr =
      make_model(config, {static_cast<Index>(data.cols), data.rows, begin, count});
  const Model& model = *model_ptr;
  const std::variant<DataRef, DataRefF> rows =
      float32_rows ? std::variant<DataRef, DataRefF>(DataRefF(data.local_f32)) : DataRef(data.local);
  model_ptr->initialise_from_data(comm, data.partition, rows);
  const std::vector<std::int64_t>* labels = data.labels ? &*data.labels : nullptr;
  const auto metadata = [&] {
    return RunMetadata{
        config.to_toml(),
        resume_identity(config),
        std::visit([&](const auto& local) { return fingerprint_data(comm, local, begin, data.rows); }, rows),
        s.data_file,
        s.data_file_as_given,
        preprocess,
        output_chart};
  };
  if (s.full_batch || model.trained_full_batch_only()) {
    prepare_outputs(s, comm, cl.has("force"), cl.value_or("config", ""));
    const RunMetadata meta = metadata();
    return run_full_batch_training(s, {model, rows, data.partition, labels, meta}, comm, cl.has("json"));
  }
  const Trainer trainer(model, comm, data.partition, rows, s.trainer);  // validates B, A and the rows
  const RunMetadata meta = metadata();
  const std::string resume = cl.value_or("resume", "");
  // An explicit checkpoint that is invalid is an input error naming it; `auto` skips invalid ones.
  ResumePoint start = resume == "auto" ? newest_valid_checkpoint(s.checkpoint_dir, comm, model, meta)
                      : resume.empty() ? ResumePoint{}
                                       : ResumePoint{resume, read_checkpoint(resume, comm, model, meta)};
  TrainingState state = start.file.empty() ? trainer.initial_state() : std::move(start.state);
  // After the checkpoint is read: a bad one leaves no directories behind.
  prepare_outputs(s, comm, cl.has("force"), cl.value_or("config", ""));
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
    if (cl.has("json")) print_summary(true, s, state, stats, comm);
    return kExitFailure;
  }
  if (!stats.finished) {
    if (comm.is_root())
      std::fprintf(
          stderr,
          "stopped by signal %d after step %llu; checkpoint written to %s (resume with --resume auto)\n",
          stop_signal(), static_cast<unsigned long long>(state.step),
          checkpoint_name(s.checkpoint_dir, state.step).c_str());
    return kExitStopped;
  }
  const LocalLatents best_latents = encode_local_latents(model, state.best_params, rows);
  write_run_file(s.output_path, comm, {model, state, latents, labels, meta, &best_latents}, false);
  print_summary(cl.has("json"), s, state, stats, comm);
  return kExitOk;
}

}  // namespace gplvm
