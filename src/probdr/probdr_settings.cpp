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
      .add_string("probdr.fit", "spectral",
                  "probdr: spectral (the closed-form optimum from the moment's extreme eigenpairs, SLEPc) or "
                  "gradient (L-BFGS on the Wishart objective over the latents and the log noise, from "
                  "model.init)",
                  {R::one_of({"spectral", "gradient"})})
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

void add_graph_keys(ConfigSchema& s) {
  s.add_int("graph.k", 10, "probdr isomap, le, lle, dmaps: neighbours per row of the k-NN graph (k < n)",
            {R::at_least(1)})
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

}  // namespace

void add_probdr_keys(ConfigSchema& schema) {
  add_method_keys(schema);
  add_graph_keys(schema);
}

ProbdrSettings read_probdr_settings(const Config& c) {
  ProbdrSettings s;
  s.method = c.get_string("probdr.method");
  probdr_method(s.method);  // an unknown name fails here, named
  s.fit = c.get_string("probdr.fit");
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
  s.graph.search.search = parse_neighbour_search(c.get_string("graph.search"), "graph.search");
  s.graph.symmetrize = parse_symmetrisation(c.get_string("graph.symmetrize"), "graph.symmetrize");
  s.graph.laplacian = parse_laplacian(c.get_string("graph.laplacian"), "graph.laplacian");
  return s;
}

}  // namespace gplvm
