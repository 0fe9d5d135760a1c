#include "gplvm/objectives/collapsed_bound.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

void symmetrise(Matrix& A) {
  A = 0.5 * (A + A.transpose()).eval();
}

void validate(const SparseStatistics& s, const Matrix& inducing_kernel, double noise_variance) {
  require(std::isfinite(noise_variance) && noise_variance > 0, "noise variance must be positive and finite",
          {"", "noise_variance", std::to_string(noise_variance)});
  require(inducing_kernel.rows() == s.num_inducing() && inducing_kernel.cols() == s.num_inducing(),
          "K_ZZ is not M x M for the statistics' M inducing points",
          {"", "inducing_kernel", std::to_string(inducing_kernel.rows())});
  require(s.psi1_data.allFinite() && s.psi2.allFinite() && std::isfinite(s.psi0),
          "sparse statistics contain NaN or Inf", {"", "statistics", "non-finite"});
}

}  // namespace

WhitenedStatistics whiten_statistics(const SparseStatistics& statistics, const Matrix& inducing_kernel,
                                     double relative_jitter) {
  WhitenedStatistics w;
  w.kernel_factor = CholeskyFactor::factorize(jittered_inducing_kernel(inducing_kernel, relative_jitter),
                                              "K_ZZ (inducing points)");
  // Phi = L^{-1} Psi2 L^{-T}: one solve from the left, transpose, one more.
  Matrix half = statistics.psi2;
  w.kernel_factor.solve_lower_in_place(half);
  w.phi = half.transpose();
  w.kernel_factor.solve_lower_in_place(w.phi);
  symmetrise(w.phi);
  w.psi1_data = statistics.psi1_data;
  w.kernel_factor.solve_lower_in_place(w.psi1_data);
  return w;
}

Matrix unwhiten_adjoint(const CholeskyFactor& kernel_factor, Matrix H) {
  kernel_factor.solve_upper_in_place(H);  // L^{-T} H
  Matrix G = H.transpose();               // H^T L^{-1} = (L^{-T} H)^T
  kernel_factor.solve_upper_in_place(G);  // L^{-T} H L^{-1}
  symmetrise(G);
  return G;
}

CollapsedBound collapsed_bound(const SparseStatistics& s, const Matrix& inducing_kernel,
                               double noise_variance, double relative_jitter) {
  validate(s, inducing_kernel, noise_variance);
  const double beta = 1.0 / noise_variance;
  const double n = s.num_rows, d = static_cast<double>(s.data_dim()),
               m = static_cast<double>(s.num_inducing());
  const WhitenedStatistics w = whiten_statistics(s, inducing_kernel, relative_jitter);

  Matrix B = beta * w.phi;
  B.diagonal().array() += 1.0;
  const CholeskyFactor b_factor = CholeskyFactor::factorize(std::move(B), "I + Phi / s2 (collapsed bound)");
  Matrix e = w.psi1_data;  // e = L_B^{-1} c
  b_factor.solve_lower_in_place(e);
  Matrix v = e;  // w = L_B^{-T} e = B^{-1} c, then v = L^{-T} w
  b_factor.solve_upper_in_place(v);
  const Matrix b_solved = v;
  w.kernel_factor.solve_upper_in_place(v);

  const double fit = e.squaredNorm(), trace_phi = w.phi.trace();
  CollapsedBound out;
  out.value = -0.5 * n * d * std::log(2.0 * std::numbers::pi * noise_variance) -
              0.5 * d * b_factor.log_determinant() - 0.5 * beta * s.data_norm + 0.5 * beta * beta * fit -
              0.5 * beta * d * (s.psi0 - trace_phi) - s.kl;

  const Matrix b_inverse = b_factor.inverse();
  // I - B^{-1} appears in both M x M adjoints; (beta^2/2) w w^T is the data fit's share.
  Matrix common = -0.5 * d * b_inverse;
  common.diagonal().array() += 0.5 * d;
  common.selfadjointView<Eigen::Lower>().rankUpdate(b_solved, -0.5 * beta * beta);
  common.triangularView<Eigen::StrictlyUpper>() = common.transpose();

  out.adjoint.d_psi0 = -0.5 * beta * d;
  out.adjoint.d_psi1_data = (beta * beta) * v;
  out.adjoint.d_psi2 = unwhiten_adjoint(w.kernel_factor, beta * common);
  out.adjoint.d_data_norm = -0.5 * beta;
  out.adjoint.d_kl = -1.0;
  out.d_inducing_kernel = unwhiten_adjoint(w.kernel_factor, common - (0.5 * beta * d) * w.phi);
  add_inducing_jitter_adjoint(out.d_inducing_kernel, relative_jitter);
  out.d_log_noise = -0.5 * d * (n - m) - 0.5 * d * b_inverse.trace() + 0.5 * beta * s.data_norm -
                    0.5 * beta * beta * (fit + b_solved.squaredNorm()) +
                    0.5 * beta * d * (s.psi0 - trace_phi);
  return out;
}

}  // namespace gplvm
