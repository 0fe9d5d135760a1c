#include "gplvm/objectives/wrapped_psi.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

Index sample_count(const LatentSpace& space, const ConstMatrixRef& eps) {
  const Index q = space.intrinsic_dim();
  require(q > 0 && eps.cols() % q == 0 && eps.cols() > 0,
          "wrapped-normal noise must hold L * Q columns (L >= 1 samples)",
          {"", "model.psi_samples", std::to_string(eps.cols())});
  return eps.cols() / q;
}

void require_shapes(const LatentSpace& space, const ConstMatrixRef& Z, const ConstMatrixRef& mean,
                    const ConstMatrixRef& variance, const ConstMatrixRef& eps, Index data_rows) {
  require(mean.cols() == space.ambient_dim() && Z.cols() == space.ambient_dim(),
          "wrapped-normal means and inducing inputs need the space's ambient coordinates",
          {"", "latent columns", std::to_string(mean.cols())});
  require(variance.rows() == mean.rows() && variance.cols() == space.intrinsic_dim() &&
              eps.rows() == mean.rows() && data_rows == mean.rows(),
          "wrapped-normal means, variances, noise and data rows disagree in shape",
          {"", "rows", std::to_string(mean.rows())});
  require((variance.array() > 0.0).all() && variance.allFinite(),
          "latent variances must be positive and finite",
          {"", "latent variance", "non-positive or non-finite"});
}

// The paper's KL of one row: the tangent Gaussians' log-density ratio at sqrt(s) eps, averaged.
double paper_row_kl(const ConstMatrixRef& variance, const ConstMatrixRef& eps, Index n, Index samples) {
  const Index q = variance.cols();
  double sum = 0.0;
  for (Index h = 0; h < samples; ++h)
    for (Index j = 0; j < q; ++j) {
      const double e2 = eps(n, h * q + j) * eps(n, h * q + j);
      sum += -0.5 * std::log(variance(n, j)) - 0.5 * e2 + 0.5 * variance(n, j) * e2;
    }
  return sum / static_cast<double>(samples);
}

}  // namespace

KlMode parse_kl_mode(const std::string& name) {
  if (name == "exact") return KlMode::exact;
  if (name == "paper") return KlMode::paper;
  throw InputError("unknown KL mode (exact or paper)", {"", "model.kl_mode", name});
}

KlMode parse_kl_mode(const std::string& mode, const std::string& estimator) {
  const KlMode parsed = parse_kl_mode(mode);
  if (estimator == "plain") return parsed;
  require(estimator == "control_variate", "unknown KL estimator (plain or control_variate)",
          {"", "model.kl_estimator", estimator});
  require(parsed == KlMode::exact, "the KL's control variate applies to model.kl_mode = \"exact\"",
          {"", "model.kl_estimator", estimator});
  return KlMode::exact_control_variate;
}

Vector wrapped_rows_kl(const LatentSpace& space, const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                       const ConstMatrixRef& eps, KlMode kl_mode) {
  const Index samples = sample_count(space, eps), q = space.intrinsic_dim();
  Vector kl = Vector::Zero(mean.rows());
  for (Index n = 0; n < mean.rows(); ++n) {
    if (kl_mode == KlMode::paper) {
      kl[n] = paper_row_kl(variance, eps, n, samples);
      continue;
    }
    for (Index h = 0; h < samples; ++h) {
      Matrix x;
      const auto noise = eps.block(n, h * q, 1, q);
      space.sample_posterior(mean.row(n), variance.row(n), noise, x);
      kl[n] += space.kl_to_prior(mean.row(n), variance.row(n), x);
      if (kl_mode == KlMode::exact_control_variate)
        kl[n] += space.kl_control_variate(mean.row(n), variance.row(n), noise);
    }
    kl[n] /= static_cast<double>(samples);
  }
  return kl;
}

namespace {

// Stacks the rows' means, variances and noise into samples' (L n)-row blocks.
void stack_samples(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& eps,
                   Index count, WrappedSamples& samples) {
  const Index n = mean.rows(), q = variance.cols();
  samples.location = mean.replicate(count, 1);
  samples.variance = variance.replicate(count, 1);
  samples.eps.resize(count * n, q);
  for (Index h = 0; h < count; ++h) samples.eps.middleRows(h * n, n) = eps.middleCols(h * q, q);
}

// out += the sum over samples of the (L n)-row block's n-row blocks.
void add_sample_blocks(const Matrix& stacked, Index count, Matrix& out) {
  const Index n = out.rows();
  for (Index h = 0; h < count; ++h) out += stacked.middleRows(h * n, n);
}

}  // namespace

