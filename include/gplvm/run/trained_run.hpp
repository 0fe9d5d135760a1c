#pragma once
// A run file written by `gplvm train`, read back: its configuration, model settings and
// replicated parameters. Shared by encode, exact and evaluate.
#include <memory>
#include <optional>
#include <string>

#include "gplvm/io/result_writer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/run/train_config.hpp"

namespace gplvm {

struct TrainedRun {
  std::string path;
  Config config;           // the run's resolved configuration
  TrainSettings settings;  // model.data_dim from the run's attributes
  Vector shared;           // /params/shared: kernel, noise, encoder(s)
  std::uint64_t num_data = 0;

  // The run's model over the given local rows (free latents of those rows are not loaded: only
  // amortised models can encode new data).
  std::unique_ptr<Model> model(std::uint64_t num_rows, std::uint64_t local_begin,
                               std::uint64_t local_rows) const;
  // The model's parameters with the trained replicated block.
  Vector parameters(const Model& model) const;
  // InputError naming model.kind unless the run's model has a GP decoder (kernel and noise), as
  // `command` needs: a VAE's decoder is a network.
  void require_gp_decoder(const std::string& command) const;
  // InputError (exit 2) naming `file`, the run file and the run's training data unless `cols`, the
  // number of columns of `file`, is the data dimension the run was trained on: a --data override
  // must hold the same kind of data.
  void require_data_dim(const std::string& file, std::uint64_t cols) const;
  // The training data: `override_file` (--data) when given, else the run's data.path, which must
  // exist (InputError suggesting --data otherwise: the data moved, or an older run stored a path
  // relative to the directory it was trained in).
  std::string training_data_file(const std::optional<std::string>& override_file,
                                 const Communicator& comm) const;
};

TrainedRun load_trained_run(const std::string& path, const Communicator& comm);

}  // namespace gplvm
