#include "gplvm/models/sparse_gplvm_config.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/models/gp_latent_model_settings.hpp"

namespace gplvm {

SparseGplvmConfig sparse_gplvm_config(const Config& c, Index data_dim) {
  SparseGplvmConfig m;
  read_gp_latent_model_settings(c, data_dim, m);
  m.bayesian = c.get_string("model.kind") == "bayesian_gplvm";
  // The scale of the start applies to points of a curved space (tangent vectors at the origin);
  // on R^Q the PCA start keeps its unit variance per dimension, as before the key existed.
  if (latent_space_is(m.latent_space, &LatentSpace::is_curved))
    m.free_latent_scale = c.get_double("model.free_latent_scale");
  m.psi_samples = c.get_int("model.psi_samples");
  m.psi_noise = parse_psi_noise(c.get_string("model.psi_noise"));
  m.kl_mode = parse_kl_mode(c.get_string("model.kl_mode"), c.get_string("model.kl_estimator"));
  m.num_inducing = c.get_int("sparse.inducing");
  m.inducing_init = parse_inducing_init(c.get_string("sparse.inducing_init"));
  m.training = parse_sparse_training(c.get_string("sparse.training"));
  m.active_set_refresh = c.get_int("sparse.active_set_refresh");
  require(c.get_string("model.precision") == "float64", "sparse and Bayesian GPLVMs run in float64 only",
          {"", "model.precision", c.get_string("model.precision")});
  return m;
}

}  // namespace gplvm
