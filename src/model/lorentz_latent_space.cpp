#include "gplvm/model/lorentz_latent_space.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"

namespace gplvm {
namespace {

// Tangent samples v~ = sqrt(variance) o eps, one row per row.
Matrix tangent_samples(const ConstMatrixRef& variance, const ConstMatrixRef& eps) {
  return (variance.array().sqrt() * eps.array()).matrix();
}

void require_columns(const ConstMatrixRef& M, Index expected, const char* what) {
  if (M.cols() != expected)
    throw InputError(
        std::string(kLorentzSpace) + " latent space: " + what + " has the wrong number of columns",
        {"", "model.latent_dim", std::to_string(M.cols())});
}

}  // namespace

LorentzLatentSpace::LorentzLatentSpace(Index intrinsic_dim)
    : dim_(checked_latent_dim(intrinsic_dim)), manifold_(intrinsic_dim) {}

void LorentzLatentSpace::from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const {
  require_columns(V, dim_, "tangent vectors at the origin");
  X.resize(V.rows(), dim_ + 1);
  lorentz::exp_at_origin_rows(V, X);
}

void LorentzLatentSpace::from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                                      MatrixRef dV) const {
  lorentz::exp_at_origin_backward_rows(V, dX, dV);
}

// The wrapped normal's maps run over the whole row block (every row and sample, every step) through
// lorentz::wrapped_normal_*_rows: nothing is allocated per row. Adjoints go to zeroed blocks first and
// are then added to the caller's, as the per-row code before them did, so results keep their bits.
void LorentzLatentSpace::sample_posterior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                          const ConstMatrixRef& eps, Matrix& X) const {
  require_columns(location, dim_ + 1, "posterior locations");
  require_columns(variance, dim_, "posterior variances");
  X.resize(location.rows(), dim_ + 1);
  lorentz::wrapped_normal_sample_rows(location, tangent_samples(variance, eps), X);
}

void LorentzLatentSpace::sample_posterior_backward(const ConstMatrixRef& location,
                                                   const ConstMatrixRef& variance, const ConstMatrixRef& eps,
                                                   const ConstMatrixRef& dX, MatrixRef d_location,
                                                   MatrixRef d_variance) const {
  Matrix d_mu = Matrix::Zero(location.rows(), dim_ + 1), d_v = Matrix::Zero(location.rows(), dim_);
  lorentz::wrapped_normal_sample_backward_rows(location, tangent_samples(variance, eps), dX, d_mu, d_v);
  d_location += d_mu;
  // v~ = sqrt(variance) o eps
  d_variance.array() += d_v.array() * eps.array() / (2.0 * variance.array().sqrt());
}

double LorentzLatentSpace::kl_to_prior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                       const ConstMatrixRef& samples) const {
  require_columns(samples, dim_ + 1, "posterior samples");
  Vector log_q(samples.rows()), log_p(samples.rows());
  lorentz::wrapped_normal_log_density_rows(location, variance, samples, log_q);
  lorentz::standard_wrapped_normal_log_density_rows(samples, log_p);
  double kl = 0.0;
  for (Index n = 0; n < samples.rows(); ++n) kl += log_q[n] - log_p[n];
  return kl;
}

void LorentzLatentSpace::kl_to_prior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                              const ConstMatrixRef& samples, double scale,
                                              MatrixRef d_location, MatrixRef d_variance,
                                              Matrix* d_samples) const {
  // The estimate depends on the samples as well: without somewhere to put that part, the
  // gradient would be silently incomplete.
  require(d_samples != nullptr, "the lorentz KL estimate needs d_samples (its samples' part of the gradient)",
          {"", "model.latent_space", name()});
  if (d_samples->rows() != samples.rows() || d_samples->cols() != samples.cols())
    d_samples->setZero(samples.rows(), samples.cols());
  const Index n = samples.rows();
  Matrix d_mu = Matrix::Zero(n, dim_ + 1), d_var = Matrix::Zero(n, dim_), d_x = Matrix::Zero(n, dim_ + 1);
  lorentz::wrapped_normal_log_density_backward_rows(location, variance, samples, scale, d_mu, d_var, d_x);
  lorentz::standard_wrapped_normal_log_density_backward_rows(samples, -scale, d_x);
  d_location += d_mu;
  d_variance += d_var;
  *d_samples += d_x;
}

double LorentzLatentSpace::kl_control_variate(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                              const ConstMatrixRef& eps) const {
  Vector slope(location.rows());
  lorentz::standard_wrapped_normal_log_density_slope_rows(location, tangent_samples(variance, eps), slope);
  return slope.sum();
}

void LorentzLatentSpace::kl_control_variate_backward(const ConstMatrixRef& location,
                                                     const ConstMatrixRef& variance,
                                                     const ConstMatrixRef& eps, double scale,
                                                     MatrixRef d_location, MatrixRef d_variance) const {
  Matrix d_mu = Matrix::Zero(location.rows(), dim_ + 1), d_v = Matrix::Zero(location.rows(), dim_);
  lorentz::standard_wrapped_normal_log_density_slope_backward_rows(location, tangent_samples(variance, eps),
                                                                   scale, d_mu, d_v);
  d_location += d_mu;
  d_variance.array() += d_v.array() * eps.array() / (2.0 * variance.array().sqrt());  // v~ = sqrt(s) o eps
}

}  // namespace gplvm
