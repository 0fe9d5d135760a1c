#include "gplvm/objectives/vae.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

MlpLayout vae_decoder_layout(const VaeDecoderConfig& config) {
  MlpLayout layout;
  layout.input_dim = config.latent_dim;
  layout.widths = config.hidden;
  layout.widths.push_back(config.data_dim);
  layout.activations.assign(config.hidden.size(), config.hidden_activation);
  layout.activations.push_back(config.output_activation);
  return layout;
}

VaeDecoder::VaeDecoder(const VaeDecoderConfig& config) : network_(vae_decoder_layout(config)) {}

void VaeDecoder::check_shapes(double log_noise, const ConstMatrixRef& latents, const DataRef& data) const {
  require(latents.cols() == latent_dim(), "VAE decoder: latents have the wrong number of columns",
          {"", "latent_dim", std::to_string(latents.cols())});
  require(data.cols() == data_dim(), "VAE decoder: data rows have the wrong number of columns",
          {"", "data_dim", std::to_string(data.cols())});
  require(data.rows() == latents.rows(), "VAE decoder: latents and data rows differ in number",
          {"", "rows", std::to_string(latents.rows()) + " vs " + std::to_string(data.rows())});
  require(std::isfinite(log_noise), "VAE decoder: log noise variance is not finite",
          {"", "log_noise", std::to_string(log_noise)});
}

DecoderLikelihood VaeDecoder::log_likelihood(const double* weights, double log_noise,
                                             const ConstMatrixRef& latents, const DataRef& data,
                                             double weight, double* d_weights) const {
  check_shapes(log_noise, latents, data);
  DecoderLikelihood out;
  const Index rows = latents.rows();
  out.d_latents.setZero(rows, latent_dim());
  if (rows == 0) return out;  // a rank may own none of a batch's rows

  input_ = latents;
  network_.forward<double>(weights, input_, workspace_, mean_);
  // R = Y - F, kept in d_mean_'s storage: d value / d F = w R / sigma^2.
  d_mean_ = data - mean_;
  out.sum_squares = d_mean_.squaredNorm();
  const double inv_noise = std::exp(-log_noise);
  const double count = static_cast<double>(rows) * static_cast<double>(data_dim());
  out.value = weight * (-0.5 * count * (std::log(2.0 * std::numbers::pi) + log_noise) -
                        0.5 * inv_noise * out.sum_squares);
  out.d_log_noise = weight * 0.5 * (inv_noise * out.sum_squares - count);

  d_mean_ *= weight * inv_noise;
  d_weights_.resize(num_weights());
  network_.backward<double>(weights, input_, workspace_, d_mean_, d_weights_.data(), &out.d_latents);
  Eigen::Map<Vector>(d_weights, num_weights()) += d_weights_;
  return out;
}

}  // namespace gplvm
