// Step 2 of SNE, t-SNE and UMAP: the optimisers of an embedding against fixed affinities.
#include <cmath>
#include <cstdio>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/probdr/neighbour_embedding.hpp"
#include "gplvm/probdr/tsne_gradient.hpp"
#include "gplvm/probdr/umap_sgd.hpp"

namespace gplvm {
namespace {

// How often the scalable t-SNE reports its KL (openTSNE's callbacks_every_iters).
constexpr Index kKlEvery = 50;
// UMAP's estimate costs about an epoch: every 25 of its (200 by default) epochs.
constexpr Index kUmapKlEvery = 25;

// The descent's learning rate is openTSNE's rule for t-SNE's gradient without its constant 4. SNE's
// affinities sum to 1 in every row rather than over every pair, so its gradient is about n times
// t-SNE's: the same rule, divided by n (at 600 rows, the t-SNE rate left SNE at a KL of 10,107, a
// rate n times smaller reached 953, where a 10 times smaller one still ends).
double gradient_scale(NeighbourObjective objective, std::uint64_t n) {
  return objective == NeighbourObjective::sne ? 4.0 * static_cast<double>(n) : 4.0;
}

// t-SNE and SNE: gradient descent with momentum, gains and early exaggeration.
class DescentOptimiser : public NeighbourOptimiser {
 public:
  DescentOptimiser(const NeighbourAffinities& a, const ProbdrSettings& s, std::uint64_t n,
                   const Communicator& comm)
      : affinities_(a),
        settings_(s.neighbour),
        descent_(s.neighbour, n, gradient_scale(a.kernel.objective, n)),
        comm_(comm) {
    if (a.kernel.objective == NeighbourObjective::tsne)
      gradient_.emplace(a.graph, a.kernel.alpha, s.neighbour.repulsion, s.neighbour.grid, comm);
  }
  Index iterations() const override { return descent_.total_iterations(); }

  NeighbourStep step(RowMatrix& y, DescentState& state, Index t) const override {
    NeighbourStep out;
    out.exaggeration = descent_.exaggeration(t);
    const EmbeddingGradient gradient = [&](const RowMatrix& at, double exaggeration) {
      if (gradient_) {
        // The KL costs a logarithm per edge: computed every kKlEvery iterations and at the last.
        const bool with_kl = t % kKlEvery == 0 || t + 1 == iterations();
        TsneEvaluation e = gradient_->evaluate(at, exaggeration, with_kl);
        out.boxes_per_dimension = e.boxes_per_dimension;
        return std::make_pair(e.kl, std::move(e.gradient));
      }
      NeighbourEvaluation e =
          exact_neighbour_objective(at, affinities_.graph, affinities_.kernel, exaggeration, comm_);
      return std::make_pair(e.kl, std::move(e.gradient));
    };
    out.kl = descent_.step(y, state, t, gradient).kl;
    return out;
  }

  std::string approximation() const override {
    if (settings_.repulsion != RepulsionMethod::interpolation) return "exact (every pair)";
    return "repulsion by FFT-accelerated interpolation (" + std::to_string(settings_.grid.nodes_per_box) +
           " nodes per box, at least " + std::to_string(settings_.grid.min_boxes) + " boxes per dimension)";
  }

 private:
  const NeighbourAffinities& affinities_;
  NeighbourEmbeddingSettings settings_;
  EmbeddingDescent descent_;
  const Communicator& comm_;
  std::optional<TsneGradient> gradient_;
};

// UMAP: SGD epochs with negative sampling.
class UmapOptimiser : public NeighbourOptimiser {
 public:
  UmapOptimiser(const NeighbourAffinities& a, const ProbdrSettings& s, std::uint64_t,
                const Communicator& comm)
      : settings_(s.neighbour),
        sgd_(a.graph, a.kernel.curve, s.neighbour, s.neighbour.epochs, s.seed, comm) {}
  Index iterations() const override { return sgd_.epochs(); }

  NeighbourStep step(RowMatrix& y, DescentState&, Index t) const override {
    NeighbourStep out;
    out.kl_estimated = true;
    // The objective before the epoch, every kUmapKlEvery epochs and at the last: exact over the
    // edges, estimated over the other pairs.
    out.kl = t % kUmapKlEvery == 0 || t + 1 == iterations() ? sgd_.kl_estimate(y, t)
                                                            : std::numeric_limits<double>::quiet_NaN();
    sgd_.epoch(y, t);
    return out;
  }

  std::string approximation() const override {
    return "SGD with negative sampling (" + std::to_string(settings_.negative_samples) +
           " per sampled edge; each epoch in " + std::to_string(settings_.umap_batches) +
           " bulk-synchronous sub-batches)";
  }

 private:
  NeighbourEmbeddingSettings settings_;
  UmapSgd sgd_;
};

}  // namespace

std::unique_ptr<NeighbourOptimiser> make_neighbour_optimiser(const NeighbourAffinities& affinities,
                                                             const ProbdrSettings& settings,
                                                             std::uint64_t num_rows,
                                                             const Communicator& comm) {
  if (affinities.kernel.objective == NeighbourObjective::umap)
    return std::make_unique<UmapOptimiser>(affinities, settings, num_rows, comm);
  return std::make_unique<DescentOptimiser>(affinities, settings, num_rows, comm);
}

double exact_neighbour_kl(const RowMatrix& y, const NeighbourAffinities& affinities,
                          const Communicator& comm) {
  // t-SNE's value needs only Z over every pair, which the exact repulsion sums without the gradient's
  // per-pair work.
  if (affinities.kernel.objective == NeighbourObjective::tsne)
    return TsneGradient(affinities.graph, affinities.kernel.alpha, RepulsionMethod::exact,
                        InterpolationOptions{}, comm)
        .evaluate(y, 1.0)
        .kl;
  return exact_neighbour_objective(y, affinities.graph, affinities.kernel, 1.0, comm).kl;
}

}  // namespace gplvm
