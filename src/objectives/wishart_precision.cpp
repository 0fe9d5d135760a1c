#include "gplvm/objectives/wishart_precision.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "low_rank_plus_noise.hpp"

namespace gplvm {
namespace {

void require_valid_regularisation(double gamma) {
  require(std::isfinite(gamma) && gamma >= 0, "the precision regularisation gamma must be finite and >= 0",
          {"", kPrecisionRegularisationKey, std::to_string(gamma)});
}

}  // namespace

WishartPrecision::WishartPrecision(const Communicator& comm, const PrecisionOperator& precision,
                                   double degrees_of_freedom, double regularisation)
    : comm_(comm),
      precision_(precision),
      dof_(degrees_of_freedom),
      gamma_(regularisation),
      num_rows_(precision.num_rows()) {
  require(dof_ > 0, "the Wishart degrees of freedom must be positive",
          {"", "degrees_of_freedom", std::to_string(dof_)});
  require_valid_regularisation(gamma_);
  // One allreduce: tr Gamma_hat and, when unregularised, ||Gamma_hat 1||^2 (the null-vector test;
  // apply is collective, so every rank calls it or none does: gamma is the same everywhere).
  double sums[2] = {precision_.local_trace(), 0.0};
  if (gamma_ == 0) sums[1] = precision_.apply(Matrix::Ones(precision_.local_rows(), 1)).squaredNorm();
  comm_.allreduce_sum(sums, 2);
  const double n = static_cast<double>(num_rows_);
  trace_ = sums[0] + gamma_ * n;
  if (gamma_ == 0) {
    const double scale = kNullVectorTolerance * (sums[0] / n) * std::sqrt(n);
    require(std::sqrt(sums[1]) > scale,
            "Gamma_hat is singular along the constant vector (Gamma_hat 1 = 0, e.g. a graph Laplacian): the "
            "Wishart precision objective is unbounded below; set a positive regularisation gamma "
            "(Gamma_hat + gamma I)",
            {"", kPrecisionRegularisationKey, "0"});
  }
}

WishartEvaluation WishartPrecision::evaluate(const ConstMatrixRef& local_latents, double beta,
                                             bool with_gradient) const {
  require_positive_noise(beta, "beta");
  require(local_latents.rows() == precision_.local_rows(),
          "latents and Gamma_hat have different local row counts",
          {"", "latents", std::to_string(local_latents.rows())});
  Matrix gamma_x = precision_.apply(local_latents);
  gamma_x += gamma_ * local_latents;
  const Index l = local_latents.cols();
  Vector buffer(l * l + 1);
  Eigen::Map<Matrix>(buffer.data(), l, l).noalias() = local_latents.transpose() * local_latents;
  buffer[l * l] = local_latents.cwiseProduct(gamma_x).sum();  // this rank's part of tr(X^T Gamma X)
  comm_.allreduce_sum(buffer.data(), buffer.size());
  const Matrix gram = Eigen::Map<const Matrix>(buffer.data(), l, l);
  const LowRankPlusNoise k = low_rank_plus_noise(gram, beta, num_rows_, "beta I + X^T X (Wishart precision)");

  WishartEvaluation e;
  e.value = 0.5 * dof_ * (buffer[l * l] + beta * trace_ - k.log_determinant);
  if (!with_gradient) return e;
  e.d_latents = dof_ * (gamma_x - local_latents * k.a_inverse);  // K^{-1} X = X A_beta^{-1}
  e.d_noise = 0.5 * dof_ * (trace_ - k.trace_inverse);
  e.d_log_noise = beta * e.d_noise;
  return e;
}

}  // namespace gplvm
