#include "gplvm/models/model_registry.hpp"

#include <map>

#include "gplvm/core/error.hpp"
#include "gplvm/models/exact_gplvm_model.hpp"
#include "gplvm/models/sas_model_config.hpp"
#include "gplvm/models/sparse_gplvm_config.hpp"
#include "gplvm/models/vae_model_config.hpp"

namespace gplvm {
namespace {

std::unique_ptr<Model> make_sas_model(const Config& config, const ModelRows& rows) {
  return std::make_unique<SasModel>(sas_model_config(config, rows.data_dim), rows.num_data, rows.local_begin,
                                    rows.local_rows);
}

std::unique_ptr<Model> make_exact_gplvm_model(const Config& config, const ModelRows& rows) {
  return std::make_unique<ExactGplvmModel>(exact_gplvm_config(config, rows.data_dim), rows.num_data,
                                           rows.local_begin, rows.local_rows);
}

std::unique_ptr<Model> make_sparse_gplvm_model(const Config& config, const ModelRows& rows) {
  return std::make_unique<SparseGplvmModel>(sparse_gplvm_config(config, rows.data_dim), rows.num_data,
                                            rows.local_begin, rows.local_rows);
}

// The built-in kinds, registered here rather than by static initialisers in their own files
// (a static library drops object files nothing refers to, and their initialisers with them).
std::map<std::string, ModelFactory>& registry() {
  static std::map<std::string, ModelFactory> table = {{"sas", make_sas_model},
                                                      {"bayesian_sas", make_sas_model},
                                                      {"exact", make_exact_gplvm_model},
                                                      {"sparse_gplvm", make_sparse_gplvm_model},
                                                      {"bayesian_gplvm", make_sparse_gplvm_model},
                                                      {"vae", make_vae_model}};
  return table;
}

// The kinds whose data-parallel step sums over fixed blocks exactly under train.reproducible; the
// exact GPLVM's reductions are inside ScaLAPACK and follow the process grid, so the key would be a
// promise it does not keep.
bool honours_reproducible_sums(const std::string& kind) {
  return kind == "sas" || kind == "bayesian_sas" || kind == "vae" || kind == "sparse_gplvm" ||
         kind == "bayesian_gplvm";
}

}  // namespace

void register_model_kind(const std::string& kind, ModelFactory factory) {
  registry()[kind] = std::move(factory);
}

std::vector<std::string> registered_model_kinds() {
  std::vector<std::string> kinds;
  for (const auto& [kind, factory] : registry()) kinds.push_back(kind);
  return kinds;
}

std::unique_ptr<Model> make_model(const Config& config, const ModelRows& rows) {
  const std::string& kind = config.get_string("model.kind");
  const auto it = registry().find(kind);
  if (it == registry().end()) {
    std::string known;
    for (const std::string& k : registered_model_kinds()) known += (known.empty() ? "" : ", ") + k;
    throw InputError("unknown model kind (known kinds: " + known + ")", {"", "model.kind", kind});
  }
  require(
      !config.get_bool("train.reproducible") || honours_reproducible_sums(kind),
      "train.reproducible = true is implemented for model.kind = sas, bayesian_sas, vae, sparse_gplvm and "
      "bayesian_gplvm; the exact GPLVM's reductions are ScaLAPACK's and follow the process grid "
      "(docs/reliability.md)",
      {"", "train.reproducible", "true (model.kind = " + kind + ")"});
  return it->second(config, rows);
}

}  // namespace gplvm
