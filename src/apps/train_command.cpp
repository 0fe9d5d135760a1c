// gplvm train: distributed training of any model kind from a TOML config: the data are loaded and
// preprocessed, the model of model.kind is built and started from them, and the fitting method of
// optim.method (run/fitting_method.hpp) trains it and writes the run file.
#include <cstdio>
#include <optional>
#include <variant>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/stop_signals.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/models/model_registry.hpp"
#include "gplvm/run/data_scaled_defaults.hpp"
#include "gplvm/run/fitting_method.hpp"
#include "gplvm/run/manifold_data.hpp"
#include "gplvm/run/train_config.hpp"
#include "gplvm/train/run_file.hpp"

namespace gplvm {
namespace {

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

}  // namespace

namespace {

// On rank 0: the BLAS and rank notes, the automatic choices, and every key's value.
void print_resolved_config(const ResolvedTrainConfig& resolved, const std::string& scale_note,
                           const Communicator& comm) {
  if (!comm.is_root()) return;
  std::fprintf(stderr, "# %s\n# ranks: %d, %s\n", blas_kernel_note().c_str(), comm.size(),
               thread_note().c_str());
  for (const std::string* note : {&resolved.automatic_note, &scale_note})
    if (!note->empty()) std::fprintf(stderr, "# %s\n", note->c_str());
  std::fprintf(stderr, "# resolved configuration\n%s\n", resolved.config.to_toml().c_str());
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
          cl.help("Train a model of model.kind (see model.kind below for the registered kinds).").c_str(),
          schema.help_text().c_str());
    return kExitOk;
  }
  // From here on SIGTERM and SIGUSR1 request a stop: one that arrives while the data load or the
  // model starts is honoured after the first step or iteration, with a checkpoint (exit 3).
  install_stop_signal_handlers();
  // N first (the dataset's shape, not its rows): the automatic budget depends on it.
  const ResolvedTrainConfig given = resolve_train_config(schema, cl.value_or("config", ""), cl.overrides());
  const std::uint64_t num_rows = inspect_dataset(given.config.get_string("data.path"),
                                                 given.config.get_string("data.dataset"), comm.raw())
                                     .rows;
  ResolvedTrainConfig resolved =
      resolve_train_config(schema, cl.value_or("config", ""), cl.overrides(), num_rows);
  const Config& config = resolved.config;  // resolved again below where the data's scale sets defaults
  if (comm.is_root())
    for (const std::string& warning : resolved.warnings) log_warning(warning);
  // Before the data are read: a method that cannot train the model fails in seconds.
  const FittingMethod& method = fitting_method_for(config);

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
  if (output_space_is(output_space, &Manifold::is_curved)) {
    require_output_space_model(config.get_string("model.kind"), output_space);
    output_chart = map_training_data_to_tangent(data, output_space, comm);
  }
  // The scale warning is about default hyperparameters that assume unit-scale data; where the
  // variances may follow the data instead, they do (run/data_scaled_defaults.hpp).
  const bool may_follow = variances_may_follow_data(config);
  const DataTransform preprocess = preprocess_training_data(
      data, config.get_bool("data.center"), config.get_bool("data.standardize"), comm,
      model_kind(config.get_string("model.kind")).unit_scale_defaults && !may_follow);
  std::string scale_note;
  if (may_follow) {
    const ScaledDefaults scaled = data_scaled_defaults(config, training_data_statistics(data, comm));
    if (!scaled.overrides.empty()) {
      std::vector<std::string> overrides = cl.overrides();
      overrides.insert(overrides.end(), scaled.overrides.begin(), scaled.overrides.end());
      resolved = resolve_train_config(schema, cl.value_or("config", ""), overrides, num_rows);
      scale_note = scaled.note;
    }
  }
  print_resolved_config(resolved, scale_note, comm);
  TrainSettings s = train_settings(config, static_cast<Index>(data.cols));
  s.data_file_as_given = resolved.data_path_as_given;
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
  const FitRun run{model,
                   comm,
                   data.partition,
                   rows,
                   labels,
                   metadata,
                   s,
                   cl.value_or("config", ""),
                   cl.value_or("resume", ""),
                   cl.has("force"),
                   cl.has("json")};
  return method.fit(run);
}

}  // namespace gplvm
