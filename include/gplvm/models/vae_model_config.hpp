#pragma once
// VAE settings from the resolved configuration: the encoders as for Bayesian SAS
// (model.latent_dim, model.encoder_hidden, model.encoder_activation), the decoder from
// vae.decoder_hidden (empty: the encoder's widths reversed; [0]: no hidden layer, an affine
// decoder) and vae.decoder_activation, the initial noise from model.noise_variance.
#include <memory>

#include "gplvm/core/config.hpp"
#include "gplvm/models/model_registry.hpp"
#include "gplvm/objectives/vae_elbo.hpp"

namespace gplvm {

// InputError naming the key for settings the VAE does not support: model.latents = "free" (its
// latents are amortised by definition), model.precision = "float32", a malformed decoder list.
VaeConfig vae_config(const Config& config, Index data_dim);

// The registry's factory for model.kind = "vae".
std::unique_ptr<Model> make_vae_model(const Config& config, const ModelRows& rows);

}  // namespace gplvm
