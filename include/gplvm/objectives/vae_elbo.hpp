#pragma once
// The VAE baseline's batch ELBO (Kingma & Welling 2014; docs/math/vae.md), serial. The encoders
// are those of Bayesian SAS, q(x_n | y_n) = N(mu(y_n), diag v(y_n)) with a mean MLP (identity
// output) and a variance MLP (softplus output); one reparameterised sample
// x_n = mu_n + sqrt(v_n) o eps_n per row feeds the decoder (objectives/vae.hpp):
//   ELBO = w_lik * sum_n log N(y_n | f(x_n), sigma^2 I) - w_kl * sum_n KL[q(x_n) || N(0, I)].
// w_lik = w_kl = N/B gives the unbiased full-data estimate from a batch of B rows.
//
// Flat parameter layout (one vector for Adam, one buffer for the gradient allreduce):
//   [ decoder weights | log sigma^2 | mean encoder | variance encoder ]
// each MLP in its own flat layout (gplvm/model/mlp.hpp). Every element is shared by all ranks.
//
// Every term is a sum over the batch rows and the gradient holds no per-row block, so ranks that
// each evaluate their rows of a batch (with the whole batch's weights) and allreduce the value and
// the whole gradient (and, if wanted, the log-likelihood and KL) get the serial batch ELBO.
#include <cstdint>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/model/mlp.hpp"
#include "gplvm/objectives/vae.hpp"

namespace gplvm {

struct VaeConfig {
  Index data_dim = 0;
  Index latent_dim = 2;
  std::vector<Index> encoder_hidden{512, 256};  // Bayesian SAS's encoders
  Activation encoder_activation = Activation::relu;
  std::vector<Index> decoder_hidden{256, 512};  // the encoder's mirror
  Activation decoder_activation = Activation::relu;
  Activation decoder_output = Activation::identity;
  double noise_variance = 0.5;  // initial sigma^2, as for the GP models
};

struct VaeElboTerms {
  double value = 0.0;           // w_lik * log_likelihood - w_kl * kl
  double log_likelihood = 0.0;  // sum over rows of log p(y_n | x_n), unweighted
  double kl = 0.0;              // sum over rows of KL[q(x_n) || N(0, I)], unweighted
};

// eps for the given global rows (rows x Q), keyed by (seed, reparameterisation, epoch, step,
// row * Q + dimension) as Bayesian SAS keys its noise: the same draw for a row on any rank count.
Matrix vae_reparameterisation_noise(const CounterRng& rng, std::uint64_t epoch, std::uint64_t step,
                                    const std::vector<std::uint64_t>& rows, Index latent_dim);

// The networks, the parameter layout and the batch ELBO. Holds the encoders' workspaces (and the
// decoder's), so one caller at a time.
class VaeElbo {
 public:
  explicit VaeElbo(VaeConfig config);  // throws InputError on bad dimensions

  const VaeConfig& config() const noexcept { return config_; }
  const VaeDecoder& decoder() const noexcept { return decoder_; }
  const Mlp& mean_encoder() const noexcept { return mean_encoder_; }
  const Mlp& variance_encoder() const noexcept { return variance_encoder_; }

  Index decoder_offset() const noexcept { return 0; }
  Index noise_offset() const noexcept { return decoder_.num_weights(); }
  Index mean_encoder_offset() const noexcept { return noise_offset() + 1; }
  Index variance_encoder_offset() const noexcept {
    return mean_encoder_offset() + mean_encoder_.num_parameters();
  }
  Index num_parameters() const noexcept {
    return variance_encoder_offset() + variance_encoder_.num_parameters();
  }

  // PyTorch-style uniform MLP weights from the counter RNG (mean encoder stream 0, variance
  // encoder 1, decoder 2) and log sigma^2 = log noise_variance.
  Vector initial_parameters(std::uint64_t seed) const;

  // The ELBO of the rows `data` (rows x D) with noise `eps` (rows x Q), and its gradient w.r.t.
  // every parameter (gradient is resized to num_parameters() and overwritten). Throws InputError
  // on a parameter vector, data or noise of the wrong shape.
  VaeElboTerms evaluate(const Vector& params, const DataRef& data, const ConstMatrixRef& eps,
                        double likelihood_weight, double kl_weight, Vector& gradient) const;

 private:
  void check_shapes(const Vector& params, const DataRef& data, const ConstMatrixRef& eps) const;

  VaeConfig config_;
  VaeDecoder decoder_;
  Mlp mean_encoder_, variance_encoder_;
  mutable MlpWorkspace<double> mean_workspace_, variance_workspace_;
};

}  // namespace gplvm
