#include "gplvm/models/inducing_init.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// Streams of RngPurpose::latent_init beside the free latents' (epoch 0).
constexpr std::uint64_t kSampleStream = 1, kSeedingStream = 2, kSubsetStream = 3;

// This rank's rows that fall in the sample (each global row with probability `fraction`), gathered
// from every rank in rank order, which is global row order.
Matrix gathered_sample(const Communicator& comm, const RowPartition& partition, const ConstMatrixRef& local,
                       double fraction, const CounterRng& rng) {
  const std::uint64_t begin = partition.begin(comm.rank());
  std::vector<Index> chosen;
  for (Index i = 0; i < local.rows(); ++i)
    if (fraction >= 1.0 || rng.uniform(RngPurpose::latent_init, kSampleStream, 0, begin + i) < fraction)
      chosen.push_back(i);
  Matrix mine(static_cast<Index>(chosen.size()), local.cols());
  for (Index i = 0; i < mine.rows(); ++i) mine.row(i) = local.row(chosen[i]);
  return comm.allgather_rows(ConstMatrixRef(mine));
}

// Index of the row whose cumulative weight first exceeds u * total.
Index weighted_pick(const Vector& weights, double u) {
  const double target = u * weights.sum();
  double sum = 0.0;
  for (Index i = 0; i < weights.size(); ++i) {
    sum += weights[i];
    if (sum > target && weights[i] > 0) return i;
  }
  for (Index i = weights.size() - 1; i >= 0; --i)  // rounding at the end: the last row with weight
    if (weights[i] > 0) return i;
  return -1;
}

Matrix plus_plus_seeds(const ConstMatrixRef& points, Index k, const CounterRng& rng) {
  const Index n = points.rows();
  Matrix centres(k, points.cols());
  std::vector<bool> used(n, false);
  Index first = std::min<Index>(n - 1, rng.uniform(RngPurpose::latent_init, kSeedingStream, 0, 0) * n);
  centres.row(0) = points.row(first);
  used[first] = true;
  Vector distance = (points.rowwise() - centres.row(0)).rowwise().squaredNorm();
  for (Index c = 1; c < k; ++c) {
    for (Index i = 0; i < n; ++i)
      if (used[i]) distance[i] = 0.0;
    Index next = weighted_pick(distance, rng.uniform(RngPurpose::latent_init, kSeedingStream, 0, c));
    if (next < 0) next = std::find(used.begin(), used.end(), false) - used.begin();  // duplicates only
    centres.row(c) = points.row(next);
    used[next] = true;
    distance = distance.cwiseMin((points.rowwise() - centres.row(c)).rowwise().squaredNorm());
  }
  return centres;
}

// One Lloyd round: returns whether any assignment changed. Empty clusters keep their centre.
bool lloyd_round(const ConstMatrixRef& points, Matrix& centres, std::vector<Index>& assignment) {
  bool changed = false;
  for (Index i = 0; i < points.rows(); ++i) {
    Index best = 0;
    (centres.rowwise() - points.row(i)).rowwise().squaredNorm().minCoeff(&best);
    changed = changed || assignment[i] != best;
    assignment[i] = best;
  }
  Matrix sums = Matrix::Zero(centres.rows(), centres.cols());
  Vector counts = Vector::Zero(centres.rows());
  for (Index i = 0; i < points.rows(); ++i) {
    sums.row(assignment[i]) += points.row(i);
    counts[assignment[i]] += 1.0;
  }
  for (Index c = 0; c < centres.rows(); ++c)
    if (counts[c] > 0) centres.row(c) = sums.row(c) / counts[c];
  return changed;
}

// k distinct rows of points, by a partial Fisher-Yates shuffle with keyed draws.
Matrix random_rows(const ConstMatrixRef& points, Index k, const CounterRng& rng) {
  std::vector<Index> order(points.rows());
  std::iota(order.begin(), order.end(), 0);
  Matrix out(k, points.cols());
  for (Index c = 0; c < k; ++c) {
    const Index remaining = points.rows() - c;
    const Index j =
        c +
        std::min<Index>(remaining - 1, rng.uniform(RngPurpose::latent_init, kSubsetStream, 0, c) * remaining);
    std::swap(order[c], order[j]);
    out.row(c) = points.row(order[c]);
  }
  return out;
}

}  // namespace

InducingInit parse_inducing_init(const std::string& name) {
  if (name == "kmeans") return InducingInit::kmeans;
  if (name == "random") return InducingInit::random;
  throw InputError("unknown inducing-input initialisation (kmeans or random)",
                   {"", "sparse.inducing_init", name});
}

Matrix kmeans_centres(const ConstMatrixRef& points, Index k, std::uint64_t seed, int max_iterations) {
  require(k >= 1 && k <= points.rows(), "k-means needs 1 <= k <= the number of points",
          {"", "sparse.inducing", std::to_string(k)});
  const CounterRng rng(seed);
  Matrix centres = plus_plus_seeds(points, k, rng);
  std::vector<Index> assignment(points.rows(), -1);
  for (int round = 0; round < max_iterations; ++round)
    if (!lloyd_round(points, centres, assignment)) break;
  return centres;
}

Matrix initial_inducing_inputs(const Communicator& comm, const RowPartition& partition,
                               const ConstMatrixRef& local_latents, Index num_inducing, InducingInit init,
                               std::uint64_t seed) {
  const auto n = static_cast<Index>(partition.num_rows());
  require(num_inducing >= 1 && num_inducing <= n,
          "the number of inducing inputs must be between 1 and the number of data rows (" +
              std::to_string(n) + ")",
          {"", "sparse.inducing", std::to_string(num_inducing)});
  const CounterRng rng(seed);
  const Index wanted = std::max<Index>(kInducingSampleRows, 20 * num_inducing);
  Matrix sample = gathered_sample(comm, partition, local_latents,
                                  static_cast<double>(wanted) / static_cast<double>(n), rng);
  if (sample.rows() < num_inducing)  // an unlucky draw on a small data set: every row instead
    sample = gathered_sample(comm, partition, local_latents, 1.0, rng);
  return init == InducingInit::kmeans ? kmeans_centres(sample, num_inducing, seed)
                                      : random_rows(sample, num_inducing, rng);
}

}  // namespace gplvm
