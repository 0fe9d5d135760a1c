#pragma once
// Every choice a ProbDR fit makes (model.kind = "probdr"; docs/math/probdr.md lists the defaults and
// why): the method, how it is fitted, the neighbour graph and each method's own settings. The
// paper leaves most of them unstated; each is a configuration key with a documented default.
#include <string>

#include "gplvm/core/config.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/graph/laplacian.hpp"
#include "gplvm/graph/neighbour_search.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/objectives/wishart_noise.hpp"
#include "gplvm/probdr/neighbour_embedding_settings.hpp"
#include "gplvm/probdr/spectral_fit.hpp"

namespace gplvm {

// The neighbour graph of the graph-based methods (Isomap, Laplacian eigenmaps, LLE, diffusion maps).
struct GraphSettings {
  Index k = 10;  // graph.k (0 in the file: the method's, 10 here; sne, tsne, umap resolve it by n)
  NeighbourSearchOptions search;                               // graph.search
  Symmetrisation symmetrize = Symmetrisation::union_of_edges;  // graph.symmetrize
  LaplacianKind laplacian = LaplacianKind::symmetric;          // graph.laplacian (Laplacian eigenmaps)
};

struct ProbdrSettings {
  std::string method = "pca";  // probdr.method: a registered method (probdr_method.hpp)
  // probdr.fit: spectral (closed form), gradient (L-BFGS) or descent (a neighbour embedding's own
  // optimiser); "auto" in the file resolves to spectral or descent by the method.
  std::string fit = "spectral";
  Index latent_dim = 2;  // model.latent_dim, l
  // probdr.fixed_noise: 0 estimates sigma^2 / beta (their maximum-likelihood values), > 0 holds it.
  WishartNoise noise = WishartNoise::estimated();
  // probdr.degrees_of_freedom: the Wishart's d; 0 takes the method's (D for pca, 1 otherwise).
  double degrees_of_freedom = 0.0;
  double precision_regularisation = 1e-3;  // probdr.precision_regularisation, gamma > 0
  // probdr.landmarks: 0 for the exact dense moment (Isomap, kernel PCA, classical MDS); m > 0 for
  // landmark Isomap / Nystrom kernel PCA with m landmarks (named as approximations in the output).
  Index landmarks = 0;
  Index dense_limit = 20000;      // probdr.dense_limit: the largest n of an exact dense moment
  std::string kernel = "eq_ard";  // probdr.kernel: kernel PCA's kernel, from the kernel registry
  double kernel_lengthscale =
      0.0;  // probdr.kernel_lengthscale: 0 takes sqrt(D / 2) (scikit-learn's gamma = 1/D)
  double lle_regularisation = 1e-3;  // probdr.lle_regularisation: eps of eps tr(G) (scikit-learn's reg)
  double dmaps_alpha = 1.0;          // probdr.dmaps_alpha: density normalisation (1: Laplace-Beltrami)
  double dmaps_time = 1.0;           // probdr.dmaps_time: t of lambda^t psi
  double dmaps_bandwidth = 0.0;      // probdr.dmaps_bandwidth: eps of exp(-|y-y'|^2/eps); 0: median k-NN d^2
  std::uint64_t seed = 0;            // train.seed (random starts, landmark draws)
  EigenRoute eigensolver = EigenRoute::automatic;  // probdr.eigensolver (spectral_fit.hpp)
  Index eigensolver_subspace = 0;                  // probdr.eigensolver_subspace, 0: automatic
  GraphSettings graph;
  NeighbourEmbeddingSettings neighbour;  // sne, tsne, umap
};

// Adds the probdr.* and graph.* keys, with their defaults, rules and help, to `schema`.
void add_probdr_keys(ConfigSchema& schema);

// The settings of a configuration built on a schema with those keys. InputError naming the key for
// a value the rules cannot see (an unknown method, kernel or search).
ProbdrSettings read_probdr_settings(const Config& config);

}  // namespace gplvm
