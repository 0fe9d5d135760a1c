#include "gplvm/probdr/probdr_settings.hpp"

#include <cstdint>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/probdr/probdr_method.hpp"

namespace gplvm {
namespace {

using R = ConfigRule;

std::string method_help() {
  std::string text;
  for (const std::string& name : registered_probdr_methods()) {
    const ProbdrMethod& m = probdr_method(name);
    text += (text.empty() ? "" : "; ") + name + " (" + m.summary + ")";
  }
  return text;
}

void add_method_keys(ConfigSchema& s) {
  s.add_string("probdr.method", "pca",
               "probdr: the classical method read as a Wishart model: " + method_help(),
               {R::one_of(registered_probdr_methods())})
      .add_string("probdr.fit", "auto",
                  "probdr: spectral (the closed-form optimum from the moment's extreme eigenpairs, SLEPc), "
                  "gradient (L-BFGS on the Wishart objective over the latents and the log noise, from "
                  "model.init), descent (sne, tsne, umap: the method's own optimiser) or auto (spectral for "
                  "the Wishart methods, descent for sne, tsne and umap)",
                  {R::one_of({"auto", "spectral", "gradient", "descent"})})
      .add_double(
          "probdr.fixed_noise", 0.0,
          "probdr: 0 estimates the noise (sigma^2 of a covariance moment, beta of a precision one) by "
          "maximum likelihood; > 0 holds it at this value (a tiny sigma^2 reproduces classical MDS)",
          {R::at_least(0)})
      .add_double("probdr.degrees_of_freedom", 0.0,
                  "probdr: the Wishart's degrees of freedom d (they scale the objective, not its optimum); 0 "
                  "takes the method's: the data's width D for pca (S_hat = Y Y^T / D), 1 otherwise",
                  {R::at_least(0)})
      .add_double(
          "probdr.precision_regularisation", 1e-3,
          "probdr, precision moments (le, lle): gamma of Gamma_hat + gamma I; a Laplacian is singular "
          "and the objective has no minimum without it",
          {R::greater_than(0)})
      .add_int(
          "probdr.landmarks", 0,
          "probdr isomap / kpca: 0 for the exact dense moment (n <= probdr.dense_limit); m > 0 for landmark "
          "Isomap / the Nystrom approximation with m landmarks",
          {R::at_least(0)})
      .add_int("probdr.dense_limit", 20000,
               "probdr: the largest n of a dense n x n moment (cmds, isomap, kpca without landmarks); each "
               "rank holds n^2 / P doubles",
               {R::at_least(2)})
      .add_string("probdr.kernel", "eq_ard",
                  "probdr kpca: the kernel, a registered one on R^D (model.kernel's names; its lengthscales "
                  "and variance are set as below)",
                  {R::non_empty()})
      .add_double("probdr.kernel_lengthscale", 0.0,
                  "probdr kpca: the kernel's lengthscale; 0 takes sqrt(D / 2), scikit-learn's gamma = 1 / D",
                  {R::at_least(0)})
      .add_double("probdr.lle_regularisation", 1e-3,
                  "probdr lle: eps of the local Gram regularisation G + eps tr(G) I (scikit-learn's reg)",
                  {R::greater_than(0)})
      .add_double("probdr.dmaps_alpha", 1.0,
                  "probdr dmaps: the density normalisation alpha (0: graph Laplacian, 1/2: Fokker-Planck, 1: "
                  "Laplace-Beltrami)",
                  {R::range(0, 1)})
      .add_double("probdr.dmaps_time", 1.0,
                  "probdr dmaps: the diffusion time t of lambda^t psi, a whole number of steps (S_hat = M^t)",
                  {R::range(1, 64)})
      .add_string(
          "probdr.eigensolver", "auto",
          "probdr le, lle, dmaps (spectral fit): krylov_schur (products only; restarts grow with n "
          "and with clustered eigenvalues), shift_invert (one MUMPS factorisation, then few "
          "restarts) or auto (shift_invert for these sparse moments, falling back to krylov_schur with "
          "a warning when the factorisation fails; krylov_schur for the others)",
          {R::one_of({"auto", "krylov_schur", "shift_invert"})})
      .add_int(
          "probdr.eigensolver_subspace", 0,
          "probdr spectral fit: the Krylov subspace's dimension (SLEPc's ncv), more than the eigenpairs "
          "wanted and at most n; 0 chooses: SLEPc's max(2 m, m + 15) for m eigenpairs on shift-and-invert "
          "and on problems up to 10,000 rows, else max(2 m, m + 64), since clustered eigenvalues (high-"
          "dimensional k-NN graphs) need far fewer restarts in a larger subspace",
          {R::at_least(0)})
      .add_double("probdr.dmaps_bandwidth", 0.0,
                  "probdr dmaps: eps of the kernel exp(-|y - y'|^2 / eps); 0 takes the median squared k-NN "
                  "distance",
                  {R::at_least(0)});
}

void add_neighbour_keys(ConfigSchema& s) {
  s.add_double("probdr.perplexity", 30.0,
               "probdr sne, tsne: each row's perplexity 2^H(p_.|i), its effective number of neighbours "
               "(1 <= perplexity < n / 3 and < graph.k)",
               {R::at_least(1)})
      .add_string(
          "probdr.affinities", "perplexity",
          "probdr sne, tsne: perplexity (Gaussian affinities calibrated per row) or uniform (1 / k on "
          "the k neighbours)",
          {R::one_of({"perplexity", "uniform"})})
      .add_double(
          "probdr.tsne_dof", 1.0,
          "probdr tsne: the degrees of freedom alpha of the latent kernel (1 + d^2 / alpha)^-alpha; 1 is "
          "t-SNE's Cauchy kernel, larger values approach SNE's Gaussian, smaller ones are heavier-tailed",
          {R::greater_than(0)})
      .add_string(
          "probdr.repulsion", "auto",
          "probdr sne, tsne, umap: how the all-pairs repulsion is computed: exact (O(n^2 / P) per "
          "iteration, n <= probdr.dense_limit), interpolation (tsne: FFT-accelerated interpolation on "
          "a grid, l <= 2), negative_sampling (umap) or auto (interpolation for tsne above 1,000 rows "
          "in l <= 2, exact for sne and small tsne, negative_sampling for umap)",
          {R::one_of({"auto", "exact", "interpolation", "negative_sampling"})})
      .add_int("probdr.interpolation_nodes", 3,
               "probdr tsne, interpolation: Lagrange nodes per grid box and dimension (FIt-SNE's)",
               {R::range(2, 10)})
      .add_int("probdr.min_boxes", 50,
               "probdr tsne, interpolation: the least number of grid boxes per dimension (one box per unit "
               "of the embedding's extent beyond that)",
               {R::at_least(1)})
      .add_double("probdr.boxes_per_unit", 1.0,
                  "probdr tsne, interpolation: grid boxes per unit of the embedding's extent (FIt-SNE's "
                  "intervals_per_integer); fewer boxes make the FFTs smaller and the repulsion coarser",
                  {R::greater_than(0)})
      .add_string("probdr.init", "auto",
                  "probdr sne, tsne, umap: the start, pca (principal components, the first scaled to "
                  "probdr.init_scale), spectral (Laplacian eigenmaps of the affinity graph, scaled to "
                  "[0, 10] as umap-learn does), random (keyed N(0, init_scale^2)) or auto (pca for sne and "
                  "tsne, spectral for umap)",
                  {R::one_of({"auto", "pca", "spectral", "random"})})
      .add_double("probdr.init_scale", 1e-4,
                  "probdr sne, tsne: the standard deviation of the start's first column (openTSNE's)",
                  {R::greater_than(0)})
      .add_int("probdr.early_exaggeration_iterations", 250,
               "probdr sne, tsne: iterations with exaggerated affinities (momentum probdr.early_momentum)",
               {R::at_least(0)})
      .add_double("probdr.early_exaggeration", 12.0,
                  "probdr sne, tsne: the affinities' factor during the early exaggeration",
                  {R::greater_than(0)})
      .add_int("probdr.iterations", 750,
               "probdr sne, tsne: iterations after the early exaggeration (momentum probdr.momentum)",
               {R::at_least(0)})
      .add_double("probdr.exaggeration", 1.0,
                  "probdr sne, tsne: the affinities' factor after the early exaggeration (1: the plain KL)",
                  {R::greater_than(0)})
      .add_double(
          "probdr.learning_rate", 0.0,
          "probdr sne, tsne: the step size in openTSNE's units (a gradient without t-SNE's factor 4); "
          "0 takes max(n / exaggeration, 50) in each phase",
          {R::at_least(0)})
      .add_double("probdr.early_momentum", 0.5, "probdr sne, tsne: momentum during the early exaggeration",
                  {R::range(0, 1)})
      .add_double("probdr.momentum", 0.8, "probdr sne, tsne: momentum after the early exaggeration",
                  {R::range(0, 1)})
      .add_double("probdr.min_gain", 0.01, "probdr sne, tsne: the least per-coordinate gain of the descent",
                  {R::greater_than(0)})
      .add_double("probdr.min_dist", 0.1,
                  "probdr umap: how tightly points may pack; with probdr.spread it fixes the kernel's (a, b)",
                  {R::at_least(0)})
      .add_double("probdr.spread", 1.0, "probdr umap: the scale of the embedded points (min_dist <= spread)",
                  {R::greater_than(0)})
      .add_double("probdr.local_connectivity", 1.0,
                  "probdr umap: neighbours assumed at full membership (rho_i interpolates the nearest ones)",
                  {R::at_least(0)})
      .add_int("probdr.epochs", 0, "probdr umap: SGD epochs; 0 takes 500 up to 10,000 rows, else 200",
               {R::at_least(0)})
      .add_double("probdr.umap_learning_rate", 1.0,
                  "probdr umap: the initial SGD rate, decayed linearly to 0 over the epochs",
                  {R::greater_than(0)})
      .add_int("probdr.negative_samples", 5, "probdr umap: negative samples per sampled edge",
               {R::at_least(0)})
      .add_double("probdr.repulsion_strength", 1.0, "probdr umap: the weight of the negative samples (gamma)",
                  {R::at_least(0)})
      .add_int("probdr.umap_batches", 4,
               "probdr umap: sub-batches per epoch (a fixed hash of each edge); each sub-batch's moves are "
               "applied before the next is computed, nearer umap-learn's in-place updates, at one more "
               "exchange of rows each",
               {R::at_least(1)})
      .add_int("probdr.encode_iterations", 0,
               "probdr sne, tsne, umap (encode): iterations of the new rows against the fixed embedding; 0 "
               "takes 250 (openTSNE's transform) or, for umap, 100 epochs (30 above 10,000 new rows)",
               {R::at_least(0)});
}

void add_graph_keys(ConfigSchema& s) {
  s.add_int(
       "graph.k", 0,
       "probdr: neighbours per row of the k-NN graph (k < n); 0 takes the method's: 10 (isomap, le, lle, "
       "dmaps), 3 x probdr.perplexity (sne, tsne), 15 (umap)",
       {R::at_least(0)})
      .add_string("graph.search", "exact",
                  "probdr: the k-NN search, exact (distance blocks passed around the ranks) or hnsw (an "
                  "hnswlib index per rank; approximate)",
                  {R::one_of({"exact", "hnsw"})})
      .add_string("graph.symmetrize", "union",
                  "probdr: the symmetric graph from the k-NN lists: union (i~j if either lists the other, "
                  "scikit-learn's), mutual (both) or fuzzy_union (UMAP's)",
                  {R::one_of({"union", "mutual", "fuzzy_union"})})
      .add_string("graph.laplacian", "symmetric",
                  "probdr le: the Laplacian, symmetric (I - D^-1/2 W D^-1/2, scikit-learn's) or unnormalised "
                  "(D - W)",
                  {R::one_of({"symmetric", "unnormalised"})});
}

void read_neighbour_settings(const Config& c, NeighbourObjective objective, NeighbourEmbeddingSettings& ne) {
  ne.objective = objective;
  ne.affinities.perplexity = c.get_double("probdr.perplexity");
  ne.affinities.kind =
      c.get_string("probdr.affinities") == "uniform" ? AffinityKind::uniform : AffinityKind::perplexity;
  ne.degrees_of_freedom = c.get_double("probdr.tsne_dof");
  const std::string repulsion = c.get_string("probdr.repulsion");
  ne.repulsion = repulsion == "exact"               ? RepulsionMethod::exact
                 : repulsion == "interpolation"     ? RepulsionMethod::interpolation
                 : repulsion == "negative_sampling" ? RepulsionMethod::negative_sampling
                                                    : RepulsionMethod::automatic;
  const bool umap = objective == NeighbourObjective::umap;
  require(ne.repulsion != RepulsionMethod::negative_sampling || umap,
          "negative sampling is UMAP's repulsion; sne and tsne use exact or interpolation",
          {"", "probdr.repulsion", repulsion});
  require(!umap || ne.repulsion == RepulsionMethod::automatic ||
              ne.repulsion == RepulsionMethod::negative_sampling,
          "umap is optimised by negative sampling (its exact objective has no scalable repulsion here)",
          {"", "probdr.repulsion", repulsion});
  require(objective != NeighbourObjective::sne || ne.repulsion != RepulsionMethod::interpolation,
          "sne's Gaussian kernel has no interpolated repulsion: use exact",
          {"", "probdr.repulsion", repulsion});
  ne.grid.nodes_per_box = static_cast<Index>(c.get_int("probdr.interpolation_nodes"));
  ne.grid.min_boxes = static_cast<Index>(c.get_int("probdr.min_boxes"));
  ne.grid.boxes_per_unit = c.get_double("probdr.boxes_per_unit");
  const std::string init = c.get_string("probdr.init");
  ne.start = init == "pca"        ? EmbeddingStart::pca
             : init == "spectral" ? EmbeddingStart::spectral
             : init == "random"   ? EmbeddingStart::random
                                  : EmbeddingStart::automatic;
  ne.start_scale = c.get_double("probdr.init_scale");
  ne.exaggeration_iterations = static_cast<Index>(c.get_int("probdr.early_exaggeration_iterations"));
  ne.exaggeration = c.get_double("probdr.early_exaggeration");
  ne.iterations = static_cast<Index>(c.get_int("probdr.iterations"));
  ne.late_exaggeration = c.get_double("probdr.exaggeration");
  ne.learning_rate = c.get_double("probdr.learning_rate");
  ne.early_momentum = c.get_double("probdr.early_momentum");
  ne.momentum = c.get_double("probdr.momentum");
  ne.min_gain = c.get_double("probdr.min_gain");
  ne.min_dist = c.get_double("probdr.min_dist");
  ne.spread = c.get_double("probdr.spread");
  ne.memberships.local_connectivity = c.get_double("probdr.local_connectivity");
  ne.epochs = static_cast<Index>(c.get_int("probdr.epochs"));
  ne.umap_learning_rate = c.get_double("probdr.umap_learning_rate");
  ne.negative_samples = static_cast<Index>(c.get_int("probdr.negative_samples"));
  ne.repulsion_strength = c.get_double("probdr.repulsion_strength");
  ne.umap_batches = static_cast<Index>(c.get_int("probdr.umap_batches"));
  ne.encode_iterations = static_cast<Index>(c.get_int("probdr.encode_iterations"));
}

}  // namespace

void add_probdr_keys(ConfigSchema& schema) {
  add_method_keys(schema);
  add_neighbour_keys(schema);
  add_graph_keys(schema);
}

ProbdrSettings read_probdr_settings(const Config& c) {
  ProbdrSettings s;
  s.method = c.get_string("probdr.method");
  const ProbdrMethod& method = probdr_method(s.method);
  s.fit = c.get_string("probdr.fit");
  const bool neighbour = method.neighbour_embedding.has_value();
  if (s.fit == "auto") s.fit = neighbour ? "descent" : "spectral";
  require(neighbour ? s.fit == "descent" : s.fit != "descent",
          neighbour ? "probdr.method = \"" + s.method +
                          "\" is fitted by its own optimiser: probdr.fit = \"descent\" (or auto)"
                    : "probdr.fit = \"descent\" is the optimiser of sne, tsne and umap; probdr.method = \"" +
                          s.method + "\" is fitted by spectral or gradient",
          {"", "probdr.fit", s.fit});
  s.latent_dim = static_cast<Index>(c.get_int("model.latent_dim"));
  const double fixed = c.get_double("probdr.fixed_noise");
  s.noise = fixed > 0 ? WishartNoise::fixed(fixed) : WishartNoise::estimated();
  s.degrees_of_freedom = c.get_double("probdr.degrees_of_freedom");
  s.precision_regularisation = c.get_double("probdr.precision_regularisation");
  s.landmarks = static_cast<Index>(c.get_int("probdr.landmarks"));
  s.dense_limit = static_cast<Index>(c.get_int("probdr.dense_limit"));
  s.kernel = c.get_string("probdr.kernel");
  s.kernel_lengthscale = c.get_double("probdr.kernel_lengthscale");
  s.lle_regularisation = c.get_double("probdr.lle_regularisation");
  s.dmaps_alpha = c.get_double("probdr.dmaps_alpha");
  s.dmaps_time = c.get_double("probdr.dmaps_time");
  s.dmaps_bandwidth = c.get_double("probdr.dmaps_bandwidth");
  s.seed = static_cast<std::uint64_t>(c.get_int("train.seed"));
  const std::string route = c.get_string("probdr.eigensolver");
  s.eigensolver = route == "krylov_schur"   ? EigenRoute::krylov_schur
                  : route == "shift_invert" ? EigenRoute::shift_invert
                                            : EigenRoute::automatic;
  s.eigensolver_subspace = static_cast<Index>(c.get_int("probdr.eigensolver_subspace"));
  s.graph.k = static_cast<Index>(c.get_int("graph.k"));
  if (s.graph.k == 0 && !neighbour) s.graph.k = 10;  // neighbour embeddings resolve it by n
  read_neighbour_settings(c, neighbour ? *method.neighbour_embedding : NeighbourObjective::tsne, s.neighbour);
  s.graph.search.search = parse_neighbour_search(c.get_string("graph.search"), "graph.search");
  s.graph.symmetrize = parse_symmetrisation(c.get_string("graph.symmetrize"), "graph.symmetrize");
  s.graph.laplacian = parse_laplacian(c.get_string("graph.laplacian"), "graph.laplacian");
  return s;
}

}  // namespace gplvm
