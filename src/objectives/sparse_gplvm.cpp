#include "gplvm/objectives/sparse_gplvm.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/model/gaussian_kl.hpp"
#include "gplvm/objectives/collapsed_bound.hpp"
#include "gplvm/objectives/point_psi.hpp"

namespace gplvm {
namespace {

void require_rows(const ConstMatrixRef& latents, const ConstMatrixRef& Z, Index data_rows) {
  require(latents.rows() == data_rows, "latents and data have different numbers of rows",
          {"", "rows", std::to_string(latents.rows()) + " vs " + std::to_string(data_rows)});
  require(latents.cols() == Z.cols(), "latents and inducing inputs have different widths",
          {"", "inducing_inputs", std::to_string(Z.cols())});
  require(latents.allFinite(), "latents contain NaN or Inf", {"", "latents", "non-finite"});
}

// A rank that owns no rows contributes zero statistics (and must not ask a kernel for them).
void empty_psi(Index num_inducing, PsiStatistics& psi) {
  psi.psi0 = 0.0;
  psi.psi1.resize(0, num_inducing);
  psi.psi2 = Matrix::Zero(num_inducing, num_inducing);
}

Matrix inducing_kernel(const Kernel& kernel, const ConstMatrixRef& Z) {
  require(Z.rows() > 0 && Z.allFinite(), "inducing inputs must be finite and at least one",
          {"", "inducing_inputs", std::to_string(Z.rows())});
  Matrix K;
  kernel.cross(Z, Z, K);
  return K;
}

// Steps 2, 3, 5 and 6 around the rows' own steps 1 and 4 (`backward` fills `out`'s local rows).
template <class Backward>
SparseGplvmGradient collapsed_evaluation(const Communicator& comm, const Kernel& kernel,
                                         double noise_variance, const ConstMatrixRef& Z,
                                         SparseStatistics statistics, double relative_jitter,
                                         Backward&& backward) {
  statistics.allreduce(comm);
  const Matrix K = inducing_kernel(kernel, Z);
  const CollapsedBound bound = collapsed_bound(statistics, K, noise_variance, relative_jitter);
  SparseGplvmGradient out;
  SharedGradient shared = SharedGradient::zero(Z.rows(), Z.cols(), kernel.num_hyperparameters());
  backward(bound.adjoint, out, shared);
  shared.allreduce(comm);
  inducing_kernel_backward(kernel, Z, K, bound.d_inducing_kernel, shared);
  out.value = bound.value;
  out.d_inducing = std::move(shared.d_inducing);
  out.d_kernel = std::move(shared.d_kernel);
  out.d_log_noise = bound.d_log_noise;
  return out;
}

}  // namespace

SharedGradient SharedGradient::zero(Index num_inducing, Index input_dim, Index num_hyperparameters) {
  return {Matrix::Zero(num_inducing, input_dim), Vector::Zero(num_hyperparameters)};
}

void SharedGradient::allreduce(const Communicator& comm) {
  if (comm.size() == 1) return;
  std::vector<double> buffer(static_cast<size_t>(d_inducing.size() + d_kernel.size()));
  std::copy_n(d_kernel.data(), d_kernel.size(),
              std::copy_n(d_inducing.data(), d_inducing.size(), buffer.data()));
  comm.allreduce_sum(buffer.data(), static_cast<Index>(buffer.size()));
  std::copy_n(buffer.data(), d_inducing.size(), d_inducing.data());
  std::copy_n(buffer.data() + d_inducing.size(), d_kernel.size(), d_kernel.data());
}

SparseStatistics point_rows_statistics(const Kernel& kernel, const ConstMatrixRef& Z,
                                       const ConstMatrixRef& X_local, const DataRef& Y_local,
                                       PsiStatistics& psi) {
  require_rows(X_local, Z, Y_local.rows());
  if (X_local.rows() == 0)
    empty_psi(Z.rows(), psi);
  else
    point_psi_statistics(kernel, X_local, Z, psi);
  return sparse_statistics(psi, Y_local);
}

void point_rows_backward(const Kernel& kernel, const ConstMatrixRef& Z, const ConstMatrixRef& X_local,
                         const DataRef& Y_local, const PsiStatistics& psi, const StatisticsAdjoint& adjoint,
                         Matrix& d_latents, SharedGradient& shared) {
  if (X_local.rows() == 0) return;
  point_psi_backward(kernel, X_local, Z, psi, adjoint.d_psi0, psi1_adjoint(adjoint, Y_local), adjoint.d_psi2,
                     &d_latents, &shared.d_inducing, shared.d_kernel);
}

SparseStatistics gaussian_rows_statistics(const Kernel& kernel, const ConstMatrixRef& Z,
                                          const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                                          const DataRef& Y_local, PsiStatistics& psi) {
  require_rows(mean, Z, Y_local.rows());
  require(variance.rows() == mean.rows() && variance.cols() == mean.cols(),
          "latent means and variances have different shapes", {"", "latent variance"});
  require((variance.array() > 0.0).all() && variance.allFinite(),
          "latent variances must be positive and finite",
          {"", "latent variance", "non-positive or non-finite"});
  if (mean.rows() == 0)
    empty_psi(Z.rows(), psi);
  else
    kernel.psi_statistics(mean, variance, Z, psi);
  SparseStatistics s = sparse_statistics(psi, Y_local);
  s.kl = gaussian_kl(mean, variance);
  return s;
}

void gaussian_rows_backward(const Kernel& kernel, const ConstMatrixRef& Z, const ConstMatrixRef& mean,
                            const ConstMatrixRef& variance, const DataRef& Y_local, const PsiStatistics& psi,
                            const StatisticsAdjoint& adjoint, Matrix& d_mean, Matrix& d_variance,
                            SharedGradient& shared) {
  if (mean.rows() == 0) return;
  kernel.psi_backward(mean, variance, Z, psi, adjoint.d_psi0, psi1_adjoint(adjoint, Y_local), adjoint.d_psi2,
                      &d_mean, &d_variance, &shared.d_inducing, shared.d_kernel);
  gaussian_kl_backward(mean, variance, adjoint.d_kl, d_mean, d_variance);
}

void inducing_kernel_backward(const Kernel& kernel, const ConstMatrixRef& Z, const Matrix& inducing_kernel,
                              const Matrix& G, SharedGradient& shared) {
  // Both arguments of k(Z, Z) are Z: dZ receives both adjoint contributions.
  kernel.cross_backward(Z, Z, inducing_kernel, G, &shared.d_inducing, &shared.d_inducing, shared.d_kernel);
}

SparseGplvmGradient sparse_gplvm_bound(const Communicator& comm, const Kernel& kernel, double noise_variance,
                                       const ConstMatrixRef& Z, const ConstMatrixRef& X_local,
                                       const DataRef& Y_local, double relative_jitter) {
  PsiStatistics psi;
  SparseStatistics statistics = point_rows_statistics(kernel, Z, X_local, Y_local, psi);
  return collapsed_evaluation(
      comm, kernel, noise_variance, Z, std::move(statistics), relative_jitter,
      [&](const StatisticsAdjoint& adjoint, SparseGplvmGradient& out, SharedGradient& shared) {
        out.d_latents = Matrix::Zero(X_local.rows(), X_local.cols());
        point_rows_backward(kernel, Z, X_local, Y_local, psi, adjoint, out.d_latents, shared);
      });
}

SparseGplvmGradient bayesian_gplvm_bound(const Communicator& comm, const Kernel& kernel,
                                         double noise_variance, const ConstMatrixRef& Z,
                                         const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                                         const DataRef& Y_local, double relative_jitter) {
  PsiStatistics psi;
  SparseStatistics statistics = gaussian_rows_statistics(kernel, Z, mean, variance, Y_local, psi);
  return collapsed_evaluation(
      comm, kernel, noise_variance, Z, std::move(statistics), relative_jitter,
      [&](const StatisticsAdjoint& adjoint, SparseGplvmGradient& out, SharedGradient& shared) {
        out.d_latents = Matrix::Zero(mean.rows(), mean.cols());
        out.d_variance = Matrix::Zero(mean.rows(), mean.cols());
        gaussian_rows_backward(kernel, Z, mean, variance, Y_local, psi, adjoint, out.d_latents,
                               out.d_variance, shared);
      });
}

}  // namespace gplvm
