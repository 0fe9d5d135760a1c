#pragma once
// Predictive evaluation of a trained model (docs/math/exact_gplvm.md): encode the test
// data, predict it with the exact GP conditioned on (a subset of) the encoded training data, and
// score it with RMSE / MAE / NLPD per entry (gplvm/eval/metrics.hpp) and the k-NN accuracy of the
// test latents against the training latents. Collective: every rank gets the same metrics and
// its own test rows' latents and predictions.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/eval/metrics.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Where an evaluation is: called on every rank at the start of each phase (done = 0) and after each
// chunk of test points is predicted, so a caller can report progress (it is called from collective
// code: it must not communicate).
struct EvaluationProgress {
  const char* phase;                  // "encoding test data", "factorising", "predicting"
  std::uint64_t done = 0, total = 0;  // test points predicted so far, of all (predicting only)
};

struct PredictiveEvaluationOptions {
  std::uint64_t conditioning_size = 10000;  // training rows conditioned on; 0 (or >= N): all
  std::uint64_t seed = 0;                   // chooses the conditioning rows (conditioning_set.hpp)
  int knn_k = 1;                            // neighbours for the k-NN accuracy
  int block_size = ExactDistributedOptions{}.block_size;  // ScaLAPACK block size
  // Empty: metrics in the model's units. Else one scale per column (the run's data transform,
  // io/data_transform.hpp): metrics in the data's original units.
  Vector column_scale;
  // This rank's test latents when they are inferred rather than encoded (free-latent runs:
  // eval/latent_inference.hpp); null: the model's encoder.
  const RowMatrix* test_latents = nullptr;
  std::function<void(const EvaluationProgress&)> progress;  // may be empty
};

// The training side: rows distributed as loaded, latents (and labels, when there are any)
// replicated on every rank.
struct EvaluationTrainingSet {
  const DistributedDataset& data;
  const Matrix& latents;                              // N x Q latent means
  const std::vector<std::int64_t>* labels = nullptr;  // N; null: no k-NN accuracy
};

struct PredictiveEvaluation {
  PredictiveMetrics metrics;
  std::optional<double> knn_accuracy;  // when the training set and the test data have labels
  std::uint64_t conditioning_points = 0;
  // This rank's test rows (test.partition's share), in order.
  RowMatrix test_latents;      // encoded latent means
  RowMatrix predictive_mean;   // rows x D
  Vector predictive_variance;  // one per row, noise included (shared by the D outputs)
};

// `model` is the trained model over the test rows (num_data = test.rows, this rank's rows
// starting at test.partition.begin(rank)) with a GP decoder, and an encoder unless the options
// give the test latents; `params` its parameters.
PredictiveEvaluation evaluate_predictive(const Model& model, const Vector& params,
                                         const EvaluationTrainingSet& train, const DistributedDataset& test,
                                         const PredictiveEvaluationOptions& options,
                                         const Communicator& comm);

}  // namespace gplvm
