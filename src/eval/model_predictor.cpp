#include "gplvm/eval/model_predictor.hpp"

namespace gplvm {

std::unique_ptr<Predictor> model_predictor(const Model& model, const Vector& params,
                                           const TrainingEvidence& training,
                                           const ExactPredictorOptions& options, const Communicator& comm) {
  if (std::unique_ptr<Predictor> own = model.make_predictor(params, training, comm)) return own;
  return std::make_unique<ExactGpPredictor>(*model.kernel(params), model.noise_variance(params), training,
                                            options, comm);
}

}  // namespace gplvm
