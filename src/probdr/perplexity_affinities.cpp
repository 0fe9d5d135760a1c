#include "gplvm/probdr/perplexity_affinities.hpp"

#include "affinity_checks.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <string>

#include "gplvm/core/error.hpp"
#include "union_with_transpose.hpp"

namespace gplvm {
namespace {

// A row whose bisection ends further than this from its target entropy, in bits, is an error; one
// that ends nearer (but outside entropy_tolerance) keeps the nearest beta it reached.
constexpr double kUnconvergedBits = 1e-3;

void require_options(const KnnGraph& knn, const PerplexityOptions& options) {
  require(knn.k >= 1, "the affinities need at least one neighbour per row",
          {"", "graph.k", std::to_string(knn.k)});
  if (options.kind != AffinityKind::perplexity) return;
  require(std::isfinite(options.perplexity) && options.perplexity >= 1.0 &&
              options.perplexity < static_cast<double>(knn.k),
          "probdr.perplexity must be at least 1 and below graph.k (" + std::to_string(knn.k) + ")",
          {"", "probdr.perplexity", exact_text(options.perplexity)});
  require(std::isfinite(options.entropy_tolerance) && options.entropy_tolerance > 0.0,
          "the entropy tolerance must be positive",
          {"", "probdr.entropy_tolerance", exact_text(options.entropy_tolerance)});
  require(options.max_iterations >= 1, "the perplexity search needs at least one iteration",
          {"", "probdr.max_iterations", std::to_string(options.max_iterations)});
}

// The row's conditional probabilities at precision beta on its shifted squared distances (the
// nearest at 0, so the normaliser is at least 1), and their entropy in bits.
struct RowAt {
  double entropy_bits = 0.0;
  double normaliser = 1.0;
};

RowAt row_at(const Vector& shifted, double beta, Vector& weights) {
  weights = (-beta * shifted.array()).exp().matrix();
  const double z = weights.sum();
  const double mean_shifted = weights.dot(shifted) / z;
  return {(std::log(z) + beta * mean_shifted) / std::numbers::ln2, z};
}

// p_{.|i} of one row with entropy log2 perplexity: beta by bisection, doubled or halved while the
// root is not yet bracketed (as scikit-learn's and openTSNE's searches do), from a start set by the
// row's own scale. Writes the probabilities into `p` (the row's order) and returns beta.
double calibrate_row(const RowMatrix::ConstRowXpr& distances, const PerplexityOptions& options,
                     Index global_row, Vector& p) {
  const Index k = distances.size();
  Vector shifted = distances.transpose().array().square().matrix();
  shifted.array() -= shifted.minCoeff();
  const double target = std::log2(options.perplexity);
  const Index ties = (shifted.array() == 0.0).count();
  // The entropy falls from log2 k at beta = 0 to log2(ties) as beta grows: with at least
  // `perplexity` neighbours tied at the nearest distance the target is out of reach, and the row is
  // the limit beta -> infinity, uniform on the tied ones (on all of them when every one is tied:
  // any beta gives that row, and beta is reported as 0).
  if (std::log2(static_cast<double>(ties)) >= target - options.entropy_tolerance) {
    p = (shifted.array() == 0.0).cast<double>() / static_cast<double>(ties);
    return ties == k ? 0.0 : std::numeric_limits<double>::infinity();
  }
  double beta = static_cast<double>(k) / shifted.sum(), low = 0.0;
  double high = std::numeric_limits<double>::infinity();
  double best_beta = beta, best_miss = std::numeric_limits<double>::infinity();
  Vector weights;
  for (int iteration = 0; iteration < options.max_iterations && std::isfinite(beta); ++iteration) {
    const double entropy = row_at(shifted, beta, weights).entropy_bits;
    const double miss = std::abs(entropy - target);
    if (miss < best_miss) best_miss = miss, best_beta = beta;
    if (miss <= options.entropy_tolerance) break;
    if (entropy > target) {
      low = beta;
      beta = std::isinf(high) ? 2.0 * beta : 0.5 * (beta + high);
    } else {
      high = beta;
      beta = 0.5 * (beta + low);
    }
  }
  if (!(best_miss <= kUnconvergedBits))
    throw NumericalError("the perplexity search of row " + std::to_string(global_row) + " ended " +
                             exact_text(best_miss) + " bits from log2 perplexity after " +
                             std::to_string(options.max_iterations) + " iterations",
                         {"", "probdr.perplexity", exact_text(options.perplexity)});
  const double z = row_at(shifted, best_beta, weights).normaliser;
  p = weights / z;
  return best_beta;
}

}  // namespace

SparseGraph conditional_affinities(const KnnGraph& knn, const PerplexityOptions& options,
                                   std::vector<double>* precisions) {
  require_options(knn, options);
  const Index rows = knn.local_rows(), k = knn.k;
  if (precisions) precisions->assign(static_cast<std::size_t>(rows), 0.0);
  std::vector<Edge> edges;
  edges.reserve(static_cast<std::size_t>(rows * k));
  Vector p(k);
  for (Index i = 0; i < rows; ++i) {
    require_finite_distances(knn, i);
    const auto global = static_cast<std::int64_t>(knn.first_row) + i;
    double beta = 0.0;
    if (options.kind == AffinityKind::uniform)
      p.setConstant(1.0 / static_cast<double>(k));
    else
      beta = calibrate_row(knn.distances.row(i), options, global, p);
    if (precisions) (*precisions)[static_cast<std::size_t>(i)] = beta;
    for (Index t = 0; t < k; ++t) edges.push_back({global, knn.neighbours(i, t), p[t]});
  }
  return graph_from_edges(knn.num_rows, knn.first_row, rows, std::move(edges));
}

SparseGraph joint_affinities(const SparseGraph& conditional, const Communicator& comm) {
  const double two_n = 2.0 * static_cast<double>(conditional.num_rows);
  // (a + b) / 2n is (b + a) / 2n bit for bit: the result is exactly symmetric.
  return detail::union_with_transpose(conditional, comm,
                                      [two_n](double a, double b) { return (a + b) / two_n; });
}

Vector row_entropies_bits(const SparseGraph& conditional) {
  Vector entropies = Vector::Zero(conditional.local_rows());
  for (Index i = 0; i < conditional.local_rows(); ++i)
    for (std::int64_t e = conditional.row_begin(i); e < conditional.row_end(i); ++e) {
      const double p = conditional.weights[static_cast<std::size_t>(e)];
      if (p > 0.0) entropies[i] -= p * std::log2(p);
    }
  return entropies;
}

}  // namespace gplvm
