#include "gplvm/run/train_config.hpp"

#include <filesystem>
#include <limits>
#include <sstream>

#include "gplvm/core/error.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/models/model_registry.hpp"
#include "gplvm/models/sas_model_config.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/probdr/probdr_settings.hpp"
#include "gplvm/run/automatic_budget.hpp"
#include "gplvm/run/fitting_method.hpp"

namespace gplvm {
namespace {

// The L-BFGS runs' objective tolerance (full_batch.frtol, exact.frtol): 10 iterations that change
// the bound by less than 1e-5 of it move the latents by nothing a k-NN accuracy shows (measured on
// digits: docs/guide/training.md).
constexpr double kFullBatchFrtol = 1e-5;

// Keys held in an int (iteration limits, ScaLAPACK block and grid) are range-checked to fit one.
constexpr double kMaxInt = std::numeric_limits<int>::max();

// Which models train on which latent spaces (the kinds' registrations say): everything else is
// refused here, naming the key that would have to change. Which fitting method moves the latents
// is checked with the method (run/fitting_method.hpp).
void require_latent_space_support(const Config& c, const SasModelConfig& m) {
  require_kernel_fits_latent_space(m.decoder.kernel, m.latent_space);
  if (!latent_space_is(m.latent_space, &LatentSpace::is_curved)) return;
  const std::string kind = c.get_string("model.kind");
  require(model_kind(kind).curved_latents,
          "model.latent_space = \"" + m.latent_space + "\" is supported by model.kind " +
              model_kinds_with(&ModelKind::curved_latents) + " only",
          {"", "model.kind", kind});
  // Gaussian (Bayesian) latents need the space's posterior family.
  require(!model_kind(kind).posterior_latents || latent_space_is(m.latent_space, &LatentSpace::has_posterior),
          "model.kind = \"" + kind + "\" has Bayesian latents, for which model.latent_space = \"" +
              m.latent_space + "\" has no posterior family: use a kind with point latents there, or " +
              "model.latent_space = " + latent_spaces_where(&LatentSpace::has_posterior),
          {"", "model.latent_space", m.latent_space});
}

// Keys that only some model kinds read are refused elsewhere rather than silently ignored.
void require_kind_specific_keys(const Config& c) {
  const std::string kind_name = c.get_string("model.kind");
  const ModelKind& kind = model_kind(kind_name);
  const bool full_batch = trains_full_batch(c);
  // Held hyperparameters: every kind with a GP decoder zeroes their gradient (the full-batch
  // objectives, the minibatch trainer).
  const bool fixes = !c.get_string_list("model.fixed_hyperparameters").empty();
  require(!fixes || kind.gp_decoder,
          "model.fixed_hyperparameters needs a GP decoder's kernel (model.kind " +
              model_kinds_with(&ModelKind::gp_decoder) + ")",
          {"", "model.kind", kind_name});
  // The active set replaces inducing inputs, which only the sparse kinds have.
  const std::int64_t refresh = c.get_int("sparse.active_set_refresh");
  require(kind.inducing_points || refresh == 0,
          "sparse.active_set_refresh redraws inducing inputs: model.kind " +
              model_kinds_with(&ModelKind::inducing_points) + " only",
          {"", "sparse.active_set_refresh", std::to_string(refresh)});
  require(
      c.get_string("model.init") != "paper_uniform" || kind.paper_uniform_start,
      "model.init = \"paper_uniform\" is supported by " + model_kinds_with(&ModelKind::paper_uniform_start),
      {"", "model.kind", kind_name});
  // optim.stop_above is read by the Riemannian full-batch optimisers alone; elsewhere it would be
  // ignored, so it is refused.
  const double stop_above = c.get_double("optim.stop_above");
  std::ostringstream stop_text;
  stop_text << stop_above;
  const std::string space = c.get_string("model.latent_space");
  const bool curved = latent_space_is(space, &LatentSpace::is_curved);
  require(stop_above == std::numeric_limits<double>::infinity() || (full_batch && curved),
          "optim.stop_above stops the Riemannian full-batch optimisers: a model trained full batch (" +
              model_kinds_with(&ModelKind::full_batch_only) + ", or " +
              model_kinds_with(&ModelKind::inducing_points) +
              " with sparse.training = \"full_batch\") on a curved model.latent_space (" +
              latent_spaces_where(&LatentSpace::is_curved) + ")",
          {"", "optim.stop_above", stop_text.str()});
  // The wrapped-normal Monte Carlo keys belong to the Bayesian hGP-LVM alone: Gaussian latents on a
  // curved space with a posterior family (the wrapped normal).
  const auto wrapped_normal = [](const LatentSpace& s) { return s.is_curved() && s.has_posterior(); };
  const bool wrapped = kind.wrapped_psi_statistics && wrapped_normal(*make_latent_space(space, 1));
  std::string wrapped_spaces;
  for (const std::string& name : registered_latent_spaces())
    if (wrapped_normal(*make_latent_space(name, 1)))
      wrapped_spaces += (wrapped_spaces.empty() ? "" : " or ") + ("\"" + name + "\"");
  require(
      wrapped || (c.get_int("model.psi_samples") == 10 && c.get_string("model.psi_noise") == "fixed" &&
                  c.get_string("model.kl_mode") == "exact" && c.get_string("model.kl_estimator") == "plain"),
      "model.psi_samples, model.psi_noise, model.kl_mode and model.kl_estimator are read by model.kind " +
          model_kinds_with(&ModelKind::wrapped_psi_statistics) +
          " with model.latent_space = " + wrapped_spaces + " only",
      {"", "model.kind", kind_name});
}

// optim.method's help and values: "auto" and every registered method.
std::string fitting_method_help() {
  std::string text =
      "auto (minibatch models: adam; full-batch ones: lbfgs on euclidean latents, riemannian_adam on "
      "curved ones)";
  for (const std::string& name : registered_fitting_methods())
    text += ", " + name + " (" + fitting_method(name).summary + ")";
  return text +
         "; train.learning_rate and train.beta1/2 set the Adam steps, and riemannian_gd_paper's initial "
         "rate (0.01 unless set)";
}

std::vector<std::string> fitting_method_names() {
  std::vector<std::string> names = {"auto"};
  for (const std::string& name : registered_fitting_methods()) names.push_back(name);
  return names;
}

// model.kind's help: every registered kind with its summary.
std::string model_kind_help() {
  std::string text;
  for (const std::string& name : registered_model_kinds())
    text += (text.empty() ? "" : ", ") + name + " (" + model_kind(name).summary + ")";
  return text;
}

}  // namespace

ConfigSchema train_config_schema() {
  using R = ConfigRule;
  ConfigSchema s;
  s.add_required("data.path", ConfigType::string, "HDF5 file with the N x D data", {R::non_empty()})
      .add_string("data.dataset", "/Y", "dataset inside data.path", {R::non_empty()})
      .add_string(
          "data.labels", "/labels",
          "labels dataset: /labels is used when the file has it, any other path must exist, \"\" for none")
      .add_bool("data.center", false,
                "subtract each column's mean before training (stored in the run file, applied again by "
                "encode, evaluate and predict)")
      .add_bool("data.standardize", false,
                "divide each column by its standard deviation before training (constant columns are left "
                "unscaled; stored and applied again like data.center)")
      .add_string("model.kind", "sas", "the model: " + model_kind_help(),
                  {R::one_of(registered_model_kinds())})
      .add_string("model.kernel", "eq_ard",
                  "covariance function: a registered kernel, or sums (+) and products (*) of those that "
                  "take the same inputs, e.g. \"eq_ard+linear\"; by the model.latent_space they take: " +
                      kernel_help(),
                  {R::non_empty()})
      .add_string("model.latent_space", kEuclideanSpace,
                  "where the latents live, n = model.latent_dim: " + latent_space_help() +
                      ". A curved space takes a kernel on its points (model.kernel) and the kinds " +
                      model_kinds_with(&ModelKind::curved_latents) +
                      "; Gaussian (Bayesian) latents need a space with a posterior family: " +
                      latent_spaces_where(&LatentSpace::has_posterior),
                  {R::one_of(registered_latent_spaces())})
      .add_string("model.likelihood", "gaussian",
                  "deprecated and ignored: the data term is Gaussian, on the data (model.output_space = "
                  "euclidean) or on a manifold's tangent coordinates (model.output_space)",
                  {R::one_of({"gaussian"})})
      .add_string("model.output_space", kEuclideanSpace,
                  "where the data live: " + output_space_help(registered_output_spaces()) +
                      ". A curved space makes a wrapped GPLVM with a constant basepoint (" +
                      model_kinds_with(&ModelKind::output_manifold) +
                      "), trained on tangent coordinates at the data's Frechet mean",
                  {R::one_of(registered_output_spaces())})
      .add_string("model.basepoint", "constant",
                  "wrapped GPLVM basepoint: constant (the Frechet mean mu0 of the training data) or linear "
                  "(m(x) = Exp_mu0(B0 A x), A a D x Q map into the tangent space at mu0, learnt with the "
                  "latents from A = 0; model.output_space = \"" +
                      std::string(kSphereSpace) + "\" and the kinds " +
                      model_kinds_with(&ModelKind::linear_basepoint) +
                      " only, without data.center / data.standardize)",
                  {R::one_of({"constant", "linear"})})
      .add_string("model.latents", "amortised", "amortised (MLP encoder) or free latents",
                  {R::one_of({"amortised", "free"})})
      .add_string(
          "model.init", "pca",
          "free latents' start: pca (principal components, unit variance per dimension), random "
          "(N(0, I) draws) or paper_uniform (U(-1e-3, 1e-3) draws, the hGP-LVM paper's start near the "
          "origin; " +
              model_kinds_with(&ModelKind::paper_uniform_start) +
              "), times model.free_latent_scale, as tangent coordinates at the origin of model.latent_space",
          {R::one_of({"pca", "random", "paper_uniform"})})
      .add_string_list("model.fixed_hyperparameters", {},
                       "kernel hyperparameters held at their initial values, by name (kappa or "
                       "log_kappa, variance, ...), e.g. [\"kappa\"] to fix hyperboloid_exp's kappa at "
                       "model.lengthscale as the hGP-LVM paper does; kinds with a GP decoder: " +
                           model_kinds_with(&ModelKind::gp_decoder))
      .add_int(
          "model.encoder_pretrain_steps", 0,
          "amortised sas/bayesian_sas/sparse_gplvm/bayesian_gplvm: Adam steps fitting the mean encoder to "
          "the PCA latents before training (batches of "
          "sas.batch_size rows, train.learning_rate; 0: none)",
          {R::at_least(0)})
      .add_int("model.latent_dim", 2, "latent dimension Q", {R::range(1, 64)})
      .add_int_list("model.encoder_hidden", {512, 256}, "hidden widths of the encoder MLP", {R::at_least(1)})
      .add_string("model.encoder_activation", "relu", "hidden activation: relu or tanh",
                  {R::one_of({"relu", "tanh"})})
      .add_double("model.kernel_variance", 0.5, "initial kernel variance theta", {R::greater_than(0)})
      .add_double("model.lengthscale", 0.1,
                  "initial kernel lengthscale (all dimensions); when not set, free latents started at PCA "
                  "(unit variance) take 1.0 instead",
                  {R::greater_than(0)})
      .add_double("model.kernel_period", 1.0, "initial period of periodic kernels", {R::greater_than(0)})
      .add_double("model.noise_variance", 0.5, "initial Gaussian noise variance", {R::greater_than(0)})
      .add_double(
          "model.free_latent_scale", 1.0,
          "scale of the initial free latents: the PCA or N(0, I) latents times this (on a curved latent "
          "space, "
          "their tangent vectors at its origin; the sparse kinds on R^Q keep the unit-variance PCA start)",
          {R::greater_than(0)})
      .add_double("model.free_latent_variance", 0.05, "initial variance of free Bayesian latents",
                  {R::greater_than(0)})
      .add_int("model.psi_samples", 10,
               model_kinds_with(&ModelKind::wrapped_psi_statistics) +
                   " on a curved latent space: wrapped-normal samples L per row of the Monte Carlo "
                   "Psi-statistics and KL",
               {R::range(1, 1000)})
      .add_string(
          "model.psi_noise", "fixed",
          model_kinds_with(&ModelKind::wrapped_psi_statistics) +
              " on a curved latent space: the samples' standard normal noise, fixed (the same draws at "
              "every step, keyed by seed, row, sample and dimension) or fresh (new draws each step; full "
              "batch: "
              "each iteration, the iterate and its trial evaluated under the same draw)",
          {R::one_of({"fixed", "fresh"})})
      .add_string(
          "model.kl_mode", "exact",
          model_kinds_with(&ModelKind::wrapped_psi_statistics) +
              " on a curved latent space: KL(q || p) as exact (Monte Carlo log q - log p at the samples, "
              "the prior evaluated at each sample) or paper (the hGP-LVM paper's eq. 17: the tangent "
              "Gaussians' log ratio, independent of the means)",
          {R::one_of({"exact", "paper"})})
      .add_string("model.kl_estimator", "plain",
                  model_kinds_with(&ModelKind::wrapped_psi_statistics) +
                      " on a curved latent space with model.kl_mode = exact: the Monte Carlo KL as plain "
                      "(log q - log p "
                      "at the samples, averaged) or control_variate (plus a term of exactly zero mean that "
                      "cancels the "
                      "estimate's noise to first order: the same expectation, lower variance)",
                  {R::one_of({"plain", "control_variate"})})
      .add_string(
          "model.precision", "float64",
          "float64, or float32: encoder and data products in fp32, the rest in fp64 (sas/bayesian_sas)",
          {R::one_of({"float64", "float32"})})
      .add_int("sas.batch_size", 1024, "batch size B (batches hold B to 2B-1 rows)", {R::at_least(2)})
      .add_int("sas.active_size", 200, "active set size A < B", {R::at_least(1)})
      .add_string("sas.scaling", "full_data",
                  "full_data: (N-A)/(B-A) remainder and N/B KL weights; per_batch: 1",
                  {R::one_of({"full_data", "per_batch"})})
      .add_int_list("vae.decoder_hidden", {},
                    "vae: decoder hidden widths from the latent side ([]: model.encoder_hidden reversed, "
                    "[0]: none, an affine decoder)",
                    {R::at_least(0)})
      .add_string("vae.decoder_activation", "relu", "vae: decoder hidden activation: relu, tanh or softplus",
                  {R::one_of({"relu", "tanh", "softplus"})})
      .add_int("sparse.inducing", 100, "sparse/bayesian_gplvm: number of inducing inputs M (<= N)",
               {R::at_least(1)})
      .add_string("sparse.inducing_init", "kmeans",
                  "sparse/bayesian_gplvm: initial inducing inputs, kmeans of the initial latents or a random "
                  "subset of them",
                  {R::one_of({"kmeans", "random"})})
      .add_string("sparse.training", "minibatch",
                  "sparse/bayesian_gplvm: minibatch (Adam on the uncollapsed bound with q(u), batches of "
                  "sas.batch_size rows) or full_batch (the collapsed bound over every row, full_batch.*: "
                  "L-BFGS on flat latents, optim.method's Riemannian optimiser on a curved latent space)",
                  {R::one_of({"minibatch", "full_batch"})})
      .add_int("sparse.active_set_refresh", 0,
               "sparse/bayesian_gplvm on a curved latent space: 0 (Z is a parameter, moved on the space) or "
               "K > 0: Z is the active set, M distinct latents (means) drawn uniformly at the start and "
               "redrawn from the current latents every K full-batch iterations or minibatch steps, never "
               "optimised (the hGP-LVM paper's setting is 5; riemannian_gd_paper restarts at rate 1e-3 "
               "after each redraw)",
               {R::range(0, kMaxInt)})
      .add_double("full_batch.gatol", 1e-5, "full_batch: stop when ||grad bound|| <= gatol", {R::at_least(0)})
      .add_double("full_batch.grtol", 1e-8, "full_batch: stop when ||grad bound|| / |bound| <= grtol",
                  {R::at_least(0)})
      .add_double(
          "full_batch.frtol", kFullBatchFrtol,
          "full_batch: stop (converged) when 10 iterations changed the bound by at most frtol |bound| "
          "(0: off)",
          {R::at_least(0)})
      .add_int("full_batch.max_iterations", 1000, "full_batch: L-BFGS iteration limit",
               {R::range(1, kMaxInt)})
      .add_int("train.seed", 0, "seed of every random draw", {R::at_least(0)})
      .add_int("train.epochs", 10, "number of epochs", {R::at_least(0)})
      .add_int("train.max_steps", 0, "stop after this many steps in total (0: no limit)", {R::at_least(0)})
      .add_bool(
          "train.reproducible", false,
          "sas/bayesian_sas/vae/sparse_gplvm/bayesian_gplvm: sum every reduction of a step (and of the "
          "start: PCA latents, encoder pre-training, the sparse kinds' q(u)) exactly over fixed blocks of "
          "rows, so that amortised and free latents train to the same bits at any rank count "
          "(docs/reliability.md); sparse.training = full_batch also runs L-BFGS on a copy of every "
          "parameter on every rank (N x Q values per rank, refused when it would not fit); refused for "
          "exact and probdr; false: per-rank sums, equal to rounding and faster")
      .add_double("train.learning_rate", 1e-3, "Adam learning rate", {R::greater_than(0)})
      .add_double("train.beta1", 0.9, "Adam beta1", {R::range(0, 0.999999)})
      .add_double("train.beta2", 0.999, "Adam beta2", {R::range(0, 0.999999999)})
      .add_double("train.epsilon", 1e-8, "Adam epsilon", {R::greater_than(0)})
      .add_string("train.lr_schedule", "constant",
                  "learning rate by global step: constant, cosine (to zero at the last step) or step "
                  "(times train.lr_step_factor every train.lr_step_every steps)",
                  {R::one_of({"constant", "cosine", "step"})})
      .add_int("train.lr_warmup_steps", 0, "linear learning-rate warm-up over this many steps (0: none)",
               {R::at_least(0)})
      .add_int("train.lr_step_every", 1000, "step schedule: steps between learning-rate decays",
               {R::at_least(1)})
      .add_double("train.lr_step_factor", 0.5, "step schedule: factor of each decay, in (0, 1]",
                  {R::greater_than(0), R::range(0, 1)})
      .add_double("train.clip_norm", 0.0,
                  "clip the global gradient 2-norm (all parameters, all ranks) to this value (0: off)",
                  {R::at_least(0)})
      .add_double("train.tolerance", 1e-3,
                  "stopping rule: a window (whole epochs, >= train.min_window_steps) counts as stalled when "
                  "the smoothed "
                  "objective (moving average, span one window) improves on its best by less than this "
                  "fraction of |best| (0: off)",
                  {R::at_least(0)})
      .add_int("train.min_window_steps", 50,
               "stopping rule and divergence test: a window holds whole epochs and at least this many steps",
               {R::at_least(1)})
      .add_int("train.patience", 3, "stopping rule: stalled windows in a row that end the run (converged)",
               {R::at_least(1)})
      .add_double("train.divergence_drop", 0.5,
                  "divergence: the smoothed objective falls below its peak by more than this fraction of "
                  "max(|peak|, peak - first smoothed value) (0: only non-finite values count)",
                  {R::at_least(0)})
      .add_string("train.on_divergence", "rollback",
                  "rollback (restore the last window end's state, lower the learning rate, continue) or "
                  "stop (exit 1)",
                  {R::one_of({"rollback", "stop"})})
      .add_double("train.rollback_lr_factor", 0.5, "each rollback multiplies the learning rate by this",
                  {R::greater_than(0), R::range(0, 0.999999)})
      .add_int("train.max_rollbacks", 3, "rollbacks allowed; the next divergence stops the run (exit 1)",
               {R::at_least(0)})
      .add_int("train.checkpoint_every", 0, "steps between checkpoints (0: only at the end)",
               {R::at_least(0)})
      .add_int("train.keep_checkpoints", 2, "checkpoints kept in output.checkpoint_dir", {R::at_least(1)})
      .add_double("train.progress_seconds", 5.0, "seconds between progress lines", {R::greater_than(0)})
      .add_string("optim.method", "auto", "the fitting method: " + fitting_method_help(),
                  {R::one_of(fitting_method_names())})
      .add_double("optim.stop_above", std::numeric_limits<double>::infinity(),
                  "a Riemannian optim.method: stop once the log marginal likelihood (exact) or the bound "
                  "(full-batch sparse kinds) exceeds this; inf (the default): never. The hGP-LVM paper's "
                  "code stops its point model at -100, as scripts/sbt_table2.py does by default")
      .add_double("optim.tolerance", 1e-5,
                  "a Riemannian optim.method: stop when an iteration changes the log marginal likelihood "
                  "(exact) or the bound (full-batch sparse kinds) by at most this (absolute); "
                  "exact.max_iterations (full_batch.max_iterations) bounds the iterations",
                  {R::at_least(0)})
      .add_double("exact.gatol", 1e-5, "exact: stop when ||grad LML|| <= gatol", {R::at_least(0)})
      .add_double("exact.grtol", 1e-8, "exact: stop when ||grad LML|| / |LML| <= grtol", {R::at_least(0)})
      .add_double(
          "exact.frtol", kFullBatchFrtol,
          "exact: stop (converged) when 10 iterations changed the LML by at most frtol |LML| (0: off)",
          {R::at_least(0)})
      .add_int("exact.max_iterations", 2000, "exact: L-BFGS iteration limit", {R::range(1, kMaxInt)})
      .add_double("exact.min_noise_variance", 1e-6, "exact: lower bound on the noise variance",
                  {R::greater_than(0)})
      .add_int("exact.block_size", ExactDistributedOptions{}.block_size, "exact: ScaLAPACK block size",
               {R::range(1, kMaxInt)})
      .add_int("exact.grid_rows", 0, "exact: process grid rows (0: the default grid, 1 x P below 64 ranks)",
               {R::range(0, kMaxInt)})
      .add_int("exact.grid_cols", 0, "exact: process grid columns (0: the default grid)",
               {R::range(0, kMaxInt)})
      .add_string("output.path", "results/run.h5", "run file to write", {R::non_empty()})
      .add_string("output.checkpoint_dir", "", "checkpoint directory (default: <output.path>.checkpoints)");
  // model.kind = "probdr": its methods (a registry of their own) and the neighbour graph.
  add_probdr_keys(s);
  // The initial values registered kernels declare a key for (model/kernel_registry.hpp).
  for (const KernelSetting& setting : registered_kernel_settings())
    s.add_double(setting.key, setting.initial, setting.help, {R::greater_than(0)});
  return s;
}

namespace {

// `value` as an absolute, normalised path: relative ones are taken from `base`.
std::string absolute_from(const std::filesystem::path& base, const std::string& value) {
  const std::filesystem::path p(value);
  return (p.is_absolute() ? p : base / p).lexically_normal().string();
}

}  // namespace

ResolvedTrainConfig resolve_train_config(const ConfigSchema& schema, const std::string& config_path,
                                         const std::vector<std::string>& overrides,
                                         std::optional<std::uint64_t> num_rows) {
  namespace fs = std::filesystem;
  const Config given = resolve_config(schema, config_path, overrides);
  const fs::path cwd = fs::current_path();
  const fs::path config_folder = config_path.empty() ? cwd : fs::absolute(config_path).parent_path();
  // Appended overrides win over everything before them, so re-resolving applies the absolute paths
  // and keeps every other key's value and check.
  std::vector<std::string> absolute = overrides;
  for (const char* key : {"data.path", "output.path", "output.checkpoint_dir"}) {
    const std::string& value = given.get_string(key);
    if (value.empty()) continue;  // output.checkpoint_dir's default: derived from output.path
    const fs::path& base = given.source(key) == ConfigSource::file ? config_folder : cwd;
    absolute.push_back(std::string(key) + "=" + absolute_from(base, value));
  }
  // The default lengthscale (0.1, the SAS paper's) suits an encoder's initial outputs, which sit
  // close together; PCA-started free latents have unit variance, where 0.1 makes every point its
  // own island (docs/math/initialisation.md, "Measured: latent recovery"). Unless the user set it,
  // they start at a lengthscale of their own scale, and the resolved (printed, stored) config says so.
  if (!given.was_set("model.lengthscale") && given.get_string("model.latents") == "free" &&
      given.get_string("model.init") == "pca")
    absolute.push_back("model.lengthscale=1.0");
  // The paper optimiser's own initial rate (Watanabe et al.'s code) unless the user chose one.
  if (!given.was_set("train.learning_rate") && given.get_string("optim.method") == "riemannian_gd_paper")
    absolute.push_back("train.learning_rate=0.01");
  AutomaticBudget budget;
  if (num_rows) {
    budget = automatic_budget(given, *num_rows);
    absolute.insert(absolute.end(), budget.overrides.begin(), budget.overrides.end());
  }
  std::vector<std::string> warnings;
  if (given.was_set("model.likelihood"))
    warnings.push_back(
        "model.likelihood is deprecated and ignored (the data term is Gaussian, on the data or, with "
        "model.output_space, on a manifold's tangent coordinates): remove it from the configuration");
  return {resolve_config(schema, config_path, absolute), given.get_string("data.path"), std::move(warnings),
          budget.note};
}

TrainSettings train_settings(const Config& c, Index data_dim) {
  TrainSettings t;
  t.data_file = c.get_string("data.path");
  t.data_path = c.get_string("data.dataset");
  t.labels_path = c.get_string("data.labels");
  t.center = c.get_bool("data.center");
  t.standardize = c.get_bool("data.standardize");
  t.model = sas_model_config(c, data_dim);
  const SasModelConfig& m = t.model;
  require_latent_space_support(c, m);
  require_kind_specific_keys(c);
  // An unknown or malformed model.kernel fails here, named; kernels read ambient coordinates.
  make_kernel(m.decoder.kernel, make_latent_space(m.latent_space, m.latent_dim)->ambient_dim());
  TrainerOptions& o = t.trainer;
  o.batch_size = static_cast<std::uint64_t>(c.get_int("sas.batch_size"));
  o.epochs = static_cast<std::uint64_t>(c.get_int("train.epochs"));
  o.max_steps = static_cast<std::uint64_t>(c.get_int("train.max_steps"));
  o.adam = {c.get_double("train.learning_rate"), c.get_double("train.beta1"), c.get_double("train.beta2"),
            c.get_double("train.epsilon")};
  o.schedule.decay = parse_learning_rate_decay(c.get_string("train.lr_schedule"));
  o.schedule.warmup_steps = static_cast<std::uint64_t>(c.get_int("train.lr_warmup_steps"));
  o.schedule.step_every = static_cast<std::uint64_t>(c.get_int("train.lr_step_every"));
  o.schedule.step_factor = c.get_double("train.lr_step_factor");
  o.clip_norm = c.get_double("train.clip_norm");
  o.convergence = {c.get_double("train.tolerance"), static_cast<std::uint64_t>(c.get_int("train.patience")),
                   c.get_double("train.divergence_drop"),
                   static_cast<std::uint64_t>(c.get_int("train.min_window_steps"))};
  o.on_divergence = parse_divergence_action(c.get_string("train.on_divergence"));
  o.rollback_lr_factor = c.get_double("train.rollback_lr_factor");
  o.max_rollbacks = static_cast<std::uint64_t>(c.get_int("train.max_rollbacks"));
  o.checkpoint_every = static_cast<std::uint64_t>(c.get_int("train.checkpoint_every"));
  o.progress_seconds = c.get_double("train.progress_seconds");
  o.seed = m.seed;
  t.output_path = c.get_string("output.path");
  t.checkpoint_dir = c.get_string("output.checkpoint_dir");
  if (t.checkpoint_dir.empty()) t.checkpoint_dir = t.output_path + ".checkpoints";
  t.keep_checkpoints = c.get_int("train.keep_checkpoints");
  t.full_batch = c.get_string("sparse.training") == "full_batch";
  // The exact model's L-BFGS has its own tolerances (exact.*); its other exact.* keys are the
  // model's (models/exact_gplvm_model.hpp).
  const std::string section = model_kind(c.get_string("model.kind")).full_batch_section + ".";
  t.full_batch_options.gatol = c.get_double(section + "gatol");
  t.full_batch_options.grtol = c.get_double(section + "grtol");
  t.full_batch_options.max_iterations = static_cast<int>(c.get_int(section + "max_iterations"));
  t.full_batch_options.frtol = c.get_double(section + "frtol");
  t.full_batch_options.replicated = c.get_bool("train.reproducible");
  // t.riemannian.method is the fitting method's choice (run/fitting_method.hpp).
  t.riemannian.adam = o.adam;
  t.riemannian.tolerance = c.get_double("optim.tolerance");
  t.riemannian.stop_above = c.get_double("optim.stop_above");
  t.riemannian.max_iterations = t.full_batch_options.max_iterations;
  return t;
}

std::map<std::string, std::string> resume_identity(const Config& config) {
  std::map<std::string, std::string> identity;
  for (const ConfigKey& key : config.schema().keys()) {
    const bool may_change = key.name == "train.epochs" || key.name == "train.max_steps" ||
                            key.name.rfind("output.", 0) == 0 || key.name == "train.progress_seconds" ||
                            key.name == "train.checkpoint_every" || key.name == "train.keep_checkpoints" ||
                            key.name == "train.tolerance" || key.name == "train.patience" ||
                            key.name == "train.min_window_steps" || key.name == "train.divergence_drop" ||
                            key.name == "train.on_divergence" || key.name == "train.max_rollbacks" ||
                            key.name == "data.path";  // the data are checked by fingerprint instead
    if (!may_change) identity[key.name] = config_value_to_toml(config.get(key.name));
  }
  return identity;
}

}  // namespace gplvm
