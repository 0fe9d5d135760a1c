#include "gplvm/objectives/sas.hpp"

#include <cmath>
#include <numbers>
#include <type_traits>
#include <utility>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/linalg/gemm.hpp"
#include "gplvm/linalg/rank_update.hpp"

namespace gplvm {

RemainderScaling parse_remainder_scaling(const std::string& name) {
  if (name == "full_data") return RemainderScaling::full_data;
  if (name == "per_batch") return RemainderScaling::per_batch;
  throw InputError("unknown remainder scaling (expected 'full_data' or 'per_batch')",
                   {"", "sas.scaling", name});
}

std::string to_string(RemainderScaling scaling) {
  return scaling == RemainderScaling::full_data ? "full_data" : "per_batch";
}

double remainder_weight(RemainderScaling scaling, Index num_data, Index batch_size, Index num_active) {
  require(num_active >= 1, "active set size must be at least 1",
          {"", "active_size", std::to_string(num_active)});
  require(num_active < batch_size, "active set size must be smaller than the batch size (A < B)",
          {"", "active_size", std::to_string(num_active) + " >= batch " + std::to_string(batch_size)});
  require(batch_size <= num_data, "batch size exceeds the number of data points",
          {"", "batch_size", std::to_string(batch_size) + " > N = " + std::to_string(num_data)});
  if (scaling == RemainderScaling::per_batch) return 1.0;
  return static_cast<double>(num_data - num_active) / static_cast<double>(batch_size - num_active);
}

double SasActiveSet::log_likelihood() const {
  return normaliser - 0.5 * whitened_data.squaredNorm();
}

void SasPartials::add_active_data_fit(const ConstMatrixRef& beta_columns) {
  require(whitened_adjoint.rows() == beta_columns.rows(),
          "active data fit: beta has the wrong number of rows",
          {"", "rows", std::to_string(beta_columns.rows())});
  value -= 0.5 * beta_columns.squaredNorm();
  rank_update_lower(beta_columns, 0.5, whitened_adjoint);
}

Index SasPartials::packed_size() const {
  return 2 + whitened_adjoint.size() + d_latents_active.size() + d_kernel.size();
}

void SasPartials::pack(double* buffer) const {
  *buffer++ = value;
  *buffer++ = d_log_noise;
  buffer = std::copy_n(whitened_adjoint.data(), whitened_adjoint.size(), buffer);
  buffer = std::copy_n(d_latents_active.data(), d_latents_active.size(), buffer);
  std::copy_n(d_kernel.data(), d_kernel.size(), buffer);
}

void SasPartials::unpack(const double* buffer) {
  value = *buffer++;
  d_log_noise = *buffer++;
  std::copy_n(buffer, whitened_adjoint.size(), whitened_adjoint.data());
  buffer += whitened_adjoint.size();
  std::copy_n(buffer, d_latents_active.size(), d_latents_active.data());
  buffer += d_latents_active.size();
  std::copy_n(buffer, d_kernel.size(), d_kernel.data());
}

SasActiveSet sas_active_factor(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X_active,
                               Index data_dim) {
  GpFactor f = gp_factor(kernel, noise_variance, X_active, "active block K_AA + noise I");
  SasActiveSet active;
  active.kernel_block = std::move(f.kernel_block);
  active.factor = std::move(f.factor);
  active.normaliser = gp_normaliser(active.factor, data_dim);
  active.data_dim = data_dim;
  return active;
}

Matrix whiten_active_columns(const SasActiveSet& active, const ConstMatrixRef& Y_active_columns) {
  require(
      Y_active_columns.rows() == active.factor.size(), "active data and latents differ in rows",
      {"", "rows", std::to_string(Y_active_columns.rows()) + " vs " + std::to_string(active.factor.size())});
  Matrix beta = Y_active_columns;
  active.factor.solve_lower_in_place(beta);
  return beta;
}

SasActiveSet sas_active_set(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X_active,
                            const DataRef& Y_active) {
  SasActiveSet active = sas_active_factor(kernel, noise_variance, X_active, Y_active.cols());
  active.whitened_data = whiten_active_columns(active, Y_active);
  return active;
}

namespace {

// Remainder rows (or their columns in the A x R blocks) per unit of a thread's share: enough that
// a share is worth a thread.
constexpr Index kRowsPerShareUnit = 16;

// The pieces shared by prediction and the objective, for rows as columns (A x R layout).
struct RemainderSolve {
  Matrix k_cross;   // k(X_A, X_R), A x R
  Matrix w;         // L^{-1} k_cross, the whitened cross-covariances: ||w_n||^2 <= k_nn
  Vector variance;  // c_n
};

RemainderSolve solve_remainder(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                               const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder) {
  RemainderSolve s;
  kernel.cross(X_active, X_remainder, s.k_cross);
  kernel.diagonal(X_remainder, s.variance);
  // c_n = k_nn + s2 - ||L^{-1} k_An||^2: the squared norm of the half-solve avoids the cancellation
  // in k^T (K^{-1} k) when c_n is small relative to k_nn.
  s.w = s.k_cross;
  active.factor.solve_lower_in_place(s.w);
  s.variance.array() += noise_variance - s.w.colwise().squaredNorm().transpose().array();
  return s;
}

void require_positive_variances(const Vector& c) {
  for (Index n = 0; n < c.size(); ++n)
    if (!(c[n] > 0.0))
      throw NumericalError("SAS predictive variance is not positive for remainder row " + std::to_string(n) +
                           " (value " + std::to_string(c[n]) + "); the active block is ill-conditioned");
}

}  // namespace

SasPredictive sas_predict(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                          const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder) {
  RemainderSolve s = solve_remainder(kernel, noise_variance, active, X_active, X_remainder);
  SasPredictive p;
  p.mean.noalias() = s.w.transpose() * active.whitened_data;  // = k^T alpha
  p.variance = std::move(s.variance);
  return p;
}

namespace {

// m itself for Scalar = double; otherwise m converted into storage (columns shared among the
// rank's threads).
template <typename Scalar>
const MatrixT<Scalar>& in_scalar(const Matrix& m, MatrixT<Scalar>& storage) {
  if constexpr (std::is_same_v<Scalar, double>) {
    return m;
  } else {
    storage.resize(m.rows(), m.cols());
    for_each_thread_share(m.cols(), kRowsPerShareUnit, [&](Index j0, Index j1) {
      storage.middleCols(j0, j1 - j0) = m.middleCols(j0, j1 - j0).template cast<Scalar>();
    });
    return storage;
  }
}

// m as double: moved through for Scalar = double, a converted copy otherwise.
template <typename Scalar>
Matrix in_scalar_to_double(MatrixT<Scalar>&& m) {
  if constexpr (std::is_same_v<Scalar, double>)
    return std::move(m);
  else
    return m.template cast<double>();
}

// The remainder terms, written on whitened quantities: with L L^T = K_AA + s2 I, beta = L^{-1} Y_A
// and w_n = L^{-1} k_An, the mean is m_n = w_n^T beta and
//   G = dL/dk_An = alpha z_n^T - 2 g_n v_n = L^{-T} (beta Z^T - 2 W diag(g))      (A x R)
//   dL/dK_AA (through v_n, alpha) = -sym(L^{-T} (beta Z^T - W diag(g)) W^T L^{-1})  (A x A)
// so every data-sized product (Y_R - W^T beta and beta Z^T, both O(A R D)) and the A x A x R
// product multiply bounded quantities (||w_n||^2 <= k_nn, ||beta||^2 is the data fit), never
// alpha = K^{-1} Y, whose entries grow like 1/s2 and cancel in k^T alpha. That is what lets those
// products run in fp32 (Scalar = float) without losing the digits a small noise variance costs.
// The triangular solves, the variances c_n = k_nn + s2 - ||w_n||^2 (which cancel), the sums forming
// the value and the adjoints stay fp64. For Scalar = double the casts are no-ops. The A x A
// adjoint is returned whitened (-sym(M) below): sas_combine applies L^{-T} . L^{-1} once, to the
// active and remainder parts together.
template <typename Scalar>
SasPartials remainder_terms(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                            const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder,
                            const DataRefT<Scalar>& Y_remainder, double weight) {
  const Index A = X_active.rows(), R = X_remainder.rows(), D = Y_remainder.cols();
  require(Y_remainder.rows() == R, "remainder latents and data have different numbers of rows",
          {"", "rows", std::to_string(R) + " vs " + std::to_string(Y_remainder.rows())});
  // The latents come from the parameters (an encoder or free latents), so a NaN here is a
  // numerical failure of the run (a diverged parameter), not bad input.
  if (!X_remainder.allFinite())
    throw NumericalError("remainder latents contain NaN or Inf", {"", "latents", "non-finite"});
  SasPartials out;
  out.whitened_adjoint = Matrix::Zero(A, A);
  out.d_latents_active = Matrix::Zero(A, X_active.cols());
  out.d_kernel = Vector::Zero(kernel.num_hyperparameters());
  out.d_latents_remainder = Matrix::Zero(R, X_remainder.cols());
  if (R == 0) return out;

  const RemainderSolve s = solve_remainder(kernel, noise_variance, active, X_active, X_remainder);
  require_positive_variances(s.variance);
  const CholeskyFactor& L = active.factor;
  MatrixT<Scalar> beta_storage, w_storage;
  const MatrixT<Scalar>& beta = in_scalar(active.whitened_data, beta_storage);
  const MatrixT<Scalar>& w = in_scalar(s.w, w_storage);
  // The means w_n^T beta, rows are points (row-major like Y; R x D row-major is D x R
  // column-major: beta^T W).
  RowMatrixT<Scalar> residual(R, D);
  gemm(view_of(beta).transposed(), view_of(w), MutableMatrixView<Scalar>{residual.data(), D, R, D},
       GemmUpdate::overwrite);
  const Eigen::ArrayXd c = s.variance.array();
  const double d = static_cast<double>(D);
  // One pass over the rows (shared among the rank's threads, as every per-row and per-column pass
  // below): r_n = y_n - m_n, its squared norm, then r_n scaled to z_n = w r_n / c_n while it is
  // still in L1. Taking y_n here, not copying Y into the product's output first, saves a pass
  // over the R x D block.
  Vector sq(R);
  for_each_thread_share(R, kRowsPerShareUnit, [&](Index n0, Index n1) {
    for (Index n = n0; n < n1; ++n) {
      auto row = residual.row(n);
      row = Y_remainder.row(n) - row;
      sq[n] = static_cast<double>(row.squaredNorm());
      row *= static_cast<Scalar>(weight / c[n]);  // now Z, R x D
    }
  });

  out.value = weight * (-0.5 * d * (2.0 * std::numbers::pi * c).log() - 0.5 * sq.array() / c).sum();
  // g_n = dL/dc_n and z_n = dL/dm_n = r_n / c_n, both times the weight.
  const Vector g = weight * (-0.5 * d / c + 0.5 * sq.array() / c.square()).matrix();

  // With P = beta Z^T - W diag(g): G = L^{-T} (P - W diag(g)) needs it in fp64 (for the solve),
  // the A x A x R product below in the step's precision. Both come from the product and W diag(g)
  // in one pass, column by column; W diag(g) stays fp64 until the difference is taken, because at
  // small noise g grows like 1/c^2 and the two terms cancel (rounding W diag(g) to fp32 first cost
  // two digits of d_latents at s2 = 1e-4: Sas.Float32RemainderTermsMatchFloat64).
  MatrixT<Scalar> P(A, R);
  gemm(view_of(beta), view_of(residual).transposed(), mutable_view_of(P), GemmUpdate::overwrite);
  Matrix G(A, R);
  for_each_thread_share(R, kRowsPerShareUnit, [&](Index n0, Index n1) {
    for (Index n = n0; n < n1; ++n) {
      const auto beta_z = P.col(n).template cast<double>();
      G.col(n) = beta_z - (2.0 * g[n]) * s.w.col(n);
      P.col(n) = (beta_z - g[n] * s.w.col(n)).template cast<Scalar>();
    }
  });
  MatrixT<Scalar> pw(A, A);
  gemm(view_of(P), view_of(w).transposed(), mutable_view_of(pw), GemmUpdate::overwrite);
  const Matrix M = in_scalar_to_double(std::move(pw));
  out.whitened_adjoint = -0.5 * (M + M.transpose());
  L.solve_upper_in_place(G);

  kernel.cross_backward(X_active, X_remainder, s.k_cross, G, &out.d_latents_active, &out.d_latents_remainder,
                        out.d_kernel);
  kernel.diagonal_backward(X_remainder, g, &out.d_latents_remainder, out.d_kernel);
  out.d_log_noise = noise_variance * g.sum();
  return out;
}

}  // namespace

SasPartials sas_remainder_terms(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                                const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder,
                                const DataRef& Y_remainder, double weight) {
  return remainder_terms<double>(kernel, noise_variance, active, X_active, X_remainder, Y_remainder, weight);
}

SasPartials sas_remainder_terms(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                                const ConstMatrixRef& X_active, const ConstMatrixRef& X_remainder,
                                const DataRefF& Y_remainder, double weight) {
  return remainder_terms<float>(kernel, noise_variance, active, X_active, X_remainder, Y_remainder, weight);
}

GpGradient sas_partials_gradient(const SasActiveSet& active, const SasPartials& partials) {
  GpGradient g;
  g.value = active.normaliser + partials.value;  // the data fit -||beta||^2/2 is in the partials
  g.d_latents = partials.d_latents_active;
  g.d_kernel = partials.d_kernel;
  g.d_log_noise = partials.d_log_noise;
  return g;
}

Matrix sas_whitened_adjoint(const SasActiveSet& active, const SasPartials& partials) {
  // The active term's adjoint 1/2 (alpha alpha^T - D K^{-1}) is L^{-T} 1/2 (beta beta^T - D I) L^{-1};
  // beta beta^T / 2 came with the partials, so with -D/2 I added, L^{-T} W L^{-1} is the whole
  // dL/d(K_AA + s2 I), with no explicit inverse and no alpha.
  Matrix W = partials.whitened_adjoint;
  W.diagonal().array() -= 0.5 * static_cast<double>(active.data_dim);
  W.triangularView<Eigen::StrictlyUpper>() = W.transpose();
  return W;
}

void add_active_adjoint_columns(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                                const ConstMatrixRef& X_active, const Matrix& V, Index first, Index count,
                                GpGradient& gradient) {
  const Index a = X_active.rows();
  require(V.rows() == a && V.cols() == a && first >= 0 && count >= 0 && first + count <= a,
          "active adjoint columns out of range",
          {"", "columns", std::to_string(first) + "+" + std::to_string(count) + " of " + std::to_string(a)});
  if (count == 0) return;
  Matrix X_columns = V.middleRows(first, count).transpose();
  active.factor.solve_upper_in_place(X_columns);  // L^{-T} V[cols, :]^T = (K_AA + s2 I)-adjoint columns
  // k(x_i, x_j) for j in the columns: both arguments are latents of the active set, so the column
  // points get their own share (the rows' share covers every point through the other columns).
  Matrix d_columns = Matrix::Zero(count, X_active.cols());
  kernel.cross_backward(X_active, X_active.middleRows(first, count),
                        active.kernel_block.middleCols(first, count), X_columns, &gradient.d_latents,
                        &d_columns, gradient.d_kernel);
  gradient.d_latents.middleRows(first, count) += d_columns;
  gradient.d_log_noise += noise_variance * X_columns.middleRows(first, count).trace();
}

GpGradient sas_combine(const Kernel& kernel, double noise_variance, const SasActiveSet& active,
                       const ConstMatrixRef& X_active, const SasPartials& partials) {
  GpGradient g = sas_partials_gradient(active, partials);
  Matrix V = sas_whitened_adjoint(active, partials);
  active.factor.solve_upper_in_place(V);  // L^{-T} W
  add_active_adjoint_columns(kernel, noise_variance, active, X_active, V, 0, X_active.rows(), g);
  return g;
}

SasGradient sas_objective(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X_active,
                          const DataRef& Y_active, const ConstMatrixRef& X_remainder,
                          const DataRef& Y_remainder, double weight) {
  const SasActiveSet active = sas_active_set(kernel, noise_variance, X_active, Y_active);
  SasPartials partials =
      sas_remainder_terms(kernel, noise_variance, active, X_active, X_remainder, Y_remainder, weight);
  partials.add_active_data_fit(active.whitened_data);
  const GpGradient total = sas_combine(kernel, noise_variance, active, X_active, partials);
  SasGradient out;
  out.value = total.value;
  out.d_latents_active = total.d_latents;
  out.d_latents_remainder = std::move(partials.d_latents_remainder);
  out.d_kernel = total.d_kernel;
  out.d_log_noise = total.d_log_noise;
  return out;
}

}  // namespace gplvm
