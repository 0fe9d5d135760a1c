// VaeModel's predictive: the decoder network's mean and its one noise variance.
#include "gplvm/models/vae_model.hpp"

namespace gplvm {
namespace {

class DecoderPredictor final : public Predictor {
 public:
  DecoderPredictor(const Mlp& network, Vector weights, double noise_variance)
      : network_(network), weights_(std::move(weights)), noise_variance_(noise_variance) {}

  Prediction predict(const ConstMatrixRef& latents) override {
    const RowMatrix input = latents;  // the network reads row-major rows
    Matrix mean;
    network_.forward<double>(weights_.data(), input, workspace_, mean);
    return {mean, Vector::Constant(latents.rows(), noise_variance_)};
  }

 private:
  Mlp network_;
  Vector weights_;
  double noise_variance_;
  MlpWorkspace<double> workspace_;
};

}  // namespace

std::unique_ptr<Predictor> VaeModel::make_predictor(const Vector& params, const TrainingEvidence&,
                                                    const Communicator&) const {
  const Mlp& network = elbo_.decoder().network();
  return std::make_unique<DecoderPredictor>(network,
                                            params.segment(elbo_.decoder_offset(), network.num_parameters()),
                                            decoder_noise_variance(params));
}

}  // namespace gplvm
