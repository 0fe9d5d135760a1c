#pragma once
// The predictive of a trained model (what `gplvm predict` writes): the model's own
// (Model::make_predictor: the sparse GPLVMs' inducing points, the VAE's decoder), else the exact GP
// conditioned on its training data (ExactGpPredictor).
#include <memory>

#include "gplvm/eval/exact_gp_predictor.hpp"
#include "gplvm/models/model.hpp"

namespace gplvm {

// Collective. `options` apply to the exact GP only.
std::unique_ptr<Predictor> model_predictor(const Model& model, const Vector& params,
                                           const TrainingEvidence& training,
                                           const ExactPredictorOptions& options, const Communicator& comm);

}  // namespace gplvm
