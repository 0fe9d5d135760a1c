#pragma once
// The stochastic-active-set (SAS) objective for one batch (docs/math/sas.md):
//
//   L = log p(Y_A | X_A) + w * sum_{n in R} log p(y_n | Y_A, X_A, x_n)
//   log p(y_n | .) = -D/2 log(2 pi c_n) - ||y_n - m_n||^2 / (2 c_n)
//   m_n = alpha^T k_An,  c_n = k_nn + s2 - k_An^T (K_AA + s2 I)^{-1} k_An,  alpha = (K_AA + s2 I)^{-1} Y_A
//
// with D output dimensions sharing c_n (the correct maths, not the reference code's). The weight
// w is (N - A)/(B - A) by default: the unbiased estimate of the full-data SAS objective.
//
// The computation is split so that data-parallel training can reduce between the phases:
//   1. sas_active_factor   (every rank, redundantly: k(X_A, X_A) and its Cholesky factor, A^3/3)
//   2. whiten_active_columns on this rank's slice of the D columns of Y_A (A^2 D / P), the slices
//      gathered into the full beta = L^{-1} Y_A, and the slice's data fit added to the partials
//   3. sas_remainder_terms (each rank on its own remainder rows)
//   4. allreduce of SasPartials (value, whitened A x A adjoint, dX_A, hyper grads)
//   5. sas_combine         (every rank, identically)
// The serial sas_objective() is all of it on one rank with no reduction; sas_active_set() is 1-2
// for all columns.
#include <string>

#include "gplvm/objectives/gp_marginal.hpp"

namespace gplvm {

enum class RemainderScaling {
  full_data,  // w = (N - A)/(B - A): unbiased for the full-data SAS objective (default)
  per_batch,  // w = 1: the SAS objective of the batch alone (docs/math/sas.md)
};

RemainderScaling parse_remainder_scaling(const std::string& name);  // "full_data" | "per_batch"
std::string to_string(RemainderScaling scaling);
double remainder_weight(RemainderScaling scaling, Index num_data, Index batch_size, Index num_active);

// The active block: what every rank holds identically.
struct SasActiveSet {
  Matrix kernel_block;    // k(X_A, X_A), without noise (the back-propagation needs it)
  CholeskyFactor factor;  // L L^T = K_AA + s2 I (plus any jitter the helper had to add)
  Matrix whitened_data;   // beta = L^{-1} Y_A, A x D: bounded (||beta||^2 is the data fit); no alpha
  // -A D/2 log(2 pi) - D/2 log|K_AA + s2 I|: the active term less its data fit -||beta||^2 / 2,
  // which is a sum over columns and so travels with the partials (add_active_data_fit).
  double normaliser = 0.0;
  Index data_dim = 0;  // D, the columns of Y_A

  double log_likelihood() const;  // log p(Y_A | X_A) = normaliser - ||beta||^2 / 2
};

// What one rank contributes: its remainder rows and its slice of the active columns' data fit.
// Everything but d_latents_remainder is a plain sum, so per-rank partials add up (pack() / unpack()
// give the flat buffer for one allreduce).
struct SasPartials {
  double value = 0.0;
  // A x A, dL/d(K_AA + s2 I) in whitened form: that adjoint is L^{-T} (this) L^{-1}. Whitened, the
  // per-rank partials add up before the two A x A x A solves, done once in combine. Symmetric; only
  // its lower triangle is read.
  Matrix whitened_adjoint;
  Matrix d_latents_active;  // A x Q, through the cross-covariances k_An
  Vector d_kernel;
  double d_log_noise = 0.0;    // through the explicit s2 in c_n
  Matrix d_latents_remainder;  // one row per remainder row given; local, never reduced

  // Adds the data fit of some columns of beta = L^{-1} Y_A: -||beta_cols||^2 / 2 to the value and
  // beta_cols beta_cols^T / 2 to the whitened adjoint. Over a split of the D columns these add up
  // to the active term's; sas_combine expects them exactly once in the (reduced) partials.
  void add_active_data_fit(const ConstMatrixRef& beta_columns);

  Index packed_size() const;
  void pack(double* buffer) const;
  void unpack(const double* buffer);
};

// Per-row predictive of the remainder: the quantities the objective is made of (also for tests).
struct SasPredictive {
  Matrix mean;      // R x D
  Vector variance;  // R, shared by the D outputs, noise included
};

// Kernel block, factor and normaliser of the active set for D output columns; beta left empty.
SasActiveSet sas_active_factor(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X_active,
                               Index data_dim);
// L^{-1} Y for some columns Y of Y_A (A x c); columns are independent, so a split of Y_A's columns
// gives the split of beta.
Matrix whiten_active_columns(const SasActiveSet& active, const ConstMatrixRef& Y_active_columns);
// Serial: the factor and beta for all columns of Y_A.
SasActiveSet sas_active_set(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X_active,
                            const DataRef& Y_active);

SasPredictive sas_predict(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                          const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder);

// Remainder log-likelihood (times weight) and its adjoints for the given rows (possibly none).
SasPartials sas_remainder_terms(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                                const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder,
                                const DataRef& Y_remainder, double weight);
// The same with fp32 data: the O(A R D) products run in fp32, everything else in fp64 (sas.cpp).
SasPartials sas_remainder_terms(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                                const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder,
                                const DataRefF& Y_remainder, double weight);

// sas_combine in pieces, so that ranks can split its two A x A x A solves by columns. With W the
// assembled whitened adjoint (symmetric) and V = L^{-T} W, the adjoint dL/d(K_AA + s2 I) is
// X = L^{-T} W L^{-1}, symmetric, whose columns [first, first + count) are L^{-T} V[first.., :]^T.
//   sas_whitened_adjoint: W from the reduced partials (the active term's -D/2 I added)
//   V[:, cols] = L^{-T} W[:, cols]        (factor.solve_upper_in_place; gathered across ranks)
//   add_active_adjoint_columns: those columns of X, pushed into latents, kernel and noise (adds)
Matrix sas_whitened_adjoint(const SasActiveSet& active, const SasPartials& partials);
void add_active_adjoint_columns(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                                const ConstMatrixRef& X_active, const Matrix& V, Index first, Index count,
                                GpGradient& gradient);
// The reduced partials' own part of the result: value (normaliser added) and the gradients they
// carry, before any adjoint columns are added.
GpGradient sas_partials_gradient(const SasActiveSet& active, const SasPartials& partials);

// Active term plus the (reduced) partials, which must include the active data fit once
// (SasPartials::add_active_data_fit): value and every gradient. d_latents of the result are the
// active rows; the remainder rows' gradients stay in partials.d_latents_remainder.
GpGradient sas_combine(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                       const ConstMatrixRef& X_active, const SasPartials& partials);

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
