// The predictive evaluation (gplvm/eval/predictive_evaluation.hpp) under mpirun at 1-4 ranks,
// against a serial computation written out here: the test data encoded by a serial model, the
// exact GP predictive from a dense Eigen LLT on the conditioning rows chosen by the keyed
// permutation, the metrics summed entry by entry, and the k-NN accuracy by brute force.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "gplvm/core/keyed_permutation.hpp"
#include "gplvm/eval/predictive_evaluation.hpp"
#include "gplvm/models/sas_model.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kTrainRows = 50, kTestRows = 23, kDim = 5, kK = 3;

SasModelConfig model_config() {
  SasModelConfig c =
      testing::training_test_config(kDim, false, LatentKind::amortised, Precision::float64, {8}, 3);
  c.decoder.noise_variance = 0.1;
  return c;
}

std::vector<std::int64_t> labels_of(const Matrix& latents) {
  std::vector<std::int64_t> labels(latents.rows());
  for (Index i = 0; i < latents.rows(); ++i) labels[i] = latents(i, 0) > 0 ? 1 : 0;
  return labels;
}

// This rank's share of Y (and of its labels), as load_distributed_dataset lays it out.
DistributedDataset distributed(const RowMatrix& Y, const std::vector<std::int64_t>* labels,
                               const Communicator& comm) {
  DistributedDataset d;
  d.rows = static_cast<std::uint64_t>(Y.rows());
  d.cols = static_cast<std::uint64_t>(Y.cols());
  d.partition = RowPartition(d.rows, comm.size());
  const Index begin = static_cast<Index>(d.partition.begin(comm.rank())),
              count = static_cast<Index>(d.partition.count(comm.rank()));
  d.local = Y.middleRows(begin, count);
  if (labels) d.labels = std::vector<std::int64_t>(labels->begin() + begin, labels->begin() + begin + count);
  return d;
}

