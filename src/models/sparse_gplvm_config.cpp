#include "gplvm/models/sparse_gplvm_config.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/models/gp_decoder_settings.hpp"

namespace gplvm {

SparseGplvmConfig sparse_gplvm_config(const Config& c, Index data_dim) {
  SparseGplvmConfig m;
  read_gp_decoder_settings(c, data_dim, m);
  m.bayesian = c.get_string("model.kind") == "bayesian_gplvm";
  m.num_inducing = c.get_int("sparse.inducing");
  m.inducing_init = parse_inducing_init(c.get_string("sparse.inducing_init"));
  m.training = parse_sparse_training(c.get_string("sparse.training"));
  m.reproducible_sums = c.get_bool("train.reproducible");
  require(!m.reproducible_sums || m.training == SparseTraining::minibatch,
          "train.reproducible = true is implemented for minibatch training of the sparse GPLVMs; the "
          "full-batch collapsed bound sums its rows per rank (docs/reliability.md)",
          {"", "train.reproducible", "true (sparse.training = full_batch)"});
  require(c.get_string("model.precision") == "float64", "sparse and Bayesian GPLVMs run in float64 only",
          {"", "model.precision", c.get_string("model.precision")});
  return m;
}

}  // namespace gplvm
