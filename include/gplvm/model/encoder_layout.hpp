#pragma once
// The amortised encoders shared by SAS, Bayesian SAS and the VAE: q(x | y) = N(mu(y), diag v(y))
// from two MLPs D -> hidden... -> Q with the same hidden layers, the mean ending in an identity
// layer and the variance in a softplus layer (variances must be positive). SAS uses the mean
// encoder alone. One definition, so that a VAE and a Bayesian SAS model of the same settings have
// the same encoders and a comparison of the two isolates the decoder.
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/model/mlp.hpp"

namespace gplvm {

struct EncoderShape {
  Index data_dim = 0;    // D, the input
  Index latent_dim = 0;  // Q, the output
  std::vector<Index> hidden;
  Activation activation = Activation::relu;  // of the hidden layers
};

MlpLayout mean_encoder_layout(const EncoderShape& shape);
MlpLayout variance_encoder_layout(const EncoderShape& shape);

}  // namespace gplvm
