#include "gplvm/eval/predictive_evaluation.hpp"

#include "gplvm/eval/exact_gp_predictor.hpp"

namespace gplvm {
namespace {

void report(const PredictiveEvaluationOptions& options, const EvaluationProgress& progress) {
  if (options.progress) options.progress(progress);
}

MetricSums sum_over_ranks(const MetricSums& local, const Communicator& comm) {
  double totals[4] = {local.squared_error, local.absolute_error, local.nlpd_terms,
                      static_cast<double>(local.entries)};
  comm.allreduce_sum(totals, 4);
  return {totals[0], totals[1], totals[2], static_cast<std::uint64_t>(totals[3])};
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
  const std::uint64_t test_begin = test.partition.begin(comm.rank());
  if (options.test_latents != nullptr)
    result.test_latents = *options.test_latents;
  else {
    // Free latents belong to the training rows: encoding the test rows would return those of a
    // model built over the test rows (its starting values), not latents of the test data.
    if (model.latents() == LatentKind::free)
      throw Error("internal error: " + model.kind() +
                  " has free latents; the test rows' latents must be inferred (options.test_latents)");
    report(options, {"encoding the test data", 0, test.rows});
    model.encode(params, test.local, test_begin, result.test_latents, nullptr);
  }

  report(options, {"factorising the conditioning set's kernel matrix", 0, test.rows});
  ExactGpPredictor gp(*model.kernel(params), model.noise_variance(params), {train.data, train.latents},
                      {options.conditioning_size, options.seed, options.block_size}, comm);
  result.conditioning_points = gp.conditioning_points();
  report(options, {"predicting", 0, test.rows});
  Prediction p = gp.predict(Matrix(result.test_latents));
  report(options, {"predicting", test.rows, test.rows});
  result.predictive_mean = std::move(p.mean);
  result.predictive_variance = std::move(p.variance);
  const MetricSums local =
      options.column_scale.size() == 0
          ? predictive_metric_sums(test.local, result.predictive_mean, result.predictive_variance)
          : predictive_metric_sums(test.local, result.predictive_mean, result.predictive_variance,
                                   options.column_scale);
  result.metrics = sum_over_ranks(local, comm).finish();
  if (train.labels != nullptr && test.labels.has_value())
    result.knn_accuracy = knn_over_ranks(train, test, result.test_latents, options.knn_k, comm);
  return result;
}

}  // namespace gplvm
