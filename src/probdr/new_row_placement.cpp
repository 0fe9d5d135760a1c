// encode for SNE, t-SNE and UMAP: new rows placed into a fixed embedding by optimising them alone.
#include <algorithm>
#include <cmath>
#include <optional>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/remote_rows.hpp"
#include "gplvm/probdr/interpolated_repulsion.hpp"
#include "gplvm/probdr/neighbour_embedding.hpp"
#include "gplvm/probdr/out_of_sample.hpp"
#include "gplvm/probdr/umap_sgd.hpp"

namespace gplvm {
namespace {

// openTSNE's transform: 250 iterations at learning rate 0.1 (its units), momentum 0.8, exaggeration
// 1.5, from each new row's neighbours' median.
constexpr Index kTsneEncodeIterations = 250;
constexpr double kTsneEncodeRate = 0.1, kTsneEncodeMomentum = 0.8, kTsneEncodeExaggeration = 1.5;
// umap-learn's transform: 100 epochs (30 above 10,000 new rows) at a quarter of the learning rate,
// from the membership-weighted mean of the neighbours' latents, with local_connectivity 0.
constexpr double kUmapEncodeRateFraction = 0.25;

std::uint64_t total_rows(Index local, const Communicator& comm) {
  return static_cast<std::uint64_t>(comm.allreduce_sum(static_cast<std::int64_t>(local)));
}

// Row e: the training latents of edge e's column (the graph's edges, in its order).
RowMatrix edge_latents(const SparseGraph& graph, const ConstMatrixRef& training_latents,
                       std::uint64_t num_training, const Communicator& comm) {
  const RowMatrix local = training_latents;
  return fetch_rows(DataRef(local), num_training, graph.columns, comm);
}

// Each new row's start: the coordinate-wise median of its neighbours' latents (openTSNE's).
RowMatrix median_start(const SparseGraph& graph, const RowMatrix& neighbour_latents) {
  const Index rows = graph.local_rows(), l = neighbour_latents.cols();
  RowMatrix start(rows, l);
  std::vector<double> values;
  for (Index i = 0; i < rows; ++i)
    for (Index d = 0; d < l; ++d) {
      values.clear();
      for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e)
        values.push_back(neighbour_latents(e, d));
      std::sort(values.begin(), values.end());
      const std::size_t k = values.size();
      start(i, d) = k % 2 ? values[k / 2] : 0.5 * (values[k / 2 - 1] + values[k / 2]);
    }
  return start;
}

// The t-SNE gradient of each new row's own KL(p_.|i || q_.|i), q_k|i = w_ik / sum_k' w_ik' over the
// training rows, which stay fixed: attraction to its neighbours, repulsion from every training row,
// by the interpolation grid where the training run used it (O(n + m) per evaluation, as openTSNE's
// transform), else exactly (O(m n)).
class PlacementGradient {
 public:
  PlacementGradient(const SparseGraph& p, const RowMatrix& neighbour_latents, const RowMatrix& local_training,
                    double alpha, std::optional<InterpolationOptions> grid, const Communicator& comm)
      : p_(p),
        neighbours_(neighbour_latents),
        training_(local_training),
        alpha_(alpha),
        grid_(grid),
        comm_(comm) {}
  std::pair<double, RowMatrix> operator()(const RowMatrix& y, double exaggeration) const {
    const CrossRepulsionSums repulsion =
        grid_ ? interpolated_cross_repulsion(training_, y, alpha_, *grid_, comm_)
              : exact_cross_repulsion(training_, y, alpha_, comm_);
    RowMatrix g = -4.0 * (repulsion.forces.array().colwise() / repulsion.z.array()).matrix();
    double kl = 0.0;
    for (Index i = 0; i < y.rows(); ++i)
      for (std::int64_t e = p_.row_begin(i); e < p_.row_end(i); ++e) {
        const double pij = p_.weights[static_cast<std::size_t>(e)];
        const Eigen::RowVectorXd diff = y.row(i) - neighbours_.row(e);
        const double base = 1.0 + diff.squaredNorm() / alpha_;
        g.row(i) += 4.0 * exaggeration * pij / base * diff;
        kl += pij * (std::log(pij) + alpha_ * std::log(base) + std::log(repulsion.z[i]));
      }
    return {kl, g};
  }

