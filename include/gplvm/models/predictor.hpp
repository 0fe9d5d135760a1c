#pragma once
// The predictive distribution p(y | x) of a trained model at given latents: the mean of every
// output and one variance per latent (noise included, shared by the D outputs), as `gplvm predict`
// writes them. Models whose predictive is their own (the sparse GPLVMs' inducing points, the VAE's
// decoder) make one through Model::make_predictor; GP models without one are predicted by the
// exact GP conditioned on their training data (eval/exact_gp_predictor.hpp).
#include <memory>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class GpPosterior;

struct Prediction {
  RowMatrix mean;   // rows x D
  Vector variance;  // rows, noise included
};

// The Jacobian of the predictive mean at each latent, E[J] (D x Q, ambient latent coordinates), and
// its covariance Sigma_J (Q x Q, the same for each of the D outputs, which are independent given
// the latents): models/gp_posterior.hpp.
struct JacobianPrediction {
  std::vector<Matrix> mean;
  std::vector<Matrix> covariance;
};

class Predictor {
 public:
  virtual ~Predictor() = default;
  // Collective: every rank passes its own latents (any number of rows, zero included) and gets
  // their predictions.
  virtual Prediction predict(const ConstMatrixRef& latents) = 0;
  // Collective, as predict. The default throws Error: a predictive without a GP decoder (the VAE's)
  // has no Jacobian covariance.
  virtual JacobianPrediction predict_jacobian(const ConstMatrixRef& latents);
  // The GP posterior every rank holds whole, for predictives that have one (inducing points), which
  // the decoder's geometry is computed from; null for distributed or non-GP predictives.
  virtual const GpPosterior* replicated_posterior() const { return nullptr; }
};

// What a predictor may condition on: the training rows as loaded (distributed) and their trained
// latents, replicated (N x Q; variances for Bayesian models, else null).
struct TrainingEvidence {
  const DistributedDataset& data;
  const Matrix& latent_mean;
  const Matrix* latent_variance = nullptr;
};

}  // namespace gplvm
