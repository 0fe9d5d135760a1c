#pragma once
// The settings of the neighbour-embedding methods (probdr.method = sne, tsne, umap;
// docs/math/neighbour_embedding.md): their affinities, their latent kernels and how they are
// optimised. Each is a configuration key (probdr.*) with the default of the tool users know it from
// (openTSNE for t-SNE, umap-learn for UMAP).
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/probdr/interpolated_repulsion.hpp"
#include "gplvm/probdr/perplexity_affinities.hpp"
#include "gplvm/probdr/umap_affinities.hpp"

namespace gplvm {

enum class NeighbourObjective { sne, tsne, umap };

// How the repulsion (the all-pairs half of the gradient) is computed.
enum class RepulsionMethod {
  automatic,      // interpolation for t-SNE beyond 1,000 rows in l <= 2, else exact; UMAP: negative sampling
  exact,          // every pair, O(n^2 / P) per evaluation (n <= probdr.dense_limit)
  interpolation,  // FFT-accelerated interpolation on a grid (t-SNE, l <= 2)
  negative_sampling,  // umap-learn's SGD: a few random vertices per sampled edge (UMAP)
};

// How the embedding starts (probdr.init).
enum class EmbeddingStart {
  automatic,
  pca,
  spectral,
  random
};  // automatic: pca (sne, tsne), spectral (umap)

struct NeighbourEmbeddingSettings {
  NeighbourObjective objective = NeighbourObjective::tsne;
  PerplexityOptions affinities;       // probdr.perplexity, probdr.affinities (sne, tsne)
  double degrees_of_freedom = 1.0;    // probdr.tsne_dof: alpha of (1 + d^2 / alpha)^-alpha (tsne)
  UmapMembershipOptions memberships;  // probdr.local_connectivity (umap)
  double min_dist = 0.1;              // probdr.min_dist (umap)
  double spread = 1.0;                // probdr.spread (umap)
  RepulsionMethod repulsion = RepulsionMethod::automatic;  // probdr.repulsion
  InterpolationOptions grid;                               // probdr.interpolation_nodes, probdr.min_boxes
  EmbeddingStart start = EmbeddingStart::automatic;        // probdr.init
  double start_scale = 1e-4;  // probdr.init_scale: std of the first start column (t-SNE)
  // t-SNE / SNE gradient descent (openTSNE's defaults).
  Index exaggeration_iterations = 250;  // probdr.early_exaggeration_iterations
  double exaggeration = 12.0;           // probdr.early_exaggeration
  Index iterations = 750;               // probdr.iterations: after the early exaggeration
  double late_exaggeration = 1.0;       // probdr.exaggeration: during those
  double learning_rate = 0.0;           // probdr.learning_rate: 0 takes max(n / exaggeration, 50)
  double early_momentum = 0.5;          // probdr.early_momentum
  double momentum = 0.8;                // probdr.momentum
  double min_gain = 0.01;               // probdr.min_gain
  // UMAP's epochs (umap-learn's defaults).
  Index epochs = 0;                 // probdr.epochs: 0 takes 500 up to 10,000 rows, else 200
  double umap_learning_rate = 1.0;  // probdr.umap_learning_rate, decayed linearly to 0
  Index negative_samples = 5;       // probdr.negative_samples per sampled edge
  double repulsion_strength = 1.0;  // probdr.repulsion_strength (umap-learn's gamma)
  // probdr.umap_batches: each epoch's sampled edges in this many fixed sub-batches (a hash of the
  // global edge), each applied before the next is computed: closer to umap-learn's in-place updates.
  Index umap_batches = 4;
  // encode: iterations of the new rows' optimisation against the fixed embedding.
  Index encode_iterations = 0;  // probdr.encode_iterations: 0 takes 250 (t-SNE), 100 (UMAP)
};

}  // namespace gplvm
