#include "gplvm/eval/exact_gp_predictor.hpp"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace gplvm {
namespace {

constexpr Index kPredictChunk = 2048;  // test points per predictive solve: bounds memory for any M

}  // namespace

ExactGpPredictor::ExactGpPredictor(const Kernel& kernel, double noise_variance,
                                   const TrainingEvidence& training, const ExactPredictorOptions& options,
                                   const Communicator& comm)
    : comm_(comm), data_dim_(static_cast<Index>(training.data.cols)) {
  const ConditioningSet cond =
      conditioning_set(training.data, training.latent_mean, options.conditioning_size, options.seed, comm);
  conditioning_points_ = cond.partition.num_rows();
  ExactDistributedOptions gp_options;
  gp_options.with_gradient = false;
  gp_options.block_size = options.block_size;
  gp_ = std::make_unique<ExactDistributedGp>(kernel, noise_variance, cond.latents, cond.local_y,
                                             cond.partition, comm, gp_options);
}

ExactGpPredictor::~ExactGpPredictor() = default;

Prediction ExactGpPredictor::predict(const ConstMatrixRef& latents) {
  const std::vector<std::int64_t> counts = comm_.allgather(static_cast<std::int64_t>(latents.rows()));
  const Index local_begin = std::accumulate(counts.begin(), counts.begin() + comm_.rank(), Index{0});
  const Index local_rows = latents.rows();
  const RowMatrix local = latents;
  const RowMatrix all = comm_.allgather_rows(DataRef(local));
  Prediction result;
  result.mean.resize(local_rows, data_dim_);
  result.variance.resize(local_rows);
  for (Index begin = 0; begin < all.rows(); begin += kPredictChunk) {
    const Index count = std::min(kPredictChunk, all.rows() - begin);
    const ExactPrediction p = gp_->predict(Matrix(all.middleRows(begin, count)));
    const Index lo = std::max(begin, local_begin), hi = std::min(begin + count, local_begin + local_rows);
    if (hi <= lo) continue;
    result.mean.middleRows(lo - local_begin, hi - lo) = p.mean.middleRows(lo - begin, hi - lo);
    result.variance.segment(lo - local_begin, hi - lo) = p.variance.segment(lo - begin, hi - lo);
  }
  return result;
}

JacobianPrediction ExactGpPredictor::predict_jacobian(const ConstMatrixRef& latents) {
  const std::vector<std::int64_t> counts = comm_.allgather(static_cast<std::int64_t>(latents.rows()));
  const Index local_begin = std::accumulate(counts.begin(), counts.begin() + comm_.rank(), Index{0});
  const RowMatrix local = latents;
  const RowMatrix all = comm_.allgather_rows(DataRef(local));
  JacobianPrediction result;
  for (Index begin = 0; begin < all.rows(); begin += kPredictChunk) {
    const Index count = std::min(kPredictChunk, all.rows() - begin);
    ExactJacobianPrediction p = gp_->predict_jacobian(Matrix(all.middleRows(begin, count)));
    for (Index i = 0; i < count; ++i) {
      const Index row = begin + i;
      if (row < local_begin || row >= local_begin + latents.rows()) continue;
      result.mean.push_back(std::move(p.mean[static_cast<std::size_t>(i)]));
      result.covariance.push_back(std::move(p.covariance[static_cast<std::size_t>(i)]));
    }
  }
  return result;
}

}  // namespace gplvm
