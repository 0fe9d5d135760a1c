#include "gplvm/models/sas_model_config.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

SasModelConfig sas_model_config(const Config& c, Index data_dim) {
  SasModelConfig m;
  m.data_dim = data_dim;
  m.latent_dim = c.get_int("model.latent_dim");
  m.bayesian = c.get_string("model.kind") == "bayesian_sas";
  m.latents = parse_latent_kind(c.get_string("model.latents"));
  m.kernel = c.get_string("model.kernel");
  m.latent_space = c.get_string("model.latent_space");
  m.encoder_hidden.assign(c.get_int_list("model.encoder_hidden").begin(),
                          c.get_int_list("model.encoder_hidden").end());
  m.encoder_activation = parse_activation(c.get_string("model.encoder_activation"));
  m.kernel_variance = c.get_double("model.kernel_variance");
  m.lengthscale = c.get_double("model.lengthscale");
  m.kernel_period = c.get_double("model.kernel_period");
  m.noise_variance = c.get_double("model.noise_variance");
  m.free_latent_scale = c.get_double("model.free_latent_scale");
  m.free_latent_variance = c.get_double("model.free_latent_variance");
  m.scaling = parse_remainder_scaling(c.get_string("sas.scaling"));
  m.precision = parse_precision(c.get_string("model.precision"));
  m.seed = static_cast<std::uint64_t>(c.get_int("train.seed"));
  m.active_size = c.get_int("sas.active_size");
  const std::int64_t batch = c.get_int("sas.batch_size");
  const bool sas_kind = c.get_string("model.kind") == "sas" || c.get_string("model.kind") == "bayesian_sas";
  require(!sas_kind || (m.active_size >= 1 && m.active_size < batch),
          "active set size must be at least 1 and smaller than the batch size (1 <= A < B)",
          {"", "sas.active_size", std::to_string(m.active_size) + " with B = " + std::to_string(batch)});
  return m;
}

}  // namespace gplvm
