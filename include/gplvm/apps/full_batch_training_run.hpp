#pragma once
// `gplvm train` with sparse.training = "full_batch" (and model.kind = "exact"): L-BFGS on the
// model's full-batch objective (train/full_batch_trainer.hpp), or Riemannian steps when its latents
// lie on a curved space (train/riemannian_full_batch_trainer.hpp), and the run file, in the same
// format as a run trained by steps (one curve point per iteration).
#include <vector>

#include "gplvm/apps/train_config.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/train/run_file.hpp"

namespace gplvm {

struct FullBatchRun {
  const Model& model;
  LocalRows rows;
  const RowPartition& partition;
  const std::vector<std::int64_t>* labels;  // may be null
  const RunMetadata& metadata;
};

// Returns the exit code (kExitStopped when a stop signal ended training early; the run file is
// written with the parameters reached). InputError naming sparse.training if the model has no
// full-batch objective.
int run_full_batch_training(const TrainSettings& settings, const FullBatchRun& run, const Communicator& comm,
                            bool json);

}  // namespace gplvm
