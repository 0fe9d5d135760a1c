#pragma once
// A run file written by `gplvm train`, read back: its configuration, model settings and
// replicated parameters. Shared by encode, exact and evaluate.
#include <string>

#include "gplvm/apps/train_config.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct TrainedRun {
  std::string path;
  TrainSettings settings;  // model.data_dim from the run's attributes
  Vector shared;           // /params/shared: kernel, noise, encoder(s)
  std::uint64_t num_data = 0;

  // A model over the given local rows with the trained replicated parameters (free latents of
  // those rows are not loaded: only amortised models can encode new data).
  SasModel model(std::uint64_t num_rows, std::uint64_t local_begin, std::uint64_t local_rows) const;
  Vector parameters(const SasModel& model) const;
};

TrainedRun load_trained_run(const std::string& path, const Communicator& comm);

}  // namespace gplvm
