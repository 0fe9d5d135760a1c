#include "gplvm/models/sas_model_config.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/models/gp_latent_model_settings.hpp"

namespace gplvm {

SasModelConfig sas_model_config(const Config& c, Index data_dim) {
  SasModelConfig m;
  read_gp_latent_model_settings(c, data_dim, m);
  m.bayesian = c.get_string("model.kind") == "bayesian_sas";
  m.free_latent_scale = c.get_double("model.free_latent_scale");
  m.scaling = parse_remainder_scaling(c.get_string("sas.scaling"));
  m.precision = parse_precision(c.get_string("model.precision"));
  m.active_size = c.get_int("sas.active_size");
  const std::int64_t batch = c.get_int("sas.batch_size");
  const bool sas_kind = c.get_string("model.kind") == "sas" || c.get_string("model.kind") == "bayesian_sas";
  require(!sas_kind || (m.active_size >= 1 && m.active_size < batch),
          "active set size must be at least 1 and smaller than the batch size (1 <= A < B)",
          {"", "sas.active_size", std::to_string(m.active_size) + " with B = " + std::to_string(batch)});
  return m;
}

}  // namespace gplvm
