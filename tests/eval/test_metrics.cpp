#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "gplvm/core/error.hpp"
#include "gplvm/eval/metrics.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

TEST(PredictiveMetrics, MatchTheDefinitionsEntryByEntry) {
  const RowMatrix Y = testing::random_normal(7, 4, 1);
  const Matrix mu = testing::random_normal(7, 4, 2);
  const Vector v = testing::random_normal(7, 1, 3).array().exp();
  const PredictiveMetrics m = predictive_metric_sums(Y, mu, v).finish();
  double se = 0, ae = 0, nlpd = 0;
  for (Index n = 0; n < 7; ++n)
    for (Index d = 0; d < 4; ++d) {
      const double e = Y(n, d) - mu(n, d);
      se += e * e;
      ae += std::abs(e);
      nlpd += 0.5 * std::log(2 * std::numbers::pi * v[n]) + 0.5 * e * e / v[n];  // -log N(y | mu, v)
    }
  EXPECT_NEAR(m.rmse, std::sqrt(se / 28), 1e-14);
  EXPECT_NEAR(m.mae, ae / 28, 1e-14);
  EXPECT_NEAR(m.nlpd, nlpd / 28, 1e-13);
  EXPECT_EQ(m.entries, 28u);
}

TEST(PredictiveMetrics, NlpdIsNegativeForAConfidentCorrectModel) {
  const RowMatrix Y = RowMatrix::Constant(3, 2, 0.5);
  const PredictiveMetrics m = predictive_metric_sums(Y, Matrix(Y), Vector::Constant(3, 1e-4)).finish();
  EXPECT_LT(m.nlpd, 0.0);  // no abs(): the reference code would report it as positive
  EXPECT_EQ(m.rmse, 0.0);
}

TEST(PredictiveMetrics, SumsFromRowBlocksCombineToTheWhole) {
  const RowMatrix Y = testing::random_normal(9, 3, 4);
  const Matrix mu = testing::random_normal(9, 3, 5);
  const Vector v = Vector::Constant(9, 0.7);
  MetricSums a = predictive_metric_sums(Y.topRows(4), mu.topRows(4), v.head(4));
  const MetricSums b = predictive_metric_sums(Y.bottomRows(5), mu.bottomRows(5), v.tail(5));
  a.squared_error += b.squared_error;
  a.absolute_error += b.absolute_error;
  a.nlpd_terms += b.nlpd_terms;
  a.entries += b.entries;
  const PredictiveMetrics whole = predictive_metric_sums(Y, mu, v).finish();
  EXPECT_NEAR(a.finish().nlpd, whole.nlpd, 1e-14);
  EXPECT_NEAR(a.finish().rmse, whole.rmse, 1e-14);
}

TEST(PredictiveMetrics, BadShapesAndVariancesAreErrors) {
  const RowMatrix Y = RowMatrix::Zero(3, 2);
  EXPECT_THROW(predictive_metric_sums(Y, Matrix::Zero(3, 3), Vector::Ones(3)), InputError);
  EXPECT_THROW(predictive_metric_sums(Y, Matrix::Zero(3, 2), Vector::Zero(3)), InputError);
}

TEST(KnnAccuracy, SeparatedClustersAreClassifiedPerfectlyAndShuffledLabelsAreNot) {
  const Index n = 60;
  Matrix ref(n, 2), query(n, 2);
  std::vector<std::int64_t> ref_labels(n), query_labels(n);
  const Matrix noise = testing::random_normal(2 * n, 2, 6) * 0.1;
  for (Index i = 0; i < n; ++i) {
    const double centre = 10.0 * (i % 3);
    ref.row(i) << centre + noise(i, 0), noise(i, 1);
    query.row(i) << centre + noise(n + i, 0), noise(n + i, 1);
    ref_labels[i] = query_labels[i] = i % 3;
  }
  EXPECT_DOUBLE_EQ(knn_accuracy(ref, ref_labels, query, query_labels, 1), 1.0);
  EXPECT_DOUBLE_EQ(knn_accuracy(ref, ref_labels, query, query_labels, 5), 1.0);
  for (auto& l : query_labels) l = (l + 1) % 3;  // every query now carries a wrong label
  EXPECT_DOUBLE_EQ(knn_accuracy(ref, ref_labels, query, query_labels, 1), 0.0);
  EXPECT_THROW(knn_accuracy(ref, ref_labels, query, query_labels, 0), InputError);
}

TEST(KnnAccuracy, MajorityVoteOfKNeighbours) {
  Matrix ref(3, 1), query(1, 1);
  ref << 0.0, 0.1, 0.2;
  query << 0.0;
  // Nearest is label 7, but the 3-NN majority is label 4.
  EXPECT_DOUBLE_EQ(knn_accuracy(ref, {7, 4, 4}, query, {7}, 1), 1.0);
  EXPECT_DOUBLE_EQ(knn_accuracy(ref, {7, 4, 4}, query, {7}, 3), 0.0);
}

}  // namespace
}  // namespace gplvm
