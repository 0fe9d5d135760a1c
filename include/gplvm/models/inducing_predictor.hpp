#pragma once
// The sparse GPLVMs' predictive from their inducing points (docs/math/sparse_gplvm.md): with
// q(u_d) = N(m_d, S), S = L_S L_S^T shared by the D outputs, and K = k(Z, Z) = L L^T,
//   mean(x)     = k_x^T K^{-1} m
//   variance(x) = k(x, x) - k_x^T K^{-1} k_x + ||L_S^T K^{-1} k_x||^2 + s2,   k_x = k(Z, x),
// the GP posterior given the inducing values (models/gp_posterior.hpp), which also gives the
// Jacobian of the mean and its covariance. At the optimal q(u) (full-batch runs) this is Titsias's
// collapsed predictive. Row by row, so it needs no communication.
#include <memory>

#include "gplvm/models/gp_posterior.hpp"
#include "gplvm/models/predictor.hpp"

namespace gplvm {

class InducingPointPredictor final : public Predictor {
 public:
  InducingPointPredictor(std::unique_ptr<Kernel> kernel, Matrix inducing, InducingPosterior posterior,
                         double noise_variance);
  Prediction predict(const ConstMatrixRef& latents) override { return posterior_.predict(latents); }
  JacobianPrediction predict_jacobian(const ConstMatrixRef& latents) override {
    return posterior_.jacobian(latents);
  }
  const GpPosterior* replicated_posterior() const override { return &posterior_; }

 private:
  GpPosterior posterior_;
};

}  // namespace gplvm
