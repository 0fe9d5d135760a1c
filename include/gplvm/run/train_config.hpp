#pragma once
// The configuration keys of `gplvm train` and their translation into model and trainer options.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/train/full_batch_trainer.hpp"
#include "gplvm/train/riemannian_full_batch_trainer.hpp"
#include "gplvm/train/trainer.hpp"

namespace gplvm {

ConfigSchema train_config_schema();

// The configuration with its file paths (data.path, output.path, output.checkpoint_dir) made
// absolute, so a run file names its data wherever it is read from: a path set in the TOML file is
// relative to that file's folder, one set on the command line or left at its default to the
// current directory. data_path_as_given keeps data.path as it was written.
struct ResolvedTrainConfig {
  Config config;
  std::string data_path_as_given;
  // What the user should change (a deprecated key that was set), for the root rank to print.
  std::vector<std::string> warnings;
  // The automatic budget's choices (run/automatic_budget.hpp), for the root rank to print.
  std::string automatic_note;
};
// With num_rows (the data's N, once known) the keys of the automatic budget the user left unset are
// chosen for N; without it they keep their defaults (a sweep's plan is checked before any data).
ResolvedTrainConfig resolve_train_config(const ConfigSchema& schema, const std::string& config_path,
                                         const std::vector<std::string>& overrides,
                                         std::optional<std::uint64_t> num_rows = std::nullopt);

struct TrainSettings {
  std::string data_file, data_path, labels_path;
  bool center = false, standardize = false;  // data.center, data.standardize (io/data_transform.hpp)
  std::string data_file_as_given;            // data.path before it was made absolute (resolve_train_config)
  SasModelConfig model;
  TrainerOptions trainer;
  std::string output_path, checkpoint_dir;
  std::int64_t keep_checkpoints = 2;
  // sparse.training = "full_batch": L-BFGS on the model's full-batch objective, not Adam steps
  // (models trained only full batch, such as exact, use it whatever this says).
  bool full_batch = false;
  FullBatchOptions full_batch_options;  // full_batch.* (exact.* for model.kind = "exact")
  // Models with points on a curved space (exact on lorentz): optim.*, exact.max_iterations.
  RiemannianFullBatchOptions riemannian;
};

// data_dim comes from the data file, not the config.
TrainSettings train_settings(const Config& config, Index data_dim);

// The keys whose values must be equal for a checkpoint to be resumed (model, data, batching,
// optimiser); others (epochs, output, progress) may change between the runs.
std::map<std::string, std::string> resume_identity(const Config& config);

}  // namespace gplvm
