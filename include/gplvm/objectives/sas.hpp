#pragma once
// The stochastic-active-set (SAS) objective for one batch (spec sas.md 1.3, 1.7, 1.10):
//
//   L = log p(Y_A | X_A) + w * sum_{n in R} log p(y_n | Y_A, X_A, x_n)
//   log p(y_n | .) = -D/2 log(2 pi c_n) - ||y_n - m_n||^2 / (2 c_n)
//   m_n = alpha^T k_An,  c_n = k_nn + s2 - k_An^T (K_AA + s2 I)^{-1} k_An,  alpha = (K_AA + s2 I)^{-1} Y_A
//
// with D output dimensions sharing c_n (the correct maths, not the reference code's). The weight
// w is (N - A)/(B - A) by default: the unbiased estimate of the full-data SAS objective.
//
// The computation is split so that data-parallel training can reduce between the phases:
//   1. sas_active_set      (every rank, redundantly: A x A, no communication)
//   2. sas_remainder_terms (each rank on its own remainder rows)
//   3. allreduce of SasRemainderPartials::reducible part (value, A x A adjoint, dX_A, hyper grads)
//   4. sas_combine         (every rank, identically)
// The serial sas_objective() is 1, 2, 4 with no reduction.
#include <string>

#include "gplvm/objectives/gp_marginal.hpp"

namespace gplvm {

enum class RemainderScaling {
  full_data,  // w = (N - A)/(B - A): unbiased for the full-data SAS objective (default)
  per_batch,  // w = 1: the SAS objective of the batch alone (spec 1.7 option 1)
};

RemainderScaling parse_remainder_scaling(const std::string& name);  // "full_data" | "per_batch"
std::string to_string(RemainderScaling scaling);
double remainder_weight(RemainderScaling scaling, Index num_data, Index batch_size, Index num_active);

struct SasActiveSet {
  GpMarginal marginal;  // of the active block: factor L and whitened data beta = L^{-1} Y_A (no alpha)
};

// What a set of remainder rows contributes. Everything but d_latents_remainder is a plain sum over
// rows, so per-rank partials add up (pack() / unpack() give the flat buffer for one allreduce).
struct SasRemainderPartials {
  double value = 0.0;
  // A x A, the remainder's dL/d(K_AA + s2 I) in whitened form: that adjoint is L^{-T} (this) L^{-1}.
  // Whitened, the per-rank partials add up before the two A x A x A solves, done once in combine.
  Matrix whitened_adjoint;
  Matrix d_latents_active;  // A x Q, through the cross-covariances k_An
  Vector d_kernel;
  double d_log_noise = 0.0;    // through the explicit s2 in c_n
  Matrix d_latents_remainder;  // one row per remainder row given; local, never reduced

  Index packed_size() const;
  void pack(double* buffer) const;
  void unpack(const double* buffer);
};

// Per-row predictive of the remainder: the quantities the objective is made of (also for tests).
struct SasPredictive {
  Matrix mean;      // R x D
  Vector variance;  // R, shared by the D outputs, noise included
};

SasActiveSet sas_active_set(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X_active,
                            const DataRef& Y_active);

SasPredictive sas_predict(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                          const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder);

// Remainder log-likelihood (times weight) and its adjoints for the given rows (possibly none).
SasRemainderPartials sas_remainder_terms(const Kernel& kernel, double noise_variance,
                                         const SasActiveSet& active, const ConstMatrixRef& X_active,
                                         const ConstMatrixRef& X_remainder, const DataRef& Y_remainder,
                                         double weight);
// The same with fp32 data: the O(A R D) products run in fp32, everything else in fp64 (sas.cpp).
SasRemainderPartials sas_remainder_terms(const Kernel& kernel, double noise_variance,
                                         const SasActiveSet& active, const ConstMatrixRef& X_active,
                                         const ConstMatrixRef& X_remainder, const DataRefF& Y_remainder,
                                         double weight);

// Active term plus the (reduced) remainder partials: value and every gradient. d_latents of the
// result are the active rows; the remainder rows' gradients stay in partials.d_latents_remainder.
GpGradient sas_combine(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                       const ConstMatrixRef& X_active, const SasRemainderPartials& partials);

struct SasGradient {
  double value = 0.0;
  Matrix d_latents_active;
  Matrix d_latents_remainder;
  Vector d_kernel;
  double d_log_noise = 0.0;
};

// Serial SAS objective of one batch split into active and remainder rows.
SasGradient sas_objective(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X_active,
                          const DataRef& Y_active, const ConstMatrixRef& X_remainder,
                          const DataRef& Y_remainder, double weight);

}  // namespace gplvm
