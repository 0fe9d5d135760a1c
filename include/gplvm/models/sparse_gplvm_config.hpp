#pragma once
// Sparse and Bayesian GPLVM settings from the resolved configuration (model.*, sparse.*,
// train.seed).
#include "gplvm/core/config.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"

namespace gplvm {

// InputError naming the key for settings the model cannot use (e.g. model.precision = float32).
SparseGplvmConfig sparse_gplvm_config(const Config& config, Index data_dim);

}  // namespace gplvm
