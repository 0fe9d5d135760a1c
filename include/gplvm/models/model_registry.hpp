#pragma once
// Model kinds by name (`model.kind`): each kind is registered with its factory and a description of
// what it supports. The train configuration's schema (the kinds `model.kind` accepts and its help)
// and its support checks (which latent spaces, output spaces, keys and optimisers a kind takes) are
// assembled from these registrations, so a new kind is its own file plus one registration, and no
// other file names it.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"
#include "gplvm/models/model.hpp"

namespace gplvm {

// Where the model's rows are: N in all, and this process's [local_begin, local_begin + local_rows).
struct ModelRows {
  Index data_dim = 0;  // D, from the data file
  std::uint64_t num_data = 0, local_begin = 0, local_rows = 0;
};

using ModelFactory = std::function<std::unique_ptr<Model>(const Config& config, const ModelRows& rows)>;

// What a kind is and what it takes; the defaults describe a minibatch model with a GP decoder on
// Euclidean latents and data.
struct ModelKind {
  std::string name;     // model.kind
  std::string summary;  // a few words for model.kind's help, e.g. "stochastic active sets"
  ModelFactory factory;
  // A kernel and a Gaussian noise (model.kernel, model.fixed_hyperparameters; exact, predict and
  // evaluate condition an exact GP on the run); false for a network decoder.
  bool gp_decoder = true;
  // train.reproducible: the step's reductions are sums over fixed row blocks (false where they
  // belong to a library that follows the process grid, as ScaLAPACK's do).
  bool reproducible_sums = true;
  // Where reproducible_sums is false: whose reductions follow the process grid (the refusal's words).
  std::string unreproducible_reductions;
  // A kind whose reproducibility depends on its keys (probdr: the neighbour embeddings are rank-count
  // invariant with an exact k-NN search, the Wishart fits are not): the refusal's words for this
  // configuration, empty when it is reproducible. Overrides the two fields above when set.
  std::function<std::string(const Config&)> unreproducible_by_keys;
  // Trained full batch only, with the options of the config section full_batch_section (optim.*
  // chooses its optimiser); otherwise minibatch Adam unless inducing_points and sparse.training
  // = "full_batch".
  bool full_batch_only = false;
  std::string full_batch_section = "full_batch";
  // Inducing inputs (sparse.*): sparse.training may be "full_batch", sparse.active_set_refresh > 0.
  bool inducing_points = false;
  // Latents on a curved latent space (model.latent_space other than euclidean).
  bool curved_latents = false;
  // Gaussian (Bayesian) latents q(x): the latent space must have a posterior family
  // (LatentSpace::has_posterior).
  bool posterior_latents = false;
  // model.init = "paper_uniform" (free latents drawn near the origin).
  bool paper_uniform_start = true;
  // Data on an output manifold (model.output_space other than euclidean) with a constant basepoint,
  // and with the linear basepoint (model.basepoint = "linear").
  bool output_manifold = false;
  bool linear_basepoint = false;
  // Its default hyperparameters (model.kernel_variance, model.noise_variance, model.lengthscale)
  // assume data of unit scale: training warns about data far from it unless data.standardize.
  bool unit_scale_defaults = true;
  // A closed-form optimum (Model::closed_form_parameters): optim.method = "spectral" may fit it.
  bool closed_form = false;
  // The fitting method (optim.method's name) the kind's own keys choose, e.g. probdr.fit; empty
  // when optim.method alone decides. optim.method must then be "auto" or that name.
  std::function<std::string(const Config& config)> fitting_method;
  // The wrapped-normal Monte Carlo keys (model.psi_samples, psi_noise, kl_mode, kl_estimator) on
  // curved latents.
  bool wrapped_psi_statistics = false;
};

// Adds (or replaces) a kind; InputError for an empty name or a missing factory.
void register_model_kind(ModelKind kind);
std::vector<std::string> registered_model_kinds();  // sorted
// The registration of `name`; InputError naming model.kind and the known kinds for another name.
const ModelKind& model_kind(const std::string& name);

// The model of config's model.kind; InputError naming model.kind for an unknown kind.
std::unique_ptr<Model> make_model(const Config& config, const ModelRows& rows);

// The registered kinds with a capability, as "a, b and c" (for messages), e.g.
// model_kinds_with(&ModelKind::curved_latents); "none" when no kind has it.
std::string model_kinds_with(bool ModelKind::*capability);

// Whether config's model.kind trains full batch: always, or as sparse.training says.
bool trains_full_batch(const Config& config);

}  // namespace gplvm
