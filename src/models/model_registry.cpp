#include "gplvm/models/model_registry.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/models/exact_gplvm_model.hpp"
#include "gplvm/models/neighbour_embedding_model.hpp"
#include "gplvm/models/probdr_model.hpp"
#include "gplvm/models/sas_model_config.hpp"
#include "gplvm/models/sparse_gplvm_config.hpp"
#include "gplvm/models/vae_model_config.hpp"
#include "gplvm/probdr/probdr_method.hpp"

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

ModelKind sas_kind(const std::string& name, const std::string& summary, bool bayesian) {
  ModelKind k{name, summary, make_sas_model};
  k.curved_latents = true;
  k.posterior_latents = bayesian;
  k.output_manifold = true;
  return k;
}

ModelKind exact_kind() {
  ModelKind k{"exact", "the full-batch exact GPLVM on ScaLAPACK and PETSc TAO", make_exact_gplvm_model};
  // Its reductions are inside ScaLAPACK and follow the process grid: the key would be a promise
  // it does not keep.
  k.reproducible_sums = false;
  k.unreproducible_reductions = "ScaLAPACK's";
  k.full_batch_only = true;
  k.full_batch_section = "exact";
  k.curved_latents = true;
  k.output_manifold = true;
  k.linear_basepoint = true;
  return k;
}

ModelKind sparse_kind(const std::string& name, const std::string& summary, bool bayesian) {
  ModelKind k{name, summary, make_sparse_gplvm_model};
  k.inducing_points = true;
  k.curved_latents = true;
  k.wrapped_psi_statistics = bayesian;
  k.posterior_latents = bayesian;
  return k;
}

ModelKind probdr_kind() {
  ModelKind k{"probdr",
              "classical dimensionality reduction as inference (probdr.method): a Wishart model fitted in "
              "closed form or by L-BFGS (probdr.fit), or a neighbour embedding (sne, tsne, umap) fitted by "
              "its own optimiser",
              [](const Config& config, const ModelRows& rows) -> std::unique_ptr<Model> {
                if (probdr_method(config.get_string("probdr.method")).neighbour_embedding)
                  return std::make_unique<NeighbourEmbeddingModel>(read_probdr_settings(config),
                                                                   rows.data_dim, rows.num_data,
                                                                   rows.local_begin, rows.local_rows);
                return std::make_unique<ProbdrModel>(probdr_model_config(config), rows.data_dim,
                                                     rows.num_data, rows.local_begin, rows.local_rows);
              }};
  k.gp_decoder = false;
  k.unit_scale_defaults = false;  // its noise starts from the moment's own scale
  // SLEPc's and PETSc's reductions (the eigensolver, the sparse moments' products, the MUMPS
  // factor) follow the process count.
  k.reproducible_sums = false;
  k.unreproducible_reductions = "SLEPc's, PETSc's and MUMPS's";
  // The neighbour embeddings' sums are exact (fixed-point charges, per-row updates); their k-NN
  // graph is not by HNSW (an index per rank), nor their spectral start (SLEPc).
  k.unreproducible_by_keys = [](const Config& config) -> std::string {
    if (!probdr_method(config.get_string("probdr.method")).neighbour_embedding)
      return "SLEPc's, PETSc's and MUMPS's";
    if (config.get_string("graph.search") != "exact")
      return "hnswlib's (graph.search = hnsw: an index per rank)";
    const std::string init = config.get_string("probdr.init");
    if (init == "spectral" || (init == "auto" && config.get_string("probdr.method") == "umap"))
      return "SLEPc's (probdr.init = spectral; use pca or random)";
    return "";
  };
  k.full_batch_only = true;
  k.paper_uniform_start = false;
  k.closed_form = true;
  k.fitting_method = [](const Config& config) -> std::string {
    const std::string fit = read_probdr_settings(config).fit;
    return fit == "spectral" ? "spectral" : fit == "descent" ? "neighbour_descent" : "lbfgs";
  };
  return k;
}

ModelKind vae_kind() {
  ModelKind k{"vae", "variational autoencoder with an MLP decoder, vae.*", make_vae_model};
  k.gp_decoder = false;
  k.posterior_latents = true;
  k.paper_uniform_start = false;
  return k;
}

// The built-in kinds, registered here rather than by static initialisers in their own files
// (a static library drops object files nothing refers to, and their initialisers with them).
NameRegistry<ModelKind>& registry() {
  static NameRegistry<ModelKind> table = [] {
    NameRegistry<ModelKind> t("model.kind", "model kind");
    for (ModelKind k : {sas_kind("sas", "stochastic active sets", false),
                        sas_kind("bayesian_sas", "stochastic active sets and Gaussian latents", true),
                        exact_kind(), sparse_kind("sparse_gplvm", "inducing points, sparse.*", false),
                        sparse_kind("bayesian_gplvm", "inducing points and Gaussian latents, sparse.*", true),
                        vae_kind(), probdr_kind()})
      t.add(k.name, k);
    return t;
  }();
  return table;
}

}  // namespace

void register_model_kind(ModelKind kind) {
  require(static_cast<bool>(kind.factory), "a model kind needs a factory", {"", "model.kind", kind.name});
  const std::string name = kind.name;
  registry().add(name, std::move(kind));
}

std::vector<std::string> registered_model_kinds() {
  return registry().names();
}

const ModelKind& model_kind(const std::string& name) {
  return registry().at(name);
}

std::unique_ptr<Model> make_model(const Config& config, const ModelRows& rows) {
  const std::string& name = config.get_string("model.kind");
  const ModelKind& kind = model_kind(name);
  const std::string unreproducible = kind.unreproducible_by_keys ? kind.unreproducible_by_keys(config)
                                     : kind.reproducible_sums    ? ""
                                                                 : kind.unreproducible_reductions;
  if (config.get_bool("train.reproducible") && !unreproducible.empty()) {
    throw InputError("train.reproducible = true is implemented for model.kind " +
                         model_kinds_with(&ModelKind::reproducible_sums) +
                         " and for probdr's sne, tsne and umap with graph.search = exact; " + name +
                         "'s reductions are " + unreproducible +
                         ", whose sums follow the process grid (docs/reliability.md)",
                     {"", "train.reproducible", "true (model.kind = " + name + ")"});
  }
  return kind.factory(config, rows);
}

std::string model_kinds_with(bool ModelKind::*capability) {
  return registry().names_where([capability](const ModelKind& k) { return k.*capability; });
}

bool trains_full_batch(const Config& config) {
  const ModelKind& kind = model_kind(config.get_string("model.kind"));
  return kind.full_batch_only ||
         (kind.inducing_points && config.get_string("sparse.training") == "full_batch");
}

}  // namespace gplvm
