#pragma once
// The exact GP predictive of a GP decoder conditioned on (a subset of) its training rows at their
// trained latents (eval/conditioning_set.hpp), on ScaLAPACK (docs/math/exact_gplvm.md):
//   mean(x) = k_x^T (K + s2 I)^{-1} Y,   variance(x) = k(x, x) + s2 - k_x^T (K + s2 I)^{-1} k_x.
// `gplvm evaluate` scores with it and `gplvm predict` writes it for GP models without a predictive
// of their own.
#include <cstdint>
#include <memory>

#include "gplvm/eval/conditioning_set.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/models/predictor.hpp"
#include "gplvm/objectives/exact_distributed.hpp"

namespace gplvm {

struct ExactPredictorOptions {
  std::uint64_t conditioning_size = 10000;  // training rows conditioned on; 0 (or >= N): all
  std::uint64_t seed = 0;                   // chooses the conditioning rows (conditioning_set.hpp)
  int block_size = ExactDistributedOptions{}.block_size;  // ScaLAPACK block size
};

class ExactGpPredictor final : public Predictor {
 public:
  // Factorises K + s2 I of the conditioning set once (collective).
  ExactGpPredictor(const Kernel& kernel, double noise_variance, const TrainingEvidence& training,
                   const ExactPredictorOptions& options, const Communicator& comm);
  ~ExactGpPredictor() override;

  std::uint64_t conditioning_points() const noexcept { return conditioning_points_; }

  // The ScaLAPACK solves are collective, so every rank predicts every rank's latents, in chunks
  // of 2048 (memory bounded for any number), and keeps its own.
  Prediction predict(const ConstMatrixRef& latents) override;
  // E[J] and Sigma_J (models/gp_posterior.hpp) on ScaLAPACK, the same way.
  JacobianPrediction predict_jacobian(const ConstMatrixRef& latents) override;

 private:
  const Communicator& comm_;
  Index data_dim_;
  std::uint64_t conditioning_points_ = 0;
  std::unique_ptr<ExactDistributedGp> gp_;
};

}  // namespace gplvm
