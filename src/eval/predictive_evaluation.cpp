#include "gplvm/eval/predictive_evaluation.hpp"

#include <algorithm>

#include "gplvm/eval/conditioning_set.hpp"

namespace gplvm {
namespace {

constexpr Index kPredictChunk = 2048;  // test points per predictive solve: bounds memory for any M

void add(MetricSums& total, const MetricSums& s) {
  total.squared_error += s.squared_error;
  total.absolute_error += s.absolute_error;
  total.nlpd_terms += s.nlpd_terms;
  total.entries += s.entries;
}

void report(const PredictiveEvaluationOptions& options, const EvaluationProgress& progress) {
  if (options.progress) options.progress(progress);
}

MetricSums sum_over_ranks(const MetricSums& local, const Communicator& comm) {
  double totals[4] = {local.squared_error, local.absolute_error, local.nlpd_terms,
                      static_cast<double>(local.entries)};
  comm.allreduce_sum(totals, 4);
  return {totals[0], totals[1], totals[2], static_cast<std::uint64_t>(totals[3])};
}

// Every rank predicts every chunk of the (replicated) test latents, since the ScaLAPACK solves are
// collective, and keeps and scores the rows it owns. Fills the result's predictions; returns this
// rank's metric sums.
MetricSums predict_local_rows(ExactDistributedGp& gp, const Matrix& test_latents,
                              const DistributedDataset& test, std::uint64_t test_begin,
                              const PredictiveEvaluationOptions& options, PredictiveEvaluation& result) {
  const Index local_begin = static_cast<Index>(test_begin), local_rows = test.local.rows();
  result.predictive_mean.resize(local_rows, static_cast<Index>(test.cols));
  result.predictive_variance.resize(local_rows);
  MetricSums sums;
  for (Index begin = 0; begin < test_latents.rows(); begin += kPredictChunk) {
    const Index count = std::min(kPredictChunk, test_latents.rows() - begin);
    const ExactPrediction p = gp.predict(test_latents.middleRows(begin, count));
    report(options, {"predicting", static_cast<std::uint64_t>(begin + count), test.rows});
    const Index lo = std::max(begin, local_begin), hi = std::min(begin + count, local_begin + local_rows);
    if (hi <= lo) continue;
    result.predictive_mean.middleRows(lo - local_begin, hi - lo) = p.mean.middleRows(lo - begin, hi - lo);
    result.predictive_variance.segment(lo - local_begin, hi - lo) = p.variance.segment(lo - begin, hi - lo);
    add(sums, predictive_metric_sums(test.local.middleRows(lo - local_begin, hi - lo),
                                     p.mean.middleRows(lo - begin, hi - lo),
                                     p.variance.segment(lo - begin, hi - lo)));
  }
  return sums;
}

// The fraction of all test rows whose k nearest training latents vote for their label.
double knn_over_ranks(const EvaluationTrainingSet& train, const DistributedDataset& test,
                      const RowMatrix& test_latents, int k, const Communicator& comm) {
  const double local_correct =
      test.local.rows() > 0
          ? knn_accuracy(train.latents, *train.labels, test_latents, *test.labels, k) * test.local.rows()
          : 0.0;
  return comm.allreduce_sum(local_correct) / static_cast<double>(test.rows);
}

}  // namespace

PredictiveEvaluation evaluate_predictive(const Model& model, const Vector& params,
                                         const EvaluationTrainingSet& train, const DistributedDataset& test,
                                         const PredictiveEvaluationOptions& options,
                                         const Communicator& comm) {
  PredictiveEvaluation result;
  // Test latents: encoded where the rows live, then shared (M x Q is small).
  const std::uint64_t test_begin = test.partition.begin(comm.rank());
  report(options, {"encoding the test data", 0, test.rows});
  model.encode(params, test.local, test_begin, result.test_latents, nullptr);
  const Matrix test_latents = comm.allgather_rows(DataRef(result.test_latents));

  const ConditioningSet cond =
      conditioning_set(train.data, train.latents, options.conditioning_size, options.seed, comm);
  result.conditioning_points = cond.partition.num_rows();
  ExactDistributedOptions gp_options;
  gp_options.with_gradient = false;
  gp_options.block_size = options.block_size;
  report(options, {"factorising the conditioning set's kernel matrix", 0, test.rows});
  ExactDistributedGp gp(*model.kernel(params), model.noise_variance(params), cond.latents, cond.local_y,
                        cond.partition, comm, gp_options);
  report(options, {"predicting", 0, test.rows});
  const MetricSums local = predict_local_rows(gp, test_latents, test, test_begin, options, result);
  result.metrics = sum_over_ranks(local, comm).finish();
  if (train.labels != nullptr && test.labels.has_value())
    result.knn_accuracy = knn_over_ranks(train, test, result.test_latents, options.knn_k, comm);
  return result;
}

}  // namespace gplvm
