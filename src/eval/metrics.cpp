#include "gplvm/eval/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/exact_neighbours.hpp"

namespace gplvm {

PredictiveMetrics MetricSums::finish() const {
  require(entries > 0, "no test entries to evaluate", {"", "entries", "0"});
  const double n = static_cast<double>(entries);
  return {std::sqrt(squared_error / n), absolute_error / n,
          0.5 * std::log(2.0 * std::numbers::pi) + 0.5 * nlpd_terms / n, entries};
}

MetricSums predictive_metric_sums(const DataRef& Y, const ConstMatrixRef& mean,
                                  const ConstVectorRef& variance) {
  require(mean.rows() == Y.rows() && mean.cols() == Y.cols() && variance.size() == Y.rows(),
          "predictive and test data shapes differ", {"", "rows", std::to_string(Y.rows())});
  require((variance.array() > 0).all(), "predictive variances must be positive", {"", "variance", "<= 0"});
  MetricSums s;
  const Matrix error = Matrix(Y) - mean;
  s.squared_error = error.squaredNorm();
  s.absolute_error = error.cwiseAbs().sum();
  const Vector row_sq = error.rowwise().squaredNorm();
  const double d = static_cast<double>(Y.cols());
  s.nlpd_terms = (d * variance.array().log() + row_sq.array() / variance.array()).sum();
  s.entries = static_cast<std::uint64_t>(Y.size());
  return s;
}

MetricSums predictive_metric_sums(const DataRef& Y, const ConstMatrixRef& mean,
                                  const ConstVectorRef& variance, const ConstVectorRef& column_scale) {
  require(column_scale.size() == Y.cols() && (column_scale.array() > 0).all(),
          "column scales must be positive, one per data column",
          {"", "column_scale", std::to_string(column_scale.size())});
  MetricSums s = predictive_metric_sums(Y, mean, variance);  // validates the shapes
  const Matrix error = (Matrix(Y) - mean) * column_scale.asDiagonal();
  s.squared_error = error.squaredNorm();
  s.absolute_error = error.cwiseAbs().sum();
  // log(v_n s_d^2) + (s_d e)^2 / (v_n s_d^2): the unit-scale terms plus 2 log s_d per entry.
  s.nlpd_terms += 2.0 * static_cast<double>(Y.rows()) * column_scale.array().log().sum();
  return s;
}

std::int64_t majority_label(const std::vector<std::int64_t>& labels, const std::vector<Index>& neighbours) {
  std::map<std::int64_t, int> counts;
  for (const Index index : neighbours) ++counts[labels[static_cast<std::size_t>(index)]];
  return std::max_element(counts.begin(), counts.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;  // max_element keeps the first (smallest label) among equal counts
}

double knn_accuracy(const ConstMatrixRef& reference, const std::vector<std::int64_t>& reference_labels,
                    const ConstMatrixRef& query, const std::vector<std::int64_t>& query_labels, int k) {
  require(k >= 1 && k <= reference.rows(), "k must be between 1 and the number of reference points",
          {"", "k", std::to_string(k)});
  require(static_cast<Index>(reference_labels.size()) == reference.rows() &&
              static_cast<Index>(query_labels.size()) == query.rows(),
          "labels and latents differ in length", {"", "labels", std::to_string(reference_labels.size())});
  require(reference.cols() == query.cols(), "reference and query latents differ in dimension",
          {"", "latent_dim", std::to_string(query.cols())});
  require(query.rows() > 0, "no query points", {"", "query", "0"});
  const KnnGraph knn = query_neighbours(RowMatrix(reference), RowMatrix(query), k, "k");
  Index correct = 0;
  std::vector<Index> nearest(static_cast<std::size_t>(k));
  for (Index i = 0; i < query.rows(); ++i) {
    for (int t = 0; t < k; ++t) nearest[static_cast<std::size_t>(t)] = knn.neighbours(i, t);
    correct += majority_label(reference_labels, nearest) == query_labels[i];
  }
  return static_cast<double>(correct) / static_cast<double>(query.rows());
}

}  // namespace gplvm
