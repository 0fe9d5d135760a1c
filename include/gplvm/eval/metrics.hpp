#pragma once
// Predictive metrics (docs/math/exact_gplvm.md), averaged over all N* x D entries (per pixel):
//   RMSE = sqrt(mean (y - mu)^2),  MAE = mean |y - mu|,
//   NLPD = 1/2 log 2 pi + 1/(2 N* D) sum_{n,d} [log v_n + (y_nd - mu_nd)^2 / v_n]
// with one predictive variance v_n per test point shared by its D outputs (noise included). No
// abs() on the NLPD (the reference code's): it is negative when the model is confident and right.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

struct PredictiveMetrics {
  double rmse = 0, mae = 0, nlpd = 0;
  std::uint64_t entries = 0;
};

// Sums over local rows, to be combined across ranks (add the fields, then finish()).
struct MetricSums {
  double squared_error = 0, absolute_error = 0, nlpd_terms = 0;
  std::uint64_t entries = 0;
  PredictiveMetrics finish() const;
};

MetricSums predictive_metric_sums(const DataRef& Y, const ConstMatrixRef& mean,
                                  const ConstVectorRef& variance);
// The same in units where column d is column_scale[d] times the given one (data that were
// standardised: y = scale * y' + mean): errors scale by s_d, variances by s_d^2.
MetricSums predictive_metric_sums(const DataRef& Y, const ConstMatrixRef& mean,
                                  const ConstVectorRef& variance, const ConstVectorRef& column_scale);

// The most frequent of labels[neighbours[t]], the smallest label among equal counts: the vote of
// every k-NN classifier here (eval/metrics, eval/embedding_metrics).
std::int64_t majority_label(const std::vector<std::int64_t>& labels, const std::vector<Index>& neighbours);

// Fraction of query points whose k nearest reference points (Euclidean; ties to the lower index)
// vote for the query's label (majority; ties to the smallest label).
double knn_accuracy(const ConstMatrixRef& reference, const std::vector<std::int64_t>& reference_labels,
                    const ConstMatrixRef& query, const std::vector<std::int64_t>& query_labels, int k);

}  // namespace gplvm
