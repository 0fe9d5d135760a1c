#include "gplvm/probdr/umap_sgd.hpp"

#include <algorithm>
#include <cmath>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/parallel/remote_rows.hpp"

namespace gplvm {
namespace {

// umap-learn's bounds: each coordinate of one move is clipped to [-4, 4], and the repulsion's
// 1 / d^2 is softened to 1 / (0.001 + d^2).
constexpr double kClip = 4.0;
constexpr double kRepulsionSoftening = 0.001;

double clip(double x) {
  return std::clamp(x, -kClip, kClip);
}

// The global indices of the rows this rank holds of a set split in rank order.
std::pair<std::int64_t, std::int64_t> local_range(std::int64_t local_rows, const Communicator& comm) {
  const std::vector<std::int64_t> counts = comm.allgather(local_rows);
  std::int64_t first = 0;
  for (int r = 0; r < comm.rank(); ++r) first += counts[static_cast<std::size_t>(r)];
  return {first, first + local_rows};
}

// Rows of the target embedding by global index: this rank's own directly, the others fetched once
// each per epoch.
class TargetRows {
 public:
  TargetRows(const RowMatrix& local, std::int64_t first, std::int64_t end, std::uint64_t total,
             std::vector<std::int64_t> wanted, const Communicator& comm)
      : local_(local), first_(first), end_(end) {
    std::vector<std::int64_t> remote;
    for (const std::int64_t j : wanted)
      if (j < first || j >= end) remote.push_back(j);
    std::sort(remote.begin(), remote.end());
    remote.erase(std::unique(remote.begin(), remote.end()), remote.end());
    remote_ = std::move(remote);
    rows_ = fetch_rows(DataRef(local), total, remote_, comm);
  }
  Eigen::RowVectorXd row(std::int64_t j) const {
    if (j >= first_ && j < end_) return local_.row(j - first_);
    const auto at = std::lower_bound(remote_.begin(), remote_.end(), j) - remote_.begin();
    return rows_.row(at);
  }

