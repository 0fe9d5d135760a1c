#pragma once
// What every latent-variable model with a GP decoder is configured with (SAS, Bayesian SAS, the
// sparse and Bayesian GPLVMs, and through SAS the exact GPLVM): the latents, the decoder, the seed
// and the reproducible-sums switch. One struct and one reader, so the kinds cannot drift apart in
// what a key means; each kind's config derives from it, sets its own defaults and reads its own keys.
#include "gplvm/core/config.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/model/mlp.hpp"
#include "gplvm/models/encoder_pretraining.hpp"
#include "gplvm/models/gp_decoder.hpp"
#include "gplvm/models/latent_init.hpp"
#include "gplvm/models/model.hpp"

namespace gplvm {

struct GpLatentModelSettings {
  Index data_dim = 0;
  Index latent_dim = 2;
  bool bayesian = false;
  LatentKind latents = LatentKind::amortised;
  std::vector<Index> encoder_hidden{512, 256};
  Activation encoder_activation = Activation::relu;
  std::string latent_space = kEuclideanSpace;  // gplvm/model/latent_space.hpp
  // Free latents start as PCA latents (unit variance per dimension) or N(0, I) draws, times
  // free_latent_scale (on a curved space: the start's tangent vectors times it).
  LatentInit init = LatentInit::pca;
  double free_latent_scale = 1.0;
  double free_latent_variance = 0.05;  // free Gaussian latents start with this variance
  // Amortised: steps of pre-training the mean encoder to the PCA latents (0: none).
  EncoderPretraining encoder_pretraining;
  GpDecoderSettings decoder;  // the kernel, its initial values and the noise
  std::uint64_t seed = 0;
  // train.reproducible: sums over fixed row blocks added exactly, so a run is the same bits at any
  // rank count (DistributedSasStep, the sparse bounds' statistics).
  bool reproducible_sums = false;
};

// What a model of these settings is built with (Model's ModelFacts).
ModelFacts gp_model_facts(const GpLatentModelSettings& m, Precision precision, std::uint64_t num_data,
                          std::uint64_t local_begin, std::uint64_t local_rows);

// The decoder's keys: model.kernel, its initial values (model.kernel_variance, model.lengthscale,
// model.kernel_period and every key a registered kernel declares), model.fixed_hyperparameters and
// model.noise_variance.
void read_gp_decoder_keys(const Config& c, GpDecoderSettings& d);

// The keys every GP latent-variable kind reads alike (model.*, train.seed, train.reproducible, the
// encoder pre-training's batch and Adam settings); free_latent_scale is the kind's own to read.
void read_gp_latent_model_settings(const Config& c, Index data_dim, GpLatentModelSettings& m);

}  // namespace gplvm
