#include "gplvm/models/gp_latent_model_settings.hpp"

namespace gplvm {

ModelFacts gp_model_facts(const GpLatentModelSettings& m, Precision precision, std::uint64_t num_data,
                          std::uint64_t local_begin, std::uint64_t local_rows) {
  return {.num_data = num_data,
          .local_begin = local_begin,
          .local_rows = local_rows,
          .data_dim = m.data_dim,
          .precision = precision,
          .seed = m.seed,
          .latents = {m.latents, m.bayesian, m.latent_dim, m.latent_space}};
}

void read_gp_decoder_keys(const Config& c, GpDecoderSettings& d) {
  d.kernel = c.get_string("model.kernel");
  d.init.variance = c.get_double("model.kernel_variance");
  d.init.lengthscale = c.get_double("model.lengthscale");
  d.init.period = c.get_double("model.kernel_period");
  // The keys registered kernels declare (model/kernel_registry.hpp), all of them: a kernel
  // expression picks what its kernels read.
  for (const KernelSetting& setting : registered_kernel_settings())
    if (c.schema().find(setting.key)) d.init.settings[setting.key] = c.get_double(setting.key);
  d.fixed_hyperparameters = c.get_string_list("model.fixed_hyperparameters");
  d.noise_variance = c.get_double("model.noise_variance");
}

void read_gp_latent_model_settings(const Config& c, Index data_dim, GpLatentModelSettings& m) {
  m.data_dim = data_dim;
  m.latent_dim = c.get_int("model.latent_dim");
  m.latents = parse_latent_kind(c.get_string("model.latents"));
  m.latent_space = c.get_string("model.latent_space");
  read_gp_decoder_keys(c, m.decoder);
  m.encoder_hidden.assign(c.get_int_list("model.encoder_hidden").begin(),
                          c.get_int_list("model.encoder_hidden").end());
  m.encoder_activation = parse_activation(c.get_string("model.encoder_activation"));
  m.free_latent_variance = c.get_double("model.free_latent_variance");
  m.seed = static_cast<std::uint64_t>(c.get_int("train.seed"));
  m.reproducible_sums = c.get_bool("train.reproducible");
  m.init = parse_latent_init(c.get_string("model.init"));
  // Pre-training batches and Adam settings are training's (sas.batch_size, train.*).
  EncoderPretraining& e = m.encoder_pretraining;
  e.steps = c.get_int("model.encoder_pretrain_steps");
  e.batch_size = c.get_int("sas.batch_size");
  e.adam = {c.get_double("train.learning_rate"), c.get_double("train.beta1"), c.get_double("train.beta2"),
            c.get_double("train.epsilon")};
  e.seed = m.seed;
}

}  // namespace gplvm
