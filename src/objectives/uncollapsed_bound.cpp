#include "gplvm/objectives/uncollapsed_bound.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/objectives/collapsed_bound.hpp"

namespace gplvm {
namespace {

// The lower triangle of an M x M matrix, column by column, its diagonal through `diagonal`.
template <class F>
double* pack_lower(const Matrix& A, double* buffer, F diagonal) {
  for (Index j = 0; j < A.cols(); ++j) {
    *buffer++ = diagonal(A(j, j));
    for (Index i = j + 1; i < A.rows(); ++i) *buffer++ = A(i, j);
  }
  return buffer;
}

void validate(const InducingPosterior& q, const SparseStatistics& s) {
  require(q.mean.rows() == s.num_inducing() && q.mean.cols() == s.data_dim(),
          "q(u) means are not M x D for the statistics",
          {"", "inducing_mean", std::to_string(q.mean.rows())});
  require(q.scale.rows() == s.num_inducing() && q.scale.cols() == s.num_inducing(),
          "q(u) scale factor is not M x M", {"", "inducing_scale", std::to_string(q.scale.rows())});
  require((q.scale.diagonal().array() > 0.0).all() && q.scale.allFinite() && q.mean.allFinite(),
          "q(u) must be finite with a positive scale diagonal", {"", "inducing_scale", "invalid"});
}

// The whitened frame: R = L^{-1} L_S, m~ = L^{-1} m, Sigma~ = m~ m~^T + D R R^T.
struct WhitenedPosterior {
  Matrix scale;          // R, lower triangular
  Matrix mean;           // m~
  Matrix second_moment;  // Sigma~
};

WhitenedPosterior whiten_posterior(const CholeskyFactor& kernel_factor, const InducingPosterior& q,
                                   double d) {
  WhitenedPosterior w;
  w.scale = q.scale.triangularView<Eigen::Lower>();
  kernel_factor.solve_lower_in_place(w.scale);
  w.mean = q.mean;
  kernel_factor.solve_lower_in_place(w.mean);
  w.second_moment = Matrix::Zero(w.mean.rows(), w.mean.rows());
  w.second_moment.selfadjointView<Eigen::Lower>().rankUpdate(w.mean);
  w.second_moment.selfadjointView<Eigen::Lower>().rankUpdate(w.scale, d);
  w.second_moment.triangularView<Eigen::StrictlyUpper>() = w.second_moment.transpose();
  return w;
}

}  // namespace

Index InducingPosterior::packed_size(Index num_inducing, Index data_dim) {
  return num_inducing * data_dim + num_inducing * (num_inducing + 1) / 2;
}

void InducingPosterior::pack(double* buffer) const {
  buffer = std::copy_n(mean.data(), mean.size(), buffer);
  pack_lower(scale, buffer, [](double x) { return std::log(x); });
}

InducingPosterior InducingPosterior::unpack(const double* buffer, Index num_inducing, Index data_dim) {
  InducingPosterior q;
  q.mean = Eigen::Map<const Matrix>(buffer, num_inducing, data_dim);
  buffer += q.mean.size();
  q.scale = Matrix::Zero(num_inducing, num_inducing);
  for (Index j = 0; j < num_inducing; ++j) {
    q.scale(j, j) = std::exp(*buffer++);
    for (Index i = j + 1; i < num_inducing; ++i) q.scale(i, j) = *buffer++;
  }
  return q;
}

void UncollapsedBound::pack_posterior_gradient(double* buffer) const {
  buffer = std::copy_n(d_mean.data(), d_mean.size(), buffer);
  pack_lower(d_scale, buffer, [](double x) { return x; });
}

UncollapsedBound uncollapsed_bound(const SparseStatistics& s, const Matrix& inducing_kernel,
                                   double noise_variance, const InducingPosterior& q,
                                   double relative_jitter) {
  require(std::isfinite(noise_variance) && noise_variance > 0, "noise variance must be positive and finite",
          {"", "noise_variance", std::to_string(noise_variance)});
  validate(q, s);
  const double beta = 1.0 / noise_variance;
  const double n = s.num_rows, d = static_cast<double>(s.data_dim()),
               m = static_cast<double>(s.num_inducing());
  const WhitenedStatistics w = whiten_statistics(s, inducing_kernel, relative_jitter);
  const WhitenedPosterior p = whiten_posterior(w.kernel_factor, q, d);
  const Matrix& phi = w.phi;
  const Matrix& c = w.psi1_data;

  const double cross = (c.array() * p.mean.array()).sum();                 // tr(c^T m~)
  const double quadratic = (phi.array() * p.second_moment.array()).sum();  // tr(Phi Sigma~)
  const double residual = s.psi0 - phi.trace();
  const double log_ratio = (p.scale.diagonal().array().log()).sum();  // log|S|/2 - log|K|/2
  UncollapsedBound out;
  out.inducing_kl = 0.5 * (d * p.scale.squaredNorm() + p.mean.squaredNorm() - d * m) - d * log_ratio;
  out.value = -0.5 * n * d * std::log(2.0 * std::numbers::pi * noise_variance) - 0.5 * beta * s.data_norm +
              beta * cross - 0.5 * beta * quadratic - 0.5 * beta * d * residual - s.kl - out.inducing_kl;

  // Statistics' adjoints, each L^{-T} (whitened) L^{-1} or L^{-T} (whitened).
  out.adjoint.d_psi0 = -0.5 * beta * d;
  out.adjoint.d_psi1_data = beta * p.mean;
  w.kernel_factor.solve_upper_in_place(out.adjoint.d_psi1_data);
  Matrix h_psi2 = (-0.5 * beta) * p.second_moment;
  h_psi2.diagonal().array() += 0.5 * beta * d;
  out.adjoint.d_psi2 = unwhiten_adjoint(w.kernel_factor, std::move(h_psi2));
  out.adjoint.d_data_norm = -0.5 * beta;
  out.adjoint.d_kl = -1.0;

  // q(u): dU/dm = L^{-T}(beta c - beta Phi m~ - m~); dU/dL_S = lower(-D L^{-T}(beta Phi + I) R) + D/L_S(i,i).
  out.d_mean = beta * c - p.mean;
  out.d_mean.noalias() -= beta * phi * p.mean;
  w.kernel_factor.solve_upper_in_place(out.d_mean);
  Matrix precision_part = (-d * beta) * phi * p.scale;
  precision_part -= d * p.scale;
  w.kernel_factor.solve_upper_in_place(precision_part);
  out.d_scale = precision_part.triangularView<Eigen::Lower>();
  out.d_scale.diagonal().array() += d / q.scale.diagonal().array();
  out.d_scale.diagonal().array() *= q.scale.diagonal().array();  // d/dlog L_S(i, i)

  // dU/dK_ZZ in the whitened frame, then unwhitened.
  Matrix h_kernel = 0.5 * d * p.scale * p.scale.transpose() + 0.5 * p.mean * p.mean.transpose();
  h_kernel.noalias() -= 0.5 * beta * (p.mean * c.transpose() + c * p.mean.transpose());
  const Matrix phi_sigma = phi * p.second_moment;
  h_kernel += 0.5 * beta * (phi_sigma + phi_sigma.transpose()) - 0.5 * beta * d * phi;
  h_kernel.diagonal().array() -= 0.5 * d;
  out.d_inducing_kernel = unwhiten_adjoint(w.kernel_factor, std::move(h_kernel));
  add_inducing_jitter_adjoint(out.d_inducing_kernel, relative_jitter);

  out.d_log_noise = -0.5 * n * d + 0.5 * beta * s.data_norm - beta * cross + 0.5 * beta * quadratic +
                    0.5 * beta * d * residual;
  return out;
}

InducingPosterior optimal_inducing_posterior(const SparseStatistics& s, const Matrix& inducing_kernel,
                                             double noise_variance, double relative_jitter) {
  require(std::isfinite(noise_variance) && noise_variance > 0, "noise variance must be positive and finite",
          {"", "noise_variance", std::to_string(noise_variance)});
  const double beta = 1.0 / noise_variance;
  const WhitenedStatistics w = whiten_statistics(s, inducing_kernel, relative_jitter);
  Matrix B = beta * w.phi;
  B.diagonal().array() += 1.0;
  const CholeskyFactor b_factor = CholeskyFactor::factorize(std::move(B), "I + Phi / s2 (optimal q(u))");
  const Matrix& L = w.kernel_factor.storage();

  // m* = beta L B^{-1} c.
  Matrix b_solved = w.psi1_data;
  b_factor.solve_in_place(b_solved);
  InducingPosterior q;
  q.mean = L.triangularView<Eigen::Lower>() * b_solved;
  q.mean *= beta;
  // S* = L B^{-1} L^T = (L J)(L J)^T with J J^T = B^{-1}: L J is lower triangular, positive diagonal.
  const CholeskyFactor inverse_factor =
      CholeskyFactor::factorize(b_factor.inverse(), "B^{-1} (optimal q(u))");
  const Matrix J = inverse_factor.storage().triangularView<Eigen::Lower>();
  q.scale = L.triangularView<Eigen::Lower>() * J;
  q.scale.triangularView<Eigen::StrictlyUpper>().setZero();
  return q;
}

}  // namespace gplvm
