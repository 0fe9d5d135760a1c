// SparseGplvmModel's predictive: the inducing points with q(u) as trained, or (full-batch runs,
// which keep no q(u)) q(u) at its optimum for the training rows at their trained latents.
#include <algorithm>

#include "gplvm/core/error.hpp"
#include "gplvm/models/inducing_predictor.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/objectives/sparse_gplvm.hpp"

namespace gplvm {
namespace {

// The statistics of this rank's training rows at their trained latents, summed over the ranks,
// in chunks so that memory stays bounded for any number of rows.
SparseStatistics training_statistics(const Kernel& kernel, const Matrix& Z, const TrainingEvidence& training,
                                     bool bayesian, const Communicator& comm) {
  constexpr Index kChunk = 4096;
  const DistributedDataset& data = training.data;
  const Index first = static_cast<Index>(data.partition.begin(comm.rank()));
  SparseStatistics statistics = SparseStatistics::zero(Z.rows(), static_cast<Index>(data.cols));
  for (Index begin = 0; begin < data.local.rows(); begin += kChunk) {
    const Index count = std::min(kChunk, data.local.rows() - begin);
    const DataRef rows = data.local.middleRows(begin, count);
    const Matrix mean = training.latent_mean.middleRows(first + begin, count);
    PsiStatistics psi;
    if (bayesian) {
      const Matrix variance = training.latent_variance->middleRows(first + begin, count);
      statistics += gaussian_rows_statistics(kernel, Z, mean, variance, rows, psi);
    } else {
      statistics += point_rows_statistics(kernel, Z, mean, rows, psi);
    }
  }
  statistics.allreduce(comm);
  return statistics;
}

}  // namespace

std::unique_ptr<Predictor> SparseGplvmModel::make_predictor(const Vector& params,
                                                            const TrainingEvidence& training,
                                                            const Communicator& comm) const {
  std::unique_ptr<Kernel> k = kernel(params);
  Matrix Z = inducing_inputs(params);
  const double noise = noise_variance(params);
  if (config_.training == SparseTraining::minibatch)
    return std::make_unique<InducingPointPredictor>(std::move(k), std::move(Z), inducing_posterior(params),
                                                    noise);
  require(!latent_space_->is_curved(), "full-batch sparse GPLVMs predict from flat (euclidean) latents only",
          {"", "model.latent_space", config_.latent_space});
  require(static_cast<std::uint64_t>(training.latent_mean.rows()) == training.data.rows &&
              (!config_.bayesian || training.latent_variance != nullptr),
          "the training latents do not match the training data (rows, or variances of a Bayesian run)",
          {training.data.file, "/latent/mean", std::to_string(training.latent_mean.rows())});
  const SparseStatistics statistics = training_statistics(*k, Z, training, config_.bayesian, comm);
  Matrix K;
  k->cross(Z, Z, K);
  InducingPosterior q = optimal_inducing_posterior(statistics, K, noise);
  return std::make_unique<InducingPointPredictor>(std::move(k), std::move(Z), std::move(q), noise);
}

}  // namespace gplvm
