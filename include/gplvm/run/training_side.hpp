#pragma once
// What a trained run conditions on when it predicts or infers latents: its training data (the
// file it was trained on, or another one with the same dataset path) in the units the model was
// trained in, and its trained latents.
#include <optional>
#include <string>

#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/manifold/tangent_chart.hpp"
#include "gplvm/models/predictor.hpp"
#include "gplvm/run/trained_run.hpp"

namespace gplvm {

struct TrainingSide {
  DistributedDataset data;  // rows distributed as loaded
  Matrix latent_mean;       // N x Q, replicated (/latent/mean of the run)
  Matrix latent_variance;   // N x Q for Bayesian runs (/latent/var), else empty
  bool has_variance = false;
  DataTransform transform;            // the run's data.center / data.standardize, already applied to data
  std::optional<TangentChart> chart;  // runs on an output manifold: data hold tangent coordinates

  TrainingEvidence evidence() const { return {data, latent_mean, has_variance ? &latent_variance : nullptr}; }
};

// InputError naming the file when the data's rows differ from the run's latents or its columns
// from the run's data dimension. Collective.
TrainingSide load_training_side(const TrainedRun& run, const std::string& data_file,
                                const Communicator& comm);

}  // namespace gplvm
