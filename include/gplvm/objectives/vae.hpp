#pragma once
// The VAE baseline's decoder term (docs/math/vae.md): an MLP f maps each latent sample x_n to the
// mean of its data row, with one learned noise variance sigma^2 = exp(s) shared by every output,
//   L_dec = w * sum_n sum_d log N(y_nd | f(x_n)_d, sigma^2)
//         = w * [ -B D / 2 (log 2 pi + s) - |Y - F|^2 / (2 sigma^2) ],
// where w = N/B makes a batch of B rows an unbiased estimate of the full-data sum.
//
// The samples x_n are reparameterised by the caller (x = mu + sqrt(v) o eps), who also carries
// dL/dX back into the encoders. Every output is a sum over rows, so a batch split by rows over
// ranks (each rank passing its rows with the same w, that of the whole batch) gives:
//   value, d_log_noise, the decoder weights' gradient: partial sums, to be allreduced;
//   d_latents: one row per data row, complete on the rank that owns the row (no communication).
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/model/mlp.hpp"

namespace gplvm {

struct VaeDecoderConfig {
  Index latent_dim = 2;
  Index data_dim = 0;
  // Hidden widths from the latent side: the mirror of the encoder's {512, 256}. Empty: a linear
  // (affine) decoder.
  std::vector<Index> hidden{256, 512};
  Activation hidden_activation = Activation::relu;
  Activation output_activation = Activation::identity;  // the Gaussian mean is unconstrained
};

// Q -> hidden... -> D, with hidden_activation on the hidden layers and output_activation last.
MlpLayout vae_decoder_layout(const VaeDecoderConfig& config);

struct DecoderLikelihood {
  double value = 0.0;        // w * sum_n sum_d log N(y_nd | f(x_n)_d, sigma^2)
  double sum_squares = 0.0;  // |Y - F|^2 over these rows, unweighted (a fit diagnostic)
  double d_log_noise = 0.0;  // d value / d log sigma^2
  Matrix d_latents;          // rows x Q: d value / d X
};

// Holds the decoder network and the buffers its forward and backward passes reuse: one caller at
// a time (as for the encoders' workspaces in the models layer).
class VaeDecoder {
 public:
  explicit VaeDecoder(const VaeDecoderConfig& config);  // throws InputError on a bad layout

  const Mlp& network() const noexcept { return network_; }
  Index latent_dim() const noexcept { return network_.input_dim(); }
  Index data_dim() const noexcept { return network_.output_dim(); }
  Index num_weights() const noexcept { return network_.num_parameters(); }

  // The weighted log-likelihood of `data` (rows x D) given `latents` (rows x Q), decoder weights
  // (num_weights() values in the Mlp's flat layout) and log sigma^2. ADDS w * d log p / d weights
  // into d_weights (num_weights() values), so that a caller may accumulate several batches or
  // terms into one gradient buffer. Zero rows give zero terms. Throws InputError on mismatched
  // shapes or a non-finite log_noise.
  DecoderLikelihood log_likelihood(const double* weights, double log_noise, const ConstMatrixRef& latents,
                                   const DataRef& data, double weight, double* d_weights) const;

 private:
  void check_shapes(double log_noise, const ConstMatrixRef& latents, const DataRef& data) const;

  Mlp network_;
  mutable MlpWorkspace<double> workspace_;
  mutable RowMatrix input_;       // the latents, row-major as the Mlp reads its input
  mutable Matrix mean_, d_mean_;  // F = f(X) and d value / d F
  mutable Vector d_weights_;      // backward's output, before it is added into the caller's buffer
};

}  // namespace gplvm
