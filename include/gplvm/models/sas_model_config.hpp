#pragma once
// SAS and Bayesian SAS settings from the resolved configuration (model.*, sas.*, train.seed).
#include "gplvm/core/config.hpp"
#include "gplvm/models/sas_model.hpp"

namespace gplvm {

// InputError naming the key for inconsistent settings (e.g. sas.active_size >= sas.batch_size).
SasModelConfig sas_model_config(const Config& config, Index data_dim);

}  // namespace gplvm
