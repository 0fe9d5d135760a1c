#include "gplvm/run/fitting_method.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/models/model_registry.hpp"
#include "gplvm/run/closed_form_fit.hpp"
#include "gplvm/run/full_batch_fit.hpp"
#include "gplvm/run/minibatch_fit.hpp"
#include "gplvm/run/neighbour_descent_fit.hpp"

namespace gplvm {
namespace {

constexpr const char* kAuto = "auto";

FittingMethod minibatch_adam() {
  FittingMethod m{"adam", "minibatch Adam steps; Riemannian Adam for points of a curved space",
                  fit_by_minibatch_steps};
  m.moves_curved_points = true;
  m.automatic = true;
  return m;
}

FittingMethod lbfgs() {
  FittingMethod m{"lbfgs", "full-batch L-BFGS (PETSc TAO), Euclidean latents",
                  [](const FitRun& run) { return fit_full_batch(run, std::nullopt); }};
  m.full_batch = true;
  m.automatic = true;
  return m;
}

FittingMethod spectral() {
  FittingMethod m{"spectral", "the model's closed-form optimum (ProbDR: the moment's extreme eigenpairs)",
                  fit_closed_form};
  m.full_batch = true;
  m.closed_form = true;
  return m;
}

FittingMethod neighbour_descent() {
  FittingMethod m{"neighbour_descent",
                  "the neighbour embeddings' own optimisers: gradient descent with momentum, gains and early "
                  "exaggeration (probdr sne, tsne), SGD epochs with negative sampling (probdr umap)",
                  fit_neighbour_descent};
  m.full_batch = true;
  return m;
}

FittingMethod riemannian(const std::string& name, const std::string& summary, RiemannianMethod method) {
  FittingMethod m{name, summary, [method](const FitRun& run) { return fit_full_batch(run, method); }};
  m.full_batch = true;
  m.moves_euclidean_points = false;
  m.moves_curved_points = true;
  m.automatic = method == RiemannianMethod::adam;
  return m;
}

// The built-in methods, registered here (a static library drops self-registering object files
// that nothing refers to).
NameRegistry<FittingMethod>& registry() {
  static NameRegistry<FittingMethod> table = [] {
    NameRegistry<FittingMethod> t("optim.method", "fitting method");
    for (FittingMethod m :
         {minibatch_adam(), lbfgs(), spectral(), neighbour_descent(),
          riemannian("riemannian_adam",
                     "full-batch Riemannian Adam on the latent points, Adam on the log-hyperparameters",
                     RiemannianMethod::adam),
          riemannian("riemannian_gd_paper",
                     "the hGP-LVM paper's full-batch Riemannian gradient ascent with clipping and "
                     "accept/reject",
                     RiemannianMethod::paper_gd)})
      t.add(m.name, m);
    return t;
  }();
  return table;
}

std::string methods_that(bool (*has)(const FittingMethod&)) {
  return registry().names_where(has, " or ");
}

bool curved_full_batch(const FittingMethod& m) {
  return m.full_batch && m.moves_curved_points;
}
bool full_batch_method(const FittingMethod& m) {
  return m.full_batch;
}

// "auto": the automatic method for how the model trains and where its latents live.
const FittingMethod& automatic_method(bool full_batch, bool curved) {
  for (const auto& [name, method] : registry().entries()) {
    const bool moves = curved ? method.moves_curved_points : method.moves_euclidean_points;
    if (method.automatic && method.full_batch == full_batch && moves) return method;
  }
  throw InputError(std::string("no registered fitting method trains this model ") +
                       (full_batch ? "full batch" : "by minibatch steps") + " on " +
                       (curved ? "a curved" : "a Euclidean") + " latent space",
                   {"", "optim.method", kAuto});
}

}  // namespace

void register_fitting_method(FittingMethod method) {
  require(method.name != kAuto && static_cast<bool>(method.fit),
          "a fitting method needs a name other than \"auto\" and a function",
          {"", "optim.method", method.name});
  const std::string name = method.name;
  registry().add(name, std::move(method));
}

std::vector<std::string> registered_fitting_methods() {
  return registry().names();
}

const FittingMethod& fitting_method(const std::string& name) {
  return registry().at(name);
}

// A kind that chooses its method by its own keys (ModelKind::fitting_method).
const FittingMethod& method_chosen_by_kind(const ModelKind& kind, const Config& config,
                                           const std::string& name) {
  const std::string chosen = kind.fitting_method(config);
  require(name == kAuto || name == chosen,
          "model.kind = \"" + kind.name + "\" chooses its fitting method by its own keys (here \"" + chosen +
              "\"): leave optim.method at \"auto\"",
          {"", "optim.method", name});
  return fitting_method(chosen);
}

const FittingMethod& fitting_method_for(const Config& config) {
  const ModelKind& kind = model_kind(config.get_string("model.kind"));
  const std::string name = config.get_string("optim.method");
  if (kind.fitting_method) return method_chosen_by_kind(kind, config, name);
  const bool full_batch = trains_full_batch(config);
  const bool curved = latent_space_is(config.get_string("model.latent_space"), &LatentSpace::is_curved);
  if (name == kAuto) return automatic_method(full_batch, curved);
  const FittingMethod& method = fitting_method(name);
  require(!method.closed_form || kind.closed_form,
          "optim.method = \"" + name + "\" writes a closed-form optimum, which model.kind " +
              model_kinds_with(&ModelKind::closed_form) + " have and " + kind.name + " has not",
          {"", "optim.method", name});
  require(method.moves_euclidean_points || curved,
          "optim.method = \"" + name +
              "\" moves points of a curved space: it needs a curved model.latent_space (" +
              latent_spaces_where(&LatentSpace::is_curved) + ") and a model trained full batch (" +
              model_kinds_with(&ModelKind::full_batch_only) + ", or " +
              model_kinds_with(&ModelKind::inducing_points) + " with sparse.training = \"full_batch\")",
          {"", "optim.method", name});
  require(method.moves_curved_points || !curved,
          "optim.method = \"" + name + "\" would move the latents off the curved latent space: use " +
              methods_that(curved_full_batch) + " (or \"auto\")",
          {"", "optim.method", name});
  require(method.full_batch == full_batch,
          full_batch
              ? "optim.method = \"" + name +
                    "\" trains by minibatch steps; this model trains full batch: use " +
                    methods_that(full_batch_method) + " (or \"auto\")"
              : "optim.method = \"" + name + "\" selects a full-batch optimiser, of model.kind " +
                    model_kinds_with(&ModelKind::full_batch_only) + " and of " +
                    model_kinds_with(&ModelKind::inducing_points) + " with sparse.training = \"full_batch\"",
          {"", "optim.method", name});
  return method;
}

}  // namespace gplvm