 private:
  const RowMatrix& local_;
  std::int64_t first_, end_;
  std::vector<std::int64_t> remote_;
  RowMatrix rows_;
};

}  // namespace

UmapSgd::UmapSgd(const SparseGraph& v, const UmapCurve& curve, const NeighbourEmbeddingSettings& settings,
                 Index epochs, std::uint64_t seed, const Communicator& comm, const RowMatrix* reference,
                 std::uint64_t reference_rows)
    : v_(v),
      curve_(curve),
      settings_(settings),
      epochs_(epochs),
      seed_(seed),
      comm_(comm),
      reference_(reference),
      targets_(reference ? reference_rows : v.num_rows) {
  require(epochs > 0, "UMAP needs at least one epoch", {"", "probdr.epochs", std::to_string(epochs)});
  double local_max = 0.0;
  for (const double w : v.weights) local_max = std::max(local_max, w);
  const double max_weight = comm.allreduce_max(local_max);
  period_.resize(v.weights.size());
  for (std::size_t e = 0; e < v.weights.size(); ++e)
    period_[e] = v.weights[e] > 0 ? max_weight / v.weights[e] : 0.0;
  first_edge_ = local_range(v.local_edges(), comm).first;
}

UmapEpochStats UmapSgd::epoch(RowMatrix& y, Index e) const {
  const Index rows = y.rows(), l = y.cols();
  const std::int64_t first = static_cast<std::int64_t>(v_.first_row);
  const CounterRng rng(seed_);
  const double rate =
      settings_.umap_learning_rate * (1.0 - static_cast<double>(e) / static_cast<double>(epochs_));
  // Which edges this epoch samples, and the vertices their negative samples draw.
  struct Sample {
    Index row;
    std::int64_t edge;
  };
  std::vector<Sample> samples;
  std::vector<std::int64_t> wanted;
  const Index negatives = settings_.negative_samples;
  for (Index i = 0; i < rows; ++i)
    for (std::int64_t edge = v_.row_begin(i); edge < v_.row_end(i); ++edge) {
      const double s = period_[static_cast<std::size_t>(edge)];
      if (s <= 0 || e == 0 || std::floor(e / s) <= std::floor((e - 1) / s)) continue;
      samples.push_back({i, edge});
      wanted.push_back(v_.columns[static_cast<std::size_t>(edge)]);
      for (Index t = 0; t < negatives; ++t) {
        const double u =
            rng.uniform(RngPurpose::negative_sample, static_cast<std::uint64_t>(e),
                        static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(first_edge_ + edge));
        wanted.push_back(std::min(static_cast<std::int64_t>(u * static_cast<double>(targets_)),
                                  static_cast<std::int64_t>(targets_) - 1));
      }
    }
  const RowMatrix& target_local = reference_ ? *reference_ : y;
  const auto [target_first, target_end] = reference_
                                              ? local_range(reference_->rows(), comm_)
                                              : std::pair<std::int64_t, std::int64_t>{first, first + rows};
  const TargetRows targets(target_local, target_first, target_end, targets_, std::move(wanted), comm_);
  const double a = curve_.a, b = curve_.b, gamma = settings_.repulsion_strength;
  // Fitting moves both ends of both directed copies of an edge: y_i gets the pull twice. Encoding
  // moves the new row only, along its one edge to the training row.
  const double pulls = reference_ ? 1.0 : 2.0;
  RowMatrix moves = RowMatrix::Zero(rows, l);
  UmapEpochStats stats;
  for (const Sample& sample : samples) {
    const Eigen::RowVectorXd yi = y.row(sample.row);
    const Eigen::RowVectorXd diff = yi - targets.row(v_.columns[static_cast<std::size_t>(sample.edge)]);
    const double d2 = diff.squaredNorm();
    if (d2 > 0) {
      const double coefficient = -2.0 * a * b * std::pow(d2, b - 1.0) / (a * std::pow(d2, b) + 1.0);
      for (Index d = 0; d < l; ++d) moves(sample.row, d) += pulls * clip(coefficient * diff[d]) * rate;
      stats.attraction += std::log1p(a * std::pow(d2, b));
    }
    for (Index t = 0; t < negatives; ++t) {
      const double u =
          rng.uniform(RngPurpose::negative_sample, static_cast<std::uint64_t>(e),
                      static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(first_edge_ + sample.edge));
      const std::int64_t k = std::min(static_cast<std::int64_t>(u * static_cast<double>(targets_)),
                                      static_cast<std::int64_t>(targets_) - 1);
      if (!reference_ && k == first + sample.row) continue;
      const Eigen::RowVectorXd away = yi - targets.row(k);
      const double k2 = away.squaredNorm();
      ++stats.negative_samples;
      if (k2 <= 0) continue;
      const double coefficient = 2.0 * gamma * b / ((kRepulsionSoftening + k2) * (a * std::pow(k2, b) + 1.0));
      for (Index d = 0; d < l; ++d) moves(sample.row, d) += clip(coefficient * away[d]) * rate;
      // -log(1 - w) = log(1 + a d^{2b}) - log(a d^{2b})
      const double ad = a * std::pow(k2, b);
      stats.repulsion += std::log1p(ad) - std::log(ad);
    }
  }
  y += moves;
  stats.edge_samples = comm_.allreduce_sum(static_cast<std::int64_t>(samples.size()));
  stats.negative_samples = comm_.allreduce_sum(stats.negative_samples);
  double sums[2] = {stats.attraction, stats.repulsion};
  comm_.allreduce_sum(sums, 2);
  stats.attraction = sums[0];
  stats.repulsion = sums[1];
  return stats;
}

double UmapSgd::kl_estimate(const RowMatrix& y, Index e, Index partners) const {
  if (reference_) throw Error("UmapSgd::kl_estimate: the objective of a fit, not of placed rows");
  const Index rows = y.rows();
  const std::int64_t first = static_cast<std::int64_t>(v_.first_row), n = static_cast<std::int64_t>(targets_);
  const CounterRng rng(seed_);
  // The draws' steps lie above those of the epochs' negative samples (0 .. negative_samples - 1).
  const std::uint64_t step_base = 1u << 20;
  std::vector<std::int64_t> wanted(v_.columns.begin(), v_.columns.end());
  std::vector<std::int64_t> drawn(static_cast<std::size_t>(rows * partners));
  for (Index i = 0; i < rows; ++i)
    for (Index t = 0; t < partners; ++t) {
      // Uniform over the n - 1 other rows.
      const double u = rng.uniform(RngPurpose::negative_sample, static_cast<std::uint64_t>(e), step_base + t,
                                   static_cast<std::uint64_t>(first + i));
      std::int64_t k = std::min(static_cast<std::int64_t>(u * static_cast<double>(n - 1)), n - 2);
      if (k >= first + i) ++k;
      drawn[static_cast<std::size_t>(i * partners + t)] = k;
      wanted.push_back(k);
    }
  const TargetRows targets(y, first, first + rows, targets_, std::move(wanted), comm_);
  const double a = curve_.a, b = curve_.b;
  auto log_w = [&](double d2) { return -std::log1p(a * std::pow(std::max(d2, 1e-12), b)); };
  auto log_one_minus_w = [&](double d2) {
    const double ad = a * std::pow(std::max(d2, 1e-12), b);
    return std::log(ad) - std::log1p(ad);
  };
  double total = 0.0;
  for (Index i = 0; i < rows; ++i) {
    const Eigen::RowVectorXd yi = y.row(i);
    for (std::int64_t edge = v_.row_begin(i); edge < v_.row_end(i); ++edge) {
      const double v = v_.weights[static_cast<std::size_t>(edge)];
      const double d2 = (yi - targets.row(v_.columns[static_cast<std::size_t>(edge)])).squaredNorm();
      if (v > 0) total += v * (std::log(v) - log_w(d2));
      if (v < 1) total += (1 - v) * (std::log1p(-v) - log_one_minus_w(d2));
    }
    double non_edges = 0.0;
    for (Index t = 0; t < partners; ++t) {
      const std::int64_t k = drawn[static_cast<std::size_t>(i * partners + t)];
      const auto begin = v_.columns.begin() + v_.row_begin(i), end = v_.columns.begin() + v_.row_end(i);
      if (std::binary_search(begin, end, k)) continue;
      non_edges -= log_one_minus_w((yi - targets.row(k)).squaredNorm());
    }
    total += non_edges * static_cast<double>(n - 1) / static_cast<double>(partners);
  }
  return comm_.allreduce_sum(total);
}

}  // namespace gplvm
