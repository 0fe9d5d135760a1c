#include "gplvm/objectives/bayesian_sas.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/model/gaussian_kl.hpp"

namespace gplvm {
namespace {

void require_positive_variance(const ConstMatrixRef& variance) {
  require((variance.array() > 0.0).all() && variance.allFinite(),
          "posterior variances must be positive and finite",
          {"", "latent variance", "non-positive or non-finite"});
}

void add_rows(const VariationalRows& rows, const Matrix& d_sample, double kl_scale, Matrix& d_mean,
              Matrix& d_variance) {
  d_mean = Matrix::Zero(rows.mean.rows(), rows.mean.cols());
  d_variance = Matrix::Zero(rows.mean.rows(), rows.mean.cols());
  reparameterise_backward(d_sample, rows.variance, rows.eps, d_mean, d_variance);
  gaussian_kl_backward(rows.mean, rows.variance, -kl_scale, d_mean, d_variance);
}

}  // namespace

double kl_weight(RemainderScaling scaling, Index num_data, Index batch_size) {
  return scaling == RemainderScaling::per_batch
             ? 1.0
             : static_cast<double>(num_data) / static_cast<double>(batch_size);
}

BayesianSasGradient bayesian_sas_objective(const Kernel& kernel, double noise_variance,
                                           const VariationalRows& active, const DataRef& Y_active,
                                           const VariationalRows& remainder, const DataRef& Y_remainder,
                                           double remainder_weight, double kl_weight) {
  require_positive_variance(active.variance);
  require_positive_variance(remainder.variance);
  const Matrix X_active = reparameterise(active.mean, active.variance, active.eps);
  const Matrix X_remainder = reparameterise(remainder.mean, remainder.variance, remainder.eps);
  const SasGradient sas =
      sas_objective(kernel, noise_variance, X_active, Y_active, X_remainder, Y_remainder, remainder_weight);

  BayesianSasGradient out;
  out.sas_value = sas.value;
  out.kl = gaussian_kl(active.mean, active.variance) + gaussian_kl(remainder.mean, remainder.variance);
  out.value = sas.value - kl_weight * out.kl;
  add_rows(active, sas.d_latents_active, kl_weight, out.d_mean_active, out.d_variance_active);
  add_rows(remainder, sas.d_latents_remainder, kl_weight, out.d_mean_remainder, out.d_variance_remainder);
  out.d_kernel = sas.d_kernel;
  out.d_log_noise = sas.d_log_noise;
  return out;
}

}  // namespace gplvm
