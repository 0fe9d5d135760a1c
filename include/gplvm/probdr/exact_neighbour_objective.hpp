#pragma once
// The exact neighbour-embedding objectives (docs/math/neighbour_embedding.md), each the KL divergence
// between the affinities, read as the posterior q(A' | Y) over a random graph, and the latent kernel's
// distribution p(A' | X):
//   sne   C = sum_i sum_{j != i} v_{j|i} log(v_{j|i} / w_{j|i}),  w_{j|i} = exp(-d_ij^2) / sum_{k != i}
//   exp(-d_ik^2) tsne  C = sum_{i != j} p_ij log(p_ij / q_ij),  q_ij = w_ij / Z,  w_ij = (1 + d_ij^2 /
//   alpha)^(-alpha) umap  C = sum_{i != j} v_ij log(v_ij / w_ij) + (1 - v_ij) log((1 - v_ij) / (1 - w_ij)),
//         w_ij = 1 / (1 + a d_ij^{2b})
// with their gradients, over every pair: O(n^2 / P) per evaluation, every rank gathering every row.
// For tests, for the gradient route (L-BFGS) and for n up to probdr.dense_limit.
#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/neighbour_embedding_settings.hpp"

namespace gplvm {

struct NeighbourKernel {
  NeighbourObjective objective = NeighbourObjective::tsne;
  double alpha = 1.0;  // tsne's degrees of freedom
  UmapCurve curve;     // umap's (a, b)
};

struct NeighbourEvaluation {
  double kl = 0.0;     // the objective C (the KL; minimised)
  RowMatrix gradient;  // dC / dY for this rank's rows
};

// `y`: this rank's rows of the embedding; `affinities`: this rank's rows of the affinity graph (sne:
// the row-conditional v_{j|i}; tsne: the joint p_ij; umap: the fuzzy union v_ij), columns global.
// `exaggeration` multiplies the affinities in the gradient only (t-SNE's early exaggeration; 1 for
// the true gradient); the value is always the true KL. Collective.
NeighbourEvaluation exact_neighbour_objective(const RowMatrix& y, const SparseGraph& affinities,
                                              const NeighbourKernel& kernel, double exaggeration,
                                              const Communicator& comm);

}  // namespace gplvm
