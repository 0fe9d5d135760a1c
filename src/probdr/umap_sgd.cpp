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
// Samples ahead whose rows the epoch's loop prefetches.
constexpr std::size_t kPrefetchSamples = 8;

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
// each. The remote indices are deduplicated with `marks` (one slot per target row, all -1 between
// uses), in the order first wanted, without sorting.
class TargetRows {
 public:
  TargetRows(const RowMatrix& local, std::int64_t first, std::int64_t end, std::uint64_t total,
             const std::vector<std::int64_t>& wanted, std::vector<std::int32_t>& marks,
             const Communicator& comm)
      : local_(local), first_(first), end_(end), marks_(marks) {
    for (const std::int64_t j : wanted) {
      if (j >= first && j < end) continue;
      std::int32_t& mark = marks[static_cast<std::size_t>(j)];
      if (mark >= 0) continue;
      mark = static_cast<std::int32_t>(remote_.size());
      remote_.push_back(j);
    }
    rows_ = fetch_rows(DataRef(local), total, remote_, comm);
  }
  ~TargetRows() {
    for (const std::int64_t j : remote_) marks_[static_cast<std::size_t>(j)] = -1;
  }
  TargetRows(const TargetRows&) = delete;
  TargetRows& operator=(const TargetRows&) = delete;
  const double* row(std::int64_t j) const {
    if (j >= first_ && j < end_) return local_.data() + (j - first_) * local_.cols();
    return rows_.data() + static_cast<Index>(marks_[static_cast<std::size_t>(j)]) * rows_.cols();
  }

 private:
  const RowMatrix& local_;
  std::int64_t first_, end_;
  std::vector<std::int32_t>& marks_;
  std::vector<std::int64_t> remote_;
  RowMatrix rows_;
};