SparseStatistics wrapped_rows_statistics(const LatentSpace& space, const Kernel& kernel,
                                         const ConstMatrixRef& Z, const ConstMatrixRef& mean,
                                         const ConstMatrixRef& variance, const ConstMatrixRef& eps,
                                         KlMode kl_mode, const DataRef& Y_local, PsiStatistics& psi,
                                         WrappedSamples& samples) {
  require_shapes(space, Z, mean, variance, eps, Y_local.rows());
  const Index count = sample_count(space, eps), n = mean.rows(), m = Z.rows();
  const double weight = 1.0 / static_cast<double>(count);
  psi.psi0 = 0.0;
  psi.psi1 = Matrix::Zero(n, m);
  psi.psi2 = Matrix::Zero(m, m);
  double kl = 0.0;
  if (n > 0) {
    stack_samples(mean, variance, eps, count, samples);
    space.sample_posterior(samples.location, samples.variance, samples.eps, samples.points);
    kernel.cross(samples.points, Z, samples.cross);
    Vector diagonal;
    kernel.diagonal(samples.points, diagonal);
    psi.psi0 = weight * diagonal.sum();
    for (Index h = 0; h < count; ++h) psi.psi1 += weight * samples.cross.middleRows(h * n, n);
    psi.psi2.selfadjointView<Eigen::Lower>().rankUpdate(samples.cross.transpose(), weight);
    psi.psi2.triangularView<Eigen::StrictlyUpper>() = psi.psi2.transpose();
    if (kl_mode == KlMode::exact || kl_mode == KlMode::exact_control_variate)
      kl = weight * space.kl_to_prior(samples.location, samples.variance, samples.points);
    if (kl_mode == KlMode::exact_control_variate)
      kl += weight * space.kl_control_variate(samples.location, samples.variance, samples.eps);
  }
  if (kl_mode == KlMode::paper)
    for (Index r = 0; r < n; ++r) kl += paper_row_kl(variance, eps, r, count);
  SparseStatistics statistics = sparse_statistics(psi, Y_local);
  statistics.kl = kl;
  return statistics;
}

void wrapped_rows_backward(const LatentSpace& space, const Kernel& kernel, const ConstMatrixRef& Z,
                           const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                           const ConstMatrixRef& eps, KlMode kl_mode, const DataRef& Y_local,
                           const WrappedSamples& samples, const StatisticsAdjoint& adjoint, Matrix& d_mean,
                           Matrix& d_variance, SharedGradient& shared) {
  const Index n = mean.rows();
  if (n == 0) return;
  const Index count = sample_count(space, eps), q = space.intrinsic_dim();
  const double weight = 1.0 / static_cast<double>(count);
  // Each sample's kernel rows enter Psi1 with weight 1/L and Psi2 as (1/L) k k^T: for symmetric
  // G2 = dF/dPsi2 the sample's dF/dk gains (2/L) k G2.
  const Matrix d_psi1 = psi1_adjoint(adjoint, Y_local);
  Matrix d_cross = (weight * d_psi1).replicate(count, 1);
  d_cross.noalias() += (2.0 * weight) * samples.cross * adjoint.d_psi2;
  const Matrix& x = samples.points;
  Matrix d_x = Matrix::Zero(x.rows(), x.cols());
  kernel.cross_backward(x, Z, samples.cross, d_cross, &d_x, &shared.d_inducing, shared.d_kernel);
  if (adjoint.d_psi0 != 0.0)
    kernel.diagonal_backward(x, Vector::Constant(x.rows(), weight * adjoint.d_psi0), &d_x, shared.d_kernel);
  Matrix d_location = Matrix::Zero(x.rows(), x.cols()), d_sample_variance = Matrix::Zero(x.rows(), q);
  if (kl_mode == KlMode::exact || kl_mode == KlMode::exact_control_variate)
    space.kl_to_prior_backward(samples.location, samples.variance, x, weight * adjoint.d_kl, d_location,
                               d_sample_variance, &d_x);
  if (kl_mode == KlMode::exact_control_variate)
    space.kl_control_variate_backward(samples.location, samples.variance, samples.eps, weight * adjoint.d_kl,
                                      d_location, d_sample_variance);
  space.sample_posterior_backward(samples.location, samples.variance, samples.eps, d_x, d_location,
                                  d_sample_variance);
  add_sample_blocks(d_location, count, d_mean);
  add_sample_blocks(d_sample_variance, count, d_variance);
  if (kl_mode == KlMode::paper)  // d/ds_q of -1/2 log s_q + 1/2 s_q eps_q^2, averaged
    for (Index r = 0; r < n; ++r)
      for (Index h = 0; h < count; ++h)
        for (Index j = 0; j < q; ++j) {
          const double e2 = eps(r, h * q + j) * eps(r, h * q + j);
          d_variance(r, j) += adjoint.d_kl * weight * (-0.5 / variance(r, j) + 0.5 * e2);
        }
}

}  // namespace gplvm
