#pragma once
// The run file (docs/architecture.md, "Files, configuration and the command line") and checkpoints, which are
// run files plus the optimiser state and step counter. Written collectively under a temporary name and
// renamed.
//
//   /latent/mean (N x Q, data-row order)   /latent/var (Bayesian)
//   /params/kernel/<name> (as the kernel names them)  /params/noise_variance  /params/shared
//   /params/encoder/{mean,variance}/layer<l>/{weight,bias}
//   /train/curve (steps x 4: step, epoch, objective, wall seconds)   /config (resolved TOML text)
//   /labels (if the data had labels)
//   /preprocess/{mean, scale} (D) with attributes center, standardize, constant_columns
//     (io/data_transform.hpp: the transform training applied to the data)
//   attributes on "/": version, git_commit, ranks, seed, num_data, data_dim, latent_dim, model, kernel,
//   latents, steps, data_file (absolute), data_path_as_given
//   attribute converged (1 when the stopping rule ended the run)
//   /best/shared, /best/latent/mean, /best/latent/var (Bayesian), attributes step and
//   smoothed_objective: the parameters at the window end with the highest smoothed objective
//   (train/convergence_monitor.hpp; absent when the run is shorter than one window)
// Checkpoints add /state/{shared, adam_m_shared, adam_v_shared} (replicated), /state/local,
// /state/adam_m_local, /state/adam_v_local (global row order), and attributes step, adam_steps,
// wall_seconds, the stopping rule's state (attributes convergence:<field> of ConvergenceState),
// the best parameters (/state/best_shared, /state/best_local in global row order) and the
// identity attributes checked on resume.
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gplvm/io/data_transform.hpp"
#include "gplvm/manifold/tangent_chart.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/train/training_state.hpp"

namespace gplvm {

// Summary statistics that change if any value of the data changes (almost surely): resuming on
// different data is refused.
struct DataFingerprint {
  std::uint64_t rows = 0, cols = 0;
  double sum = 0, sum_squares = 0, position_weighted_sum = 0;
};
DataFingerprint fingerprint_data(const Communicator& comm, const DataRef& local_rows, std::uint64_t row_begin,
                                 std::uint64_t total_rows);
DataFingerprint fingerprint_data(const Communicator& comm, const DataRefF& local_rows,
                                 std::uint64_t row_begin, std::uint64_t total_rows);

struct RunMetadata {
  std::string config_toml;                      // the resolved configuration
  std::map<std::string, std::string> identity;  // config keys that must match to resume
  DataFingerprint data;
  std::string data_file;           // absolute
  std::string data_file_as_given;  // as written in the config or on the command line
  DataTransform preprocess;        // the transform the training data went through (identity: none)
  // Data on an output manifold: the chart whose tangent coordinates the model was trained on
  // (model.output_space; none: Euclidean data). Written under /output_space.
  std::optional<TangentChart> output_chart;
};

// The latents of this rank's rows under some parameters (variance empty unless Bayesian).
struct LocalLatents {
  RowMatrix mean, variance;
};
LocalLatents encode_local_latents(const Model& model, const Vector& params, const LocalRows& local_rows);

struct RunOutput {
  const Model& model;
  const TrainingState& state;
  const LocalLatents& latents;                    // of this rank's rows under state.params
  const std::vector<std::int64_t>* local_labels;  // may be null
  const RunMetadata& metadata;
  // Latents of this rank's rows under state.best_params: with them the run file holds /best.
  const LocalLatents* best_latents = nullptr;
};

void write_run_file(const std::string& path, const Communicator& comm, const RunOutput& run, bool with_state);

// A readable checkpoint of another run: a configuration key of the run's identity or the data
// differ. Unlike a damaged checkpoint it is not to be skipped in favour of an older one (those
// differ alike): the user changed the run, and must say so.
class CheckpointMismatch : public InputError {
 public:
  using InputError::InputError;
};

// Reads a checkpoint for this process's rows; throws CheckpointMismatch (on every rank alike) naming
// the file and the first identity key (or data statistic) that differs from `expected`, and
// InputError for a block whose
// shape differs from the model's, or a state holding NaN or Inf; unreadable or truncated files
// are InputErrors too.
TrainingState read_checkpoint(const std::string& path, const Communicator& comm, const Model& model,
                              const RunMetadata& expected);

}  // namespace gplvm
