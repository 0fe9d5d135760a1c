#include "gplvm/objectives/vae_elbo.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/model/encoder_layout.hpp"
#include "gplvm/model/gaussian_kl.hpp"
#include "gplvm/objectives/bayesian_sas.hpp"

namespace gplvm {
namespace {

// Bayesian SAS's encoders (model/encoder_layout.hpp).
EncoderShape encoder_shape(const VaeConfig& c) {
  return {c.data_dim, c.latent_dim, c.encoder_hidden, c.encoder_activation};
}

VaeDecoderConfig decoder_config(const VaeConfig& c) {
  return {c.latent_dim, c.data_dim, c.decoder_hidden, c.decoder_activation, c.decoder_output};
}

// Validated before any network is built, so that the message names the VAE's own setting.
const VaeConfig& validated(const VaeConfig& c) {
  require(c.latent_dim >= 1, "VAE latent dimension must be at least 1",
          {"", "model.latent_dim", std::to_string(c.latent_dim)});
  require(c.data_dim >= 1, "VAE data dimension must be at least 1",
          {"", "data_dim", std::to_string(c.data_dim)});
  require(c.noise_variance > 0 && std::isfinite(c.noise_variance),
          "VAE initial noise variance must be positive",
          {"", "model.noise_variance", std::to_string(c.noise_variance)});
  return c;
}

}  // namespace

Matrix vae_reparameterisation_noise(const CounterRng& rng, std::uint64_t epoch, std::uint64_t step,
                                    const std::vector<std::uint64_t>& rows, Index latent_dim) {
  const Index b = static_cast<Index>(rows.size());
  const auto q = static_cast<std::uint64_t>(latent_dim);
  Matrix eps(b, latent_dim);
  for (Index i = 0; i < b; ++i)
    for (Index j = 0; j < latent_dim; ++j)
      eps(i, j) = rng.normal(RngPurpose::reparameterisation, epoch, step, rows[i] * q + j);
  return eps;
}

VaeElbo::VaeElbo(VaeConfig config)
    : config_(validated(config)),
      decoder_(decoder_config(config_)),
      mean_encoder_(mean_encoder_layout(encoder_shape(config_))),
      variance_encoder_(variance_encoder_layout(encoder_shape(config_))) {}

Vector VaeElbo::initial_parameters(std::uint64_t seed) const {
  Vector p(num_parameters());
  const CounterRng rng(seed);
  mean_encoder_.initialize(p.data() + mean_encoder_offset(), rng, 0);
  variance_encoder_.initialize(p.data() + variance_encoder_offset(), rng, 1);
  decoder_.network().initialize(p.data() + decoder_offset(), rng, 2);
  p[noise_offset()] = std::log(config_.noise_variance);
  return p;
}

void VaeElbo::check_shapes(const Vector& params, const DataRef& data, const ConstMatrixRef& eps) const {
  require(params.size() == num_parameters(), "VAE parameter vector has the wrong length",
          {"", "parameters", std::to_string(params.size())});
  require(data.cols() == config_.data_dim, "VAE data rows have the wrong number of columns",
          {"", "data_dim", std::to_string(data.cols())});
  require(eps.rows() == data.rows() && eps.cols() == config_.latent_dim,
          "VAE reparameterisation noise must be rows x latent_dim",
          {"", "eps", std::to_string(eps.rows()) + "x" + std::to_string(eps.cols())});
}

VaeElboTerms VaeElbo::evaluate(const Vector& params, const DataRef& data, const ConstMatrixRef& eps,
                               double likelihood_weight, double kl_weight, Vector& gradient) const {
  check_shapes(params, data, eps);
  gradient.setZero(num_parameters());
  VaeElboTerms terms;
  if (data.rows() == 0) return terms;  // a rank may own none of a batch's rows

  // Encode, then sample: x = mu + sqrt(v) o eps with eps held fixed.
  Matrix mean, variance;
  mean_encoder_.forward<double>(params.data() + mean_encoder_offset(), data, mean_workspace_, mean);
  variance_encoder_.forward<double>(params.data() + variance_encoder_offset(), data, variance_workspace_,
                                    variance);
  const Matrix sample = reparameterise(mean, variance, eps);

  // Decode: the decoder's weights gradient goes straight into its block.
  const DecoderLikelihood lik =
      decoder_.log_likelihood(params.data() + decoder_offset(), params[noise_offset()], sample, data, 1.0,
                              gradient.data() + decoder_offset());
  gradient.head(decoder_.num_weights()) *= likelihood_weight;
  gradient[noise_offset()] = likelihood_weight * lik.d_log_noise;
  terms.log_likelihood = lik.value;
  terms.kl = gaussian_kl(mean, variance);
  terms.value = likelihood_weight * terms.log_likelihood - kl_weight * terms.kl;

  // Back through the sample and the KL to the encoders' outputs, then through the encoders.
  Matrix d_mean = Matrix::Zero(mean.rows(), mean.cols()), d_variance = d_mean;
  reparameterise_backward(likelihood_weight * lik.d_latents, variance, eps, d_mean, d_variance);
  gaussian_kl_backward(mean, variance, -kl_weight, d_mean, d_variance);
  mean_encoder_.backward<double>(params.data() + mean_encoder_offset(), data, mean_workspace_, d_mean,
                                 gradient.data() + mean_encoder_offset());
  variance_encoder_.backward<double>(params.data() + variance_encoder_offset(), data, variance_workspace_,
                                     d_variance, gradient.data() + variance_encoder_offset());
  return terms;
}

}  // namespace gplvm
