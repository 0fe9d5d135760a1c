#include "gplvm/objectives/wishart_covariance.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "low_rank_plus_noise.hpp"

namespace gplvm {
namespace {

// X^T X, M = X^T S_hat X (both over all ranks) and this rank's rows of S_hat X.
struct CovarianceSums {
  Matrix gram;       // X^T X, l x l
  Matrix projected;  // M, l x l
  Matrix product;    // S_hat X, this rank's rows (operators)
  Matrix factor_x;   // G = F^T X, d x l (factors, which form S_hat X P as F (G P) instead)
};

// Any operator: its product, then X^T X and X^T (S_hat X) in one allreduce of 2 l^2 doubles.
CovarianceSums operator_sums(const Communicator& comm, const CovarianceOperator& covariance,
                             const ConstMatrixRef& x) {
  const Index l = x.cols();
  CovarianceSums sums;
  sums.product = covariance.apply(x);
  Vector buffer(2 * l * l);
  Eigen::Map<Matrix>(buffer.data(), l, l).noalias() = x.transpose() * x;
  Eigen::Map<Matrix>(buffer.data() + l * l, l, l).noalias() = x.transpose() * sums.product;
  comm.allreduce_sum(buffer.data(), buffer.size());
  sums.gram = Eigen::Map<const Matrix>(buffer.data(), l, l);
  const Eigen::Map<const Matrix> m(buffer.data() + l * l, l, l);
  sums.projected = 0.5 * (m + m.transpose());  // S_hat symmetric: drop the triangles' rounding
  return sums;
}

// A factor S_hat = F F^T: X^T X and G = F^T X in ONE allreduce of l^2 + d l doubles (the product's
// own allreduce folded in), M = G^T G exactly symmetric.
CovarianceSums factor_sums(const Communicator& comm, const RowMatrix& factor, const ConstMatrixRef& x) {
  const Index l = x.cols(), d = factor.cols();
  Vector buffer(l * l + d * l);
  Eigen::Map<Matrix>(buffer.data(), l, l).noalias() = x.transpose() * x;
  Eigen::Map<Matrix>(buffer.data() + l * l, d, l).noalias() = factor.transpose() * x;
  comm.allreduce_sum(buffer.data(), buffer.size());
  const Eigen::Map<const Matrix> g(buffer.data() + l * l, d, l);
  return {Eigen::Map<const Matrix>(buffer.data(), l, l), g.transpose() * g, Matrix(), g};
}

// This rank's rows of S_hat X P.
Matrix product_times(const CovarianceSums& sums, const RowMatrix* factor, const Matrix& p) {
  return factor ? Matrix(*factor * (sums.factor_x * p)) : Matrix(sums.product * p);
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
  const auto* low_rank = dynamic_cast<const LowRankCovariance*>(&covariance_);
  const CovarianceSums sums = low_rank ? factor_sums(comm_, low_rank->local_factor(), local_latents)
                                       : operator_sums(comm_, covariance_, local_latents);
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
  const Matrix residual =
      local_latents - product_times(sums, low_rank ? &low_rank->local_factor() : nullptr, P);
  e.d_latents = (dof_ / s) * (residual - local_latents * (P * (sums.gram - M * P)));
  // tr(C^{-1} S_hat C^{-1}) = (tr S_hat - 2 tr(P M) + tr(P X^T X P M)) / s^2, from
  // C^{-1} = (I - X P X^T) / s.
  const double fit_squared = trace_ - 2.0 * fit + (P * M * P).cwiseProduct(sums.gram).sum();
  e.d_noise = 0.5 * dof_ * (c.trace_inverse - fit_squared / (s * s));
  e.d_log_noise = s * e.d_noise;
  return e;
}

}  // namespace gplvm
