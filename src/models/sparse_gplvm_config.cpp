#include "gplvm/models/sparse_gplvm_config.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

SparseGplvmConfig sparse_gplvm_config(const Config& c, Index data_dim) {
  SparseGplvmConfig m;
  m.data_dim = data_dim;
  m.latent_dim = c.get_int("model.latent_dim");
  m.bayesian = c.get_string("model.kind") == "bayesian_gplvm";
  m.latents = parse_latent_kind(c.get_string("model.latents"));
  m.kernel = c.get_string("model.kernel");
  m.encoder_hidden.assign(c.get_int_list("model.encoder_hidden").begin(),
                          c.get_int_list("model.encoder_hidden").end());
  m.encoder_activation = parse_activation(c.get_string("model.encoder_activation"));
  m.kernel_variance = c.get_double("model.kernel_variance");
  m.lengthscale = c.get_double("model.lengthscale");
  m.kernel_period = c.get_double("model.kernel_period");
  m.noise_variance = c.get_double("model.noise_variance");
  m.free_latent_variance = c.get_double("model.free_latent_variance");
  m.num_inducing = c.get_int("sparse.inducing");
  m.inducing_init = parse_inducing_init(c.get_string("sparse.inducing_init"));
  m.training = parse_sparse_training(c.get_string("sparse.training"));
  m.seed = static_cast<std::uint64_t>(c.get_int("train.seed"));
  require(c.get_string("model.precision") == "float64", "sparse and Bayesian GPLVMs run in float64 only",
          {"", "model.precision", c.get_string("model.precision")});
  return m;
}

}  // namespace gplvm
