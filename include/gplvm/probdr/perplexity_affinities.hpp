#pragma once
// The data-space affinities of SNE and t-SNE (docs/math/neighbour_embedding.md) on the distributed
// k-NN graph: each row's conditional p_{j|i} over its k neighbours, calibrated so that the row's
// perplexity 2^H(p_{.|i}) equals the requested one, and t-SNE's joint p_ij = (p_{j|i} + p_{i|j}) / 2n.
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/knn_graph.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

enum class AffinityKind {
  perplexity,  // p_{j|i} proportional to exp(-beta_i d_ij^2), beta_i by binary search on the entropy
  uniform,     // p_{j|i} = 1/k on the k neighbours (openTSNE's "uniform" affinities)
};

struct PerplexityOptions {
  AffinityKind kind = AffinityKind::perplexity;
  double perplexity = 30.0;         // probdr.perplexity, 1 <= perplexity < k
  double entropy_tolerance = 1e-5;  // |H_i - log2 perplexity|, in bits
  int max_iterations = 200;         // bisection steps per row before the row is reported unconverged
};

// Row-conditional affinities: row i of the result holds p_{j|i} on i's k neighbours (knn.distances
// are Euclidean, not squared), summing to 1; its edges are exactly the k-NN graph's (an edge whose
// probability underflows stays, at weight 0). The bandwidth search works on squared distances
// shifted by the row's nearest one (the same probabilities, no underflow for far rows): bisection in
// beta, doubled or halved while the root is unbracketed (scikit-learn's and openTSNE's search), from
// 1 / the mean shifted squared distance. The entropy falls from log2 k at beta = 0 to log2 m as beta
// grows, m the neighbours tied at the nearest distance (duplicates): where m >= perplexity no beta
// reaches the target, and the row is the limit beta -> infinity, uniform on the m tied neighbours
// (precision +infinity; perplexity 1 always ends so, on the nearest neighbour). Rows whose neighbours
// are all at the same distance (all duplicates of it) get the uniform row (precision 0, as any beta
// gives it). A row whose search ends outside entropy_tolerance after max_iterations keeps the
// nearest beta it tried, and is a NumericalError if that misses by more than 1e-3 bits.
// `precisions`, when not null, receives each local row's beta_i (0 for the uniform kind). Errors:
// InputError naming probdr.perplexity (perplexity < 1 or >= k, NaN) and, for a non-finite or
// negative distance, `rows` with the row's global index. Local: no communication (a caller on
// several ranks agrees on the outcome).
SparseGraph conditional_affinities(const KnnGraph& knn, const PerplexityOptions& options,
                                   std::vector<double>* precisions = nullptr);

// t-SNE's symmetric joint affinities p_ij = (p_{j|i} + p_{i|j}) / (2 n) on every edge of either
// direction, summing to 1 over the whole graph when every conditional row sums to 1, distributed as
// `conditional` (collective: one transpose). Symmetric bit for bit, and the same bits at every rank
// count.
SparseGraph joint_affinities(const SparseGraph& conditional, const Communicator& comm);

// The entropy in bits of each local row of a row-stochastic graph (for tests and the run file).
Vector row_entropies_bits(const SparseGraph& conditional);

}  // namespace gplvm
