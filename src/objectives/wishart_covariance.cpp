#include "gplvm/objectives/wishart_covariance.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "low_rank_plus_noise.hpp"

namespace gplvm {
namespace {

// X^T X and F^T X over all ranks, from one allreduce of one buffer.
struct CovarianceSums {
  Matrix gram;         // X^T X, l x l
  Matrix factor_proj;  // G = F^T X, d x l
};

CovarianceSums sum_over_ranks(const Communicator& comm, const RowMatrix& factor, const ConstMatrixRef& x) {
  const Index l = x.cols(), d = factor.cols();
  Vector buffer(l * l + d * l);
  Eigen::Map<Matrix>(buffer.data(), l, l).noalias() = x.transpose() * x;
  Eigen::Map<Matrix>(buffer.data() + l * l, d, l).noalias() = factor.transpose() * x;
  comm.allreduce_sum(buffer.data(), buffer.size());
  return {Eigen::Map<const Matrix>(buffer.data(), l, l),
          Eigen::Map<const Matrix>(buffer.data() + l * l, d, l)};
}

}  // namespace

WishartCovariance::WishartCovariance(const Communicator& comm, RowMatrix local_factor,
                                     double degrees_of_freedom)
    : comm_(comm), factor_(std::move(local_factor)), dof_(degrees_of_freedom) {
  require(dof_ > 0, "the Wishart degrees of freedom must be positive",
          {"", "degrees_of_freedom", std::to_string(dof_)});
  // n and ||F||^2 do not depend on X: summed once here, not in every evaluation.
  double sums[2] = {static_cast<double>(factor_.rows()), factor_.squaredNorm()};
  comm_.allreduce_sum(sums, 2);
  num_rows_ = static_cast<Index>(sums[0]);
  trace_ = sums[1];
}

WishartEvaluation WishartCovariance::evaluate(const ConstMatrixRef& local_latents, double noise_variance,
                                              bool with_gradient) const {
  require_positive_noise(noise_variance, "noise_variance");
  require(local_latents.rows() == factor_.rows(), "latents and factor F have different local row counts",
          {"", "latents", std::to_string(local_latents.rows()) + " vs " + std::to_string(factor_.rows())});
  const CovarianceSums sums = sum_over_ranks(comm_, factor_, local_latents);
  const double s = noise_variance;
  const LowRankPlusNoise c =
      low_rank_plus_noise(sums.gram, s, num_rows_, "s2 I + X^T X (Wishart covariance)");
  const Matrix& P = c.a_inverse;
  const Matrix M = sums.factor_proj.transpose() * sums.factor_proj;  // X^T S_hat X
  const double fit = P.cwiseProduct(M).sum();                        // tr(A^{-1} X^T S_hat X)

  WishartEvaluation e;
  e.value = 0.5 * dof_ * (c.log_determinant + (trace_ - fit) / s);
  if (!with_gradient) return e;
  // grad = d (C^{-1} X - C^{-1} S_hat C^{-1} X) = d C^{-1} R with C^{-1} X = X P and the residual
  // R = X - S_hat X P (S_hat X = F G), which vanishes at a stationary point: forming it first keeps
  // the cancellation at the scale of X instead of amplifying it by 1/s2. Then
  // C^{-1} R = (R - X P X^T R) / s with X^T R = X^T X - M P.
  const Matrix residual = local_latents - factor_ * (sums.factor_proj * P);
  e.d_latents = (dof_ / s) * (residual - local_latents * (P * (sums.gram - M * P)));
  // tr(C^{-1} S_hat C^{-1}) = ||C^{-1} F||^2 = (||F||^2 - 2 tr(P M) + tr(P X^T X P M)) / s^2.
  const double fit_squared = trace_ - 2.0 * fit + (P * M * P).cwiseProduct(sums.gram).sum();
  e.d_noise = 0.5 * dof_ * (c.trace_inverse - fit_squared / (s * s));
  e.d_log_noise = s * e.d_noise;
  return e;
}

}  // namespace gplvm