// The sub-batch of a global edge in an epoch split into `batches` (a fixed hash, so the same at any
// rank count).
Index batch_of(std::int64_t global_edge, Index batches) {
  if (batches <= 1) return 0;
  std::uint64_t x = static_cast<std::uint64_t>(global_edge) + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return static_cast<Index>((x ^ (x >> 31)) % static_cast<std::uint64_t>(batches));
}

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
  const Index negatives = settings_.negative_samples, batches = std::max<Index>(1, settings_.umap_batches);
  // This epoch's sampled edges per sub-batch, each as (edge, row, its negative samples' vertices),
  // the draws made once, keyed.
  std::vector<std::vector<std::int64_t>> sampled(static_cast<std::size_t>(batches));
  for (Index i = 0; i < rows; ++i)
    for (std::int64_t edge = v_.row_begin(i); edge < v_.row_end(i); ++edge) {
      const double s = period_[static_cast<std::size_t>(edge)];
      if (s <= 0 || e == 0 || std::floor(e / s) <= std::floor((e - 1) / s)) continue;
      std::vector<std::int64_t>& list =
          sampled[static_cast<std::size_t>(batch_of(first_edge_ + edge, batches))];
      list.push_back(edge);
      list.push_back(i);
      for (Index t = 0; t < negatives; ++t) {
        const double u =
            rng.uniform(RngPurpose::negative_sample, static_cast<std::uint64_t>(e),
                        static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(first_edge_ + edge));
        list.push_back(std::min(static_cast<std::int64_t>(u * static_cast<double>(targets_)),
                                static_cast<std::int64_t>(targets_) - 1));
      }
    }
  if (marks_.size() != targets_) marks_.assign(targets_, -1);
  const auto [target_first, target_end] = reference_
                                              ? local_range(reference_->rows(), comm_)
                                              : std::pair<std::int64_t, std::int64_t>{first, first + rows};
  const double a = curve_.a, b = curve_.b, gamma = settings_.repulsion_strength;
  // Fitting moves both ends of both directed copies of an edge: y_i gets the pull twice. Encoding
  // moves the new row only, along its one edge to the training row.
  const double pulls = reference_ ? 1.0 : 2.0;
  const std::size_t stride = static_cast<std::size_t>(negatives) + 1;
  UmapEpochStats stats;
  std::int64_t local_samples = 0;
  RowMatrix moves(rows, l);
  std::vector<std::int64_t> wanted;
  std::vector<const double*> ends;  // per sample: its edge's other end, then its negatives' rows
  for (Index batch = 0; batch < batches; ++batch) {
    const std::vector<std::int64_t>& list = sampled[static_cast<std::size_t>(batch)];
    const std::size_t count = list.size() / (stride + 1);
    wanted.clear();
    for (std::size_t s = 0; s < count; ++s) {
      const std::int64_t* sample = list.data() + s * (stride + 1);
      wanted.push_back(v_.columns[static_cast<std::size_t>(sample[0])]);
      for (std::size_t t = 2; t <= stride; ++t) wanted.push_back(sample[t]);
    }
    // Every rank takes part in every batch's fetch, with or without samples in it.
    const TargetRows targets(reference_ ? *reference_ : y, target_first, target_end, targets_, wanted, marks_,
                             comm_);
    ends.resize(wanted.size());
    for (std::size_t w = 0; w < wanted.size(); ++w) ends[w] = targets.row(wanted[w]);
    moves.setZero();
    for (std::size_t s = 0; s < count; ++s) {
      // The rows are reached in no order (the loop waits on memory): ask for a later sample's early.
      if (s + kPrefetchSamples < count)
        for (std::size_t t = 0; t < stride; ++t)
          __builtin_prefetch(ends[(s + kPrefetchSamples) * stride + t]);
      const std::int64_t* sample = list.data() + s * (stride + 1);
      const Index i = static_cast<Index>(sample[1]);
      const double* yi = y.data() + i * l;
      double* move = moves.data() + i * l;
      const double* yj = ends[s * stride];
      double d2 = 0.0;
      for (Index d = 0; d < l; ++d) d2 += (yi[d] - yj[d]) * (yi[d] - yj[d]);
      ++local_samples;
      if (d2 > 0) {
        const double power = std::pow(d2, b);  // d^{2b}
        const double coefficient = -2.0 * a * b * (power / d2) / (a * power + 1.0);
        for (Index d = 0; d < l; ++d) move[d] += pulls * clip(coefficient * (yi[d] - yj[d])) * rate;
      }
      for (std::size_t t = 1; t < stride; ++t) {
        if (!reference_ && sample[t + 1] == first + i) continue;
        const double* yk = ends[s * stride + t];
        double k2 = 0.0;
        for (Index d = 0; d < l; ++d) k2 += (yi[d] - yk[d]) * (yi[d] - yk[d]);
        ++stats.negative_samples;
        if (k2 <= 0) continue;
        const double ad = a * std::pow(k2, b);
        const double coefficient = 2.0 * gamma * b / ((kRepulsionSoftening + k2) * (ad + 1.0));
        for (Index d = 0; d < l; ++d) move[d] += clip(coefficient * (yi[d] - yk[d])) * rate;
      }
    }
    y += moves;
  }
  stats.edge_samples = comm_.allreduce_sum(local_samples);
  stats.negative_samples = comm_.allreduce_sum(stats.negative_samples);
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
  if (marks_.size() != targets_) marks_.assign(targets_, -1);
  const TargetRows targets(y, first, first + rows, targets_, wanted, marks_, comm_);
  const double a = curve_.a, b = curve_.b;
  auto log_w = [&](double d2) { return -std::log1p(a * std::pow(std::max(d2, 1e-12), b)); };
  auto log_one_minus_w = [&](double d2) {
    const double ad = a * std::pow(std::max(d2, 1e-12), b);
    return std::log(ad) - std::log1p(ad);
  };
  double total = 0.0;
  for (Index i = 0; i < rows; ++i) {
    const Eigen::RowVectorXd yi = y.row(i);
    auto distance2 = [&](const double* other) {
      return (yi - Eigen::Map<const Eigen::RowVectorXd>(other, y.cols())).squaredNorm();
    };
    for (std::int64_t edge = v_.row_begin(i); edge < v_.row_end(i); ++edge) {
      const double v = v_.weights[static_cast<std::size_t>(edge)];
      const double d2 = distance2(targets.row(v_.columns[static_cast<std::size_t>(edge)]));
      if (v > 0) total += v * (std::log(v) - log_w(d2));
      if (v < 1) total += (1 - v) * (std::log1p(-v) - log_one_minus_w(d2));
    }
    double non_edges = 0.0;
    for (Index t = 0; t < partners; ++t) {
      const std::int64_t k = drawn[static_cast<std::size_t>(i * partners + t)];
      const auto begin = v_.columns.begin() + v_.row_begin(i), end = v_.columns.begin() + v_.row_end(i);
      if (std::binary_search(begin, end, k)) continue;
      non_edges -= log_one_minus_w(distance2(targets.row(k)));
    }
    total += non_edges * static_cast<double>(n - 1) / static_cast<double>(partners);
  }
  return comm_.allreduce_sum(total);
}

}  // namespace gplvm