// The training rows the evaluation conditions on, chosen independently of conditioning_set().
std::vector<Index> conditioning_rows(std::uint64_t size, std::uint64_t seed) {
  std::vector<Index> rows;
  if (size == 0 || size >= static_cast<std::uint64_t>(kTrainRows)) {
    for (Index i = 0; i < kTrainRows; ++i) rows.push_back(i);
    return rows;
  }
  const KeyedPermutation permutation(kTrainRows, seed, 0);
  for (std::uint64_t i = 0; i < size; ++i) rows.push_back(static_cast<Index>(permutation(i)));
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct SerialReference {
  Matrix test_latents, mean;
  Vector variance;
  double rmse = 0, mae = 0, nlpd = 0, knn = 0;
};

// mean = K_*M (K_MM + s2 I)^{-1} Y_M, variance = k(x*, x*) + s2 - k_*M (K_MM + s2 I)^{-1} k_M*.
void exact_predictive(const Kernel& kernel, double noise, const Matrix& Xc, const Matrix& Yc,
                      SerialReference& ref) {
  Matrix K, Ks;
  Vector diag;
  kernel.cross(Xc, Xc, K);
  kernel.cross(ref.test_latents, Xc, Ks);
  kernel.diagonal(ref.test_latents, diag);
  K.diagonal().array() += noise;
  const Eigen::LLT<Matrix> llt(K);
  ref.mean = Ks * llt.solve(Yc);
  const Matrix solved = llt.solve(Matrix(Ks.transpose()));
  ref.variance = diag.array() + noise - (Ks.array() * solved.transpose().array()).rowwise().sum();
}

void metrics(const RowMatrix& Ys, SerialReference& ref) {
  double se = 0, ae = 0, nlpd = 0;
  for (Index n = 0; n < Ys.rows(); ++n)
    for (Index d = 0; d < Ys.cols(); ++d) {
      const double e = Ys(n, d) - ref.mean(n, d);
      se += e * e;
      ae += std::abs(e);
      nlpd += 0.5 * std::log(2 * std::numbers::pi * ref.variance[n]) + 0.5 * e * e / ref.variance[n];
    }
  const double entries = static_cast<double>(Ys.size());
  ref.rmse = std::sqrt(se / entries);
  ref.mae = ae / entries;
  ref.nlpd = nlpd / entries;
}

// k nearest by brute force, majority of binary labels.
double knn(const Matrix& X, const std::vector<std::int64_t>& labels, const Matrix& Xs,
           const std::vector<std::int64_t>& test_labels) {
  int correct = 0;
  for (Index i = 0; i < Xs.rows(); ++i) {
    std::vector<std::pair<double, Index>> d;
    for (Index j = 0; j < X.rows(); ++j) d.push_back({(X.row(j) - Xs.row(i)).squaredNorm(), j});
    std::sort(d.begin(), d.end());
    int ones = 0;
    for (int k = 0; k < kK; ++k) ones += labels[d[k].second] == 1;
    correct += (2 * ones > kK ? 1 : 0) == test_labels[i];
  }
  return correct / static_cast<double>(Xs.rows());
}

struct Problem {
  Matrix train_latents = testing::random_normal(kTrainRows, 2, 11);
  RowMatrix Y = testing::random_normal(kTrainRows, kDim, 12);
  RowMatrix Ys = testing::random_normal(kTestRows, kDim, 13);
  std::vector<std::int64_t> labels = labels_of(train_latents);
};

SerialReference serial_reference(const Problem& p, std::uint64_t size, std::uint64_t seed,
                                 const std::vector<std::int64_t>& test_labels) {
  const SasModel model(model_config(), kTestRows, 0, kTestRows);
  const Vector params = model.initial_parameters();
  SerialReference ref;
  RowMatrix encoded;
  model.encode(params, p.Ys, 0, encoded, nullptr);
  ref.test_latents = encoded;
  const std::vector<Index> rows = conditioning_rows(size, seed);
  Matrix Xc(rows.size(), 2), Yc(rows.size(), kDim);
  for (size_t i = 0; i < rows.size(); ++i) {
    Xc.row(i) = p.train_latents.row(rows[i]);
    Yc.row(i) = p.Y.row(rows[i]);
  }
  exact_predictive(*model.kernel(params), model.noise_variance(params), Xc, Yc, ref);
  metrics(p.Ys, ref);
  ref.knn = knn(p.train_latents, p.labels, ref.test_latents, test_labels);
  return ref;
}

double relative(const Matrix& a, const Matrix& b) {
  return (a - b).norm() / b.norm();
}

TEST(PredictiveEvaluation, EqualsTheSerialExactPredictiveAtEveryConditioningSize) {
  const Communicator comm;
  const Problem p;
  const Matrix test_probe = testing::random_normal(kTestRows, 2, 14);
  const std::vector<std::int64_t> test_labels = labels_of(test_probe);
  const DistributedDataset train = distributed(p.Y, nullptr, comm);
  const DistributedDataset test = distributed(p.Ys, &test_labels, comm);
  const Index begin = static_cast<Index>(test.partition.begin(comm.rank())), count = test.local.rows();
  const SasModel model(model_config(), kTestRows, begin, count);
  for (const std::uint64_t size : {0, 17, 50}) {
    PredictiveEvaluationOptions options;
    options.conditioning_size = size;
    options.seed = 4;
    options.knn_k = kK;
    options.block_size = 8;  // several blocks per rank: the block-cyclic layout matters
    const PredictiveEvaluation e = evaluate_predictive(
        model, model.initial_parameters(), {train, p.train_latents, &p.labels}, test, options, comm);
    const SerialReference ref = serial_reference(p, size, 4, test_labels);
    EXPECT_EQ(e.conditioning_points, size == 0 ? 50u : size);
    EXPECT_EQ(e.metrics.entries, static_cast<std::uint64_t>(kTestRows * kDim));
    EXPECT_NEAR(e.metrics.rmse, ref.rmse, 1e-12 * ref.rmse) << size;
    EXPECT_NEAR(e.metrics.mae, ref.mae, 1e-12 * ref.mae) << size;
    EXPECT_NEAR(e.metrics.nlpd, ref.nlpd, 1e-11 * std::abs(ref.nlpd)) << size;
    ASSERT_TRUE(e.knn_accuracy.has_value());
    EXPECT_DOUBLE_EQ(*e.knn_accuracy, ref.knn) << size;
    // This rank's rows of the latents and predictions.
    EXPECT_LT(relative(e.test_latents, ref.test_latents.middleRows(begin, count)), 1e-14);
    EXPECT_LT(relative(e.predictive_mean, ref.mean.middleRows(begin, count)), 1e-12) << size;
    EXPECT_LT(relative(e.predictive_variance, ref.variance.segment(begin, count)), 1e-12) << size;
  }
}

TEST(PredictiveEvaluation, NoKnnAccuracyWithoutLabelsOnBothSides) {
  const Communicator comm;
  const Problem p;
  const std::vector<std::int64_t> test_labels(kTestRows, 1);
  const DistributedDataset train = distributed(p.Y, nullptr, comm);
  const DistributedDataset unlabelled = distributed(p.Ys, nullptr, comm);
  const DistributedDataset labelled = distributed(p.Ys, &test_labels, comm);
  const SasModel model(model_config(), kTestRows, labelled.partition.begin(comm.rank()),
                       labelled.local.rows());
  const Vector params = model.initial_parameters();
  EXPECT_FALSE(evaluate_predictive(model, params, {train, p.train_latents, &p.labels}, unlabelled, {}, comm)
                   .knn_accuracy.has_value());
  const PredictiveEvaluation e =
      evaluate_predictive(model, params, {train, p.train_latents}, labelled, {}, comm);
  EXPECT_FALSE(e.knn_accuracy.has_value());
  // The default conditioning size (10000) exceeds N: every training row.
  EXPECT_EQ(e.conditioning_points, static_cast<std::uint64_t>(kTrainRows));
}

}  // namespace
}  // namespace gplvm
