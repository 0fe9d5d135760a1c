#include "gplvm/objectives/wishart_covariance.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "low_rank_plus_noise.hpp"

namespace gplvm {
namespace {

// X^T X and X^T S_hat X over all ranks, from one allreduce of one buffer.
struct CovarianceSums {
  Matrix gram;       // X^T X, l x l
  Matrix projected;  // M = X^T S_hat X, l x l
};

CovarianceSums sum_over_ranks(const Communicator& comm, const ConstMatrixRef& x, const Matrix& sx) {
  const Index l = x.cols();
  Vector buffer(2 * l * l);
  Eigen::Map<Matrix>(buffer.data(), l, l).noalias() = x.transpose() * x;
  Eigen::Map<Matrix>(buffer.data() + l * l, l, l).noalias() = x.transpose() * sx;
  comm.allreduce_sum(buffer.data(), buffer.size());
  CovarianceSums sums{Eigen::Map<const Matrix>(buffer.data(), l, l),
                      Eigen::Map<const Matrix>(buffer.data() + l * l, l, l)};
  // S_hat is symmetric, so M is; symmetrising removes the rounding of the two triangles' sums.
  sums.projected = 0.5 * (sums.projected + sums.projected.transpose()).eval();
  return sums;
}

}  // namespace

WishartCovariance::WishartCovariance(const Communicator& comm, const CovarianceOperator& covariance,
                                     double degrees_of_freedom)
    : comm_(comm), covariance_(covariance), dof_(degrees_of_freedom) {
  sum_constants();
}

WishartCovariance::WishartCovariance(const Communicator& comm, RowMatrix local_factor,
                                     double degrees_of_freedom)
    : comm_(comm),
      owned_(std::make_unique<LowRankCovariance>(comm, std::move(local_factor))),
      covariance_(*owned_),
      dof_(degrees_of_freedom) {
  sum_constants();
}

void WishartCovariance::sum_constants() {
  require(dof_ > 0, "the Wishart degrees of freedom must be positive",
          {"", "degrees_of_freedom", std::to_string(dof_)});
  // n and tr S_hat do not depend on X: summed once here, not in every evaluation.
  num_rows_ = covariance_.num_rows();
  trace_ = comm_.allreduce_sum(covariance_.local_trace());
}

WishartEvaluation WishartCovariance::evaluate(const ConstMatrixRef& local_latents, double noise_variance,
                                              bool with_gradient) const {
  require_positive_noise(noise_variance, "noise_variance");
  require(local_latents.rows() == covariance_.local_rows(),
          "latents and S_hat have different local row counts",
          {"", "latents",
           std::to_string(local_latents.rows()) + " vs " + std::to_string(covariance_.local_rows())});
  const Matrix sx = covariance_.apply(local_latents);  // this rank's rows of S_hat X
  const CovarianceSums sums = sum_over_ranks(comm_, local_latents, sx);
  const double s = noise_variance;
  const LowRankPlusNoise c =
      low_rank_plus_noise(sums.gram, s, num_rows_, "s2 I + X^T X (Wishart covariance)");
  const Matrix& P = c.a_inverse;
  const Matrix& M = sums.projected;
  const double fit = P.cwiseProduct(M).sum();  // tr(A^{-1} X^T S_hat X)

  WishartEvaluation e;
  e.value = 0.5 * dof_ * (c.log_determinant + (trace_ - fit) / s);
  if (!with_gradient) return e;
  // grad = d (C^{-1} X - C^{-1} S_hat C^{-1} X) = d C^{-1} R with C^{-1} X = X P and the residual
  // R = X - S_hat X P, which vanishes at a stationary point: forming it first keeps
  // the cancellation at the scale of X instead of amplifying it by 1/s2. Then
  // C^{-1} R = (R - X P X^T R) / s with X^T R = X^T X - M P.
  const Matrix residual = local_latents - sx * P;
  e.d_latents = (dof_ / s) * (residual - local_latents * (P * (sums.gram - M * P)));
  // tr(C^{-1} S_hat C^{-1}) = (tr S_hat - 2 tr(P M) + tr(P X^T X P M)) / s^2, from
  // C^{-1} = (I - X P X^T) / s.
  const double fit_squared = trace_ - 2.0 * fit + (P * M * P).cwiseProduct(sums.gram).sum();
  e.d_noise = 0.5 * dof_ * (c.trace_inverse - fit_squared / (s * s));
  e.d_log_noise = s * e.d_noise;
  return e;
}

}  // namespace gplvm
