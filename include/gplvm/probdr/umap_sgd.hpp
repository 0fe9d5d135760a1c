#pragma once
// UMAP's optimisation (docs/math/neighbour_embedding.md; umap-learn's optimize_layout_euclidean),
// bulk-synchronous over the ranks: in epoch e each edge (i, j) of weight v is sampled when
// floor(e / s) > floor((e - 1) / s), s = max v / v (so the heaviest edges every epoch and an edge
// v / max v of the epochs); a sampled edge pulls y_i toward y_j by the clipped attractive gradient,
// twice (umap-learn moves both ends of each of the two directed copies of a symmetric edge), and
// pushes y_i away from `negative_samples` vertices drawn uniformly, keyed by (seed, epoch, global
// edge, sample), by the clipped repulsive gradient. Every move is computed from the positions at the
// epoch's start and applied at its end, scaled by the learning rate decayed linearly to zero, so an
// epoch does not depend on the order of the edges or on the rank count. Each rank fetches the rows
// its edges reach and the rows its negative samples drew (deduplicated), never the whole embedding.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/neighbour_embedding_settings.hpp"

namespace gplvm {

struct UmapEpochStats {
  std::int64_t edge_samples = 0;      // over every rank
  std::int64_t negative_samples = 0;  // over every rank
};

class UmapSgd {
 public:
  // `v`: the fuzzy union (this rank's rows, global columns); `reference`: the rows the samples move
  // toward and away from, when they are not the moving rows themselves (encode: the fixed training
  // embedding, rows split as RowPartition splits it), else null. Collective.
  UmapSgd(const SparseGraph& v, const UmapCurve& curve, const NeighbourEmbeddingSettings& settings,
          Index epochs, std::uint64_t seed, const Communicator& comm, const RowMatrix* reference = nullptr,
          std::uint64_t reference_rows = 0);
  Index epochs() const { return epochs_; }
  // Epoch e (0-based) on this rank's rows of y. Collective.
  UmapEpochStats epoch(RowMatrix& y, Index e) const;
  // C_UMAP at y (fitting only): the sum over the graph's edges exactly (their rows fetched), plus the
  // sum of -log(1 - w) over the pairs that are not edges, estimated from `partners` uniform draws per
  // row keyed by (seed, e): each row's draws that are not its edges, times (n - 1) / partners, an
  // unbiased estimate. Collective.
  double kl_estimate(const RowMatrix& y, Index e, Index partners = 8) const;

 private:
  const SparseGraph& v_;
  UmapCurve curve_;
  NeighbourEmbeddingSettings settings_;
  Index epochs_;
  std::uint64_t seed_;
  const Communicator& comm_;
  const RowMatrix* reference_;
  std::uint64_t targets_;                    // rows of the embedding samples are drawn from
  std::vector<double> period_;               // per edge: epochs between samples (max v / v), 0: never
  std::int64_t first_edge_ = 0;              // global index of this rank's first edge
  mutable std::vector<std::int32_t> marks_;  // per target row: its slot among the fetched rows, or -1
};

}  // namespace gplvm