 private:
  const SparseGraph& p_;
  const RowMatrix& neighbours_;  // row e: the latents of edge e's training row
  const RowMatrix& training_;    // this rank's training latents
  double alpha_;
  std::optional<InterpolationOptions> grid_;
  const Communicator& comm_;
};

RowMatrix place_by_descent(const KnnGraph& knn, const ConstMatrixRef& training, const ProbdrSettings& s,
                           const Communicator& comm) {
  const NeighbourEmbeddingSettings& ne = s.neighbour;
  const SparseGraph p = conditional_affinities(knn, ne.affinities);
  const RowMatrix neighbour_latents = edge_latents(p, training, knn.num_rows, comm);
  const RowMatrix local_training = training;
  NeighbourEmbeddingSettings placement = ne;
  placement.exaggeration_iterations = 0;
  placement.iterations = ne.encode_iterations > 0 ? ne.encode_iterations : kTsneEncodeIterations;
  placement.late_exaggeration = kTsneEncodeExaggeration;
  placement.learning_rate = kTsneEncodeRate;
  placement.momentum = kTsneEncodeMomentum;
  const EmbeddingDescent descent(placement, knn.num_rows, 4.0);
  const std::optional<InterpolationOptions> grid =
      ne.repulsion == RepulsionMethod::interpolation ? std::optional(ne.grid) : std::nullopt;
  const PlacementGradient gradient(p, neighbour_latents, local_training, ne.degrees_of_freedom, grid, comm);
  RowMatrix y = median_start(p, neighbour_latents);
  DescentState state;
  for (Index t = 0; t < descent.total_iterations(); ++t) descent.step(y, state, t, std::cref(gradient));
  return y;
}

RowMatrix place_by_umap(const KnnGraph& knn, const ConstMatrixRef& training, const ProbdrSettings& s,
                        const Communicator& comm) {
  UmapMembershipOptions options = s.neighbour.memberships;
  options.local_connectivity = std::max(0.0, options.local_connectivity - 1.0);
  const SparseGraph v = smooth_knn_memberships(knn, options);
  const RowMatrix neighbour_latents = edge_latents(v, training, knn.num_rows, comm);
  const Index rows = knn.local_rows();
  RowMatrix y = RowMatrix::Zero(rows, training.cols());
  for (Index i = 0; i < rows; ++i) {
    double mass = 0.0;
    for (std::int64_t e = v.row_begin(i); e < v.row_end(i); ++e) {
      y.row(i) += v.weights[static_cast<std::size_t>(e)] * neighbour_latents.row(e);
      mass += v.weights[static_cast<std::size_t>(e)];
    }
    y.row(i) = mass > 0 ? Eigen::RowVectorXd(y.row(i) / mass) : median_start(v, neighbour_latents).row(i);
  }
  NeighbourEmbeddingSettings placement = s.neighbour;
  placement.umap_learning_rate *= kUmapEncodeRateFraction;
  const std::uint64_t m = total_rows(rows, comm);
  const Index epochs =
      s.neighbour.encode_iterations > 0 ? s.neighbour.encode_iterations : (m <= 10000 ? 100 : 30);
  const RowMatrix reference = training;
  const UmapSgd sgd(v, fit_umap_curve(s.neighbour.spread, s.neighbour.min_dist), placement, epochs, s.seed,
                    comm, &reference, total_rows(training.rows(), comm));
  for (Index e = 0; e < epochs; ++e) sgd.epoch(y, e);
  return y;
}

}  // namespace

RowMatrix place_new_rows(const DataRef& local_training, const ConstMatrixRef& training_latents,
                         const DataRef& local_new, const ProbdrSettings& settings, const Communicator& comm) {
  const Index k = settings.graph.k;
  const KnnGraph knn = training_neighbours(local_training, local_new, k, comm);
  if (settings.neighbour.objective == NeighbourObjective::umap)
    return place_by_umap(knn, training_latents, settings, comm);
  return place_by_descent(knn, training_latents, settings, comm);
}

}  // namespace gplvm
