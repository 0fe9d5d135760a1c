#pragma once
// Bayesian SAS (docs/math/bayesian_sas.md): with q(x_n) = N(mu_n, diag v_n) and one reparameterised sample
// x_n = mu_n + sqrt(v_n) o eps_n per step,
//   L = SAS(X sampled) - kl_weight * sum_{n in batch} KL[q(x_n) || N(0, I)]
// kl_weight is N/B for the full-data estimate (default) or 1 for the per-batch objective.
// Gradients for mu and v go through the sample with eps held fixed, plus the analytic KL.
#include "gplvm/model/gaussian_kl.hpp"
#include "gplvm/objectives/sas.hpp"

namespace gplvm {

double kl_weight(RemainderScaling scaling, Index num_data, Index batch_size);

struct VariationalRows {
  ConstMatrixRef mean;
  ConstMatrixRef variance;
  ConstMatrixRef eps;
};

struct BayesianSasGradient {
  double value = 0.0;      // SAS term - kl_weight * KL
  double sas_value = 0.0;  // the SAS term alone, at the sample
  double kl = 0.0;         // unweighted sum of KL over the batch rows
  Matrix d_mean_active, d_variance_active;
  Matrix d_mean_remainder, d_variance_remainder;
  Vector d_kernel;
  double d_log_noise = 0.0;
};

// Serial Bayesian SAS objective of one batch.
BayesianSasGradient bayesian_sas_objective(const Kernel& kernel, double noise_variance,
                                           const VariationalRows& active, const DataRef& Y_active,
                                           const VariationalRows& remainder, const DataRef& Y_remainder,
                                           double remainder_weight, double kl_weight);

}  // namespace gplvm
