#pragma once
// `gplvm train` with model.kind = "exact": full-batch exact GPLVM training (PCA-initialised
// latents, PETSc TAO L-BFGS on the ScaLAPACK objective) and its run file.
#include "gplvm/apps/train_config.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/distributed_dataset.hpp"

namespace gplvm {

// Returns the exit code (kExitStopped when a stop signal ended training early; the run file is
// written with the parameters reached).
// preprocess: the transform data went through, stored in the run file.
int run_exact_training(const TrainSettings& settings, const Config& config, const DistributedDataset& data,
                       const DataTransform& preprocess, const Communicator& comm, bool json);

}  // namespace gplvm
