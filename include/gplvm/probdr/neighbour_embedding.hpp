#pragma once
// SNE, t-SNE and UMAP as ProbDR inference (docs/math/neighbour_embedding.md): step 1 turns the
// data into affinities on the distributed k-NN graph (the posterior q(A' | Y) over a random graph);
// step 2 moves the embedding X until p(A' | X), the latent kernel's graph distribution, is closest
// to it in KL. This file holds what both the fit and `encode` need: the affinities of a data set,
// and the optimiser of an embedding, one iteration (t-SNE, SNE) or epoch (UMAP) at a time.
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/embedding_descent.hpp"
#include "gplvm/probdr/exact_neighbour_objective.hpp"
#include "gplvm/probdr/neighbour_embedding_settings.hpp"
#include "gplvm/probdr/probdr_settings.hpp"

namespace gplvm {

struct NeighbourAffinities {
  NeighbourKernel kernel;
  SparseGraph graph;               // sne: v_{j|i}; tsne: p_ij; umap: the fuzzy union v_ij
  std::vector<double> bandwidths;  // this rank's rows: beta_i (sne, tsne) or sigma_i (umap)
  std::vector<double> nearest;     // umap: rho_i, this rank's rows; empty otherwise
  std::string description;         // for the run file and `info`
};

// Collective: the k-NN graph (graph.k, 0: 3 x perplexity, or 15 for UMAP; graph.search) and the
// method's affinities. InputError, alike on every rank, for n too small, k >= n, perplexity >= n / 3
// (naming probdr.perplexity), NaN (naming the data) and exact duplicate rows (naming the rows).
NeighbourAffinities neighbour_affinities(const DataRef& local_data, const ProbdrSettings& settings,
                                         const Communicator& comm);

// One iteration's (or epoch's) report.
struct NeighbourStep {
  double kl = 0.0;  // the objective (UMAP: estimated from the epoch's samples); NaN when not computed
  bool kl_estimated = false;      // UMAP at scale: an estimate
  double exaggeration = 1.0;      // t-SNE's at this iteration
  Index boxes_per_dimension = 0;  // the interpolation grid's (0: none)
};

// The optimisation of an embedding against fixed affinities.
class NeighbourOptimiser {
 public:
  virtual ~NeighbourOptimiser() = default;
  virtual Index iterations() const = 0;
  // Iteration `t` on this rank's rows of y, with the state carried from the one before (DescentState:
  // velocity and gains for t-SNE and SNE; unused by UMAP). Collective.
  virtual NeighbourStep step(RowMatrix& y, DescentState& state, Index t) const = 0;
  // What the gradient's repulsion is, in words, for the output ("exact", "FFT interpolation ...").
  virtual std::string approximation() const = 0;
};

// The method's optimiser (collective; the affinities must outlive it).
std::unique_ptr<NeighbourOptimiser> make_neighbour_optimiser(const NeighbourAffinities& affinities,
                                                             const ProbdrSettings& settings,
                                                             std::uint64_t num_rows,
                                                             const Communicator& comm);

// The exact KL of an embedding (O(n^2 / P)).
double exact_neighbour_kl(const RowMatrix& y, const NeighbourAffinities& affinities,
                          const Communicator& comm);

// The resolved settings' defaults that depend on the data size: graph.k, the epochs, the repulsion.
ProbdrSettings resolve_neighbour_settings(ProbdrSettings settings, std::uint64_t num_rows);

// encode: latents of new rows placed into a fixed embedding, optimising the new rows only (as
// openTSNE's and umap-learn's transforms do): each new row's affinities to its k nearest training
// rows, a start at their (median / weighted mean) latents, then the method's iterations against the
// training embedding held fixed. Collective.
RowMatrix place_new_rows(const DataRef& local_training, const ConstMatrixRef& training_latents,
                         const DataRef& local_new, const ProbdrSettings& settings, const Communicator& comm);

}  // namespace gplvm
