#pragma once
// A GP decoder conditioned on M points with inputs Z (M x Q): for test inputs x, with k_x = k(Z, x),
//   mean(x)        = k_x^T alpha                                          (alpha: M x D)
//   cov(x, x')     = k(x, x') - (L^{-1} k_x)^T (L^{-1} k_x') + (R^T k_x)^T (R^T k_x')
// where L L^T is the matrix conditioned through (K + s2 I given observed rows; K_ZZ given inducing
// values) and R (M x r) the root of the spread the posterior keeps (K_ZZ^{-1} L_S for inducing
// values with q(u) = N(m, L_S L_S^T); none given observed rows). The D outputs share the covariance.
//
// Besides the predictive mean and variance it gives the Jacobian of the predictive mean and that
// Jacobian's covariance (docs/math/gp_posterior.md):
//   E[J](x) = alpha^T G_x        (D x Q),  G_x = d k(Z, x) / dx (M x Q, Kernel::input_gradients)
//   Sigma_J(x) = H(x) - (L^{-1} G_x)^T (L^{-1} G_x) + (R^T G_x)^T (R^T G_x)   (Q x Q, shared by the D rows)
// with H(x) = d^2 k(x, x') / dx dx'^T at x' = x (Kernel::gradient_covariance). Every rank holds the
// whole posterior, so it needs no communication; ExactDistributedGp gives the same on ScaLAPACK for
// conditioning sets too large to replicate.
#include <memory>
#include <optional>
#include <vector>

#include "gplvm/linalg/cholesky.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/models/predictor.hpp"
#include "gplvm/objectives/uncollapsed_bound.hpp"

namespace gplvm {

class GpPosterior {
 public:
  // Conditioned on observed rows Y (M x D) at inputs Z with Gaussian noise s2: L L^T = K + s2 I
  // (with CholeskyFactor's jitter escalation), alpha = (K + s2 I)^{-1} Y, no R.
  static GpPosterior given_observations(const Kernel& kernel, const ConstMatrixRef& Z,
                                        const ConstMatrixRef& Y, double noise_variance);
  // Conditioned on inducing values u at Z with q(u_d) = N(m_d, L_S L_S^T): L L^T = K_ZZ (jittered as
  // the sparse bounds train it), alpha = K^{-1} m, R = K^{-1} L_S. noise_variance is added to the
  // predictive variance only.
  static GpPosterior given_inducing(const Kernel& kernel, const ConstMatrixRef& Z, const InducingPosterior& q,
                                    double noise_variance);

  Index num_conditioning() const noexcept { return inputs_.rows(); }
  Index output_dim() const noexcept { return alpha_.cols(); }
  const Kernel& kernel() const noexcept { return *kernel_; }

  // Mean (rows x D) and variance (noise included) at the rows of X.
  Prediction predict(const ConstMatrixRef& X) const;
  // E[J] and Sigma_J at each row of X.
  JacobianPrediction jacobian(const ConstMatrixRef& X) const;

  // What the posterior is conditioned through, for quantities formed from it elsewhere (the
  // geometry of the decoder, geometry/): Z (M x Q), alpha (M x D), the factor L and R^T (r x M; null
  // when the posterior keeps no spread, as given observed rows).
  const Matrix& inputs() const noexcept { return inputs_; }
  const Matrix& weights() const noexcept { return alpha_; }
  const CholeskyFactor& factor() const noexcept { return factor_; }
  const Matrix* spread_root_transposed() const noexcept {
    return spread_root_transposed_ ? &*spread_root_transposed_ : nullptr;
  }

 private:
  GpPosterior(const Kernel& kernel, Matrix inputs, double noise_variance);

  std::shared_ptr<const Kernel> kernel_;
  Matrix inputs_;
  double noise_variance_;
  CholeskyFactor factor_;
  Matrix alpha_;
  std::optional<Matrix> spread_root_transposed_;  // R^T (r x M)
};

}  // namespace gplvm
