#include "gplvm/objectives/inducing_posterior_transfer.hpp"

#include "gplvm/linalg/cholesky.hpp"

namespace gplvm {
namespace {

// Cov(u'_i, u_j): the kernel, plus the jitter's shared noise where the two inputs are one point.
Matrix cross_covariance(const Kernel& kernel, const ConstMatrixRef& new_inputs, const ConstMatrixRef& inputs,
                        double jitter) {
  Matrix cross;
  kernel.cross(new_inputs, inputs, cross);
  for (Index i = 0; i < new_inputs.rows(); ++i)
    for (Index j = 0; j < inputs.rows(); ++j)
      if (new_inputs.row(i) == inputs.row(j)) cross(i, j) += jitter;
  return cross;
}

}  // namespace

InducingPosterior transferred_inducing_posterior(const InducingPosterior& q, const Kernel& kernel,
                                                 const ConstMatrixRef& inputs,
                                                 const ConstMatrixRef& new_inputs, double relative_jitter) {
  Matrix K;
  kernel.cross(inputs, inputs, K);
  // The old K's jitter throughout: it is the noise each inducing value carries, attached to its input.
  const double jitter = inducing_jitter(K, relative_jitter);
  K.diagonal().array() += jitter;
  const Matrix cross = cross_covariance(kernel, new_inputs, inputs, jitter);
  Matrix new_kernel;
  kernel.cross(new_inputs, new_inputs, new_kernel);
  new_kernel.diagonal().array() += jitter;

  // A^T = K^{-1} K_{Z Z'}.
  const CholeskyFactor factor = CholeskyFactor::factorize(K, "K_ZZ (q(u) carried to new inducing inputs)");
  Matrix a_transposed = cross.transpose();
  factor.solve_in_place(a_transposed);

  const Matrix scale = q.scale.triangularView<Eigen::Lower>();
  const Matrix S = scale * scale.transpose();
  InducingPosterior out;
  out.mean = a_transposed.transpose() * q.mean;
  // K'' - A (K - S) A^T, symmetrised against rounding before it is factorised.
  Matrix covariance = new_kernel - a_transposed.transpose() * (K - S) * a_transposed;
  covariance = 0.5 * (covariance + covariance.transpose()).eval();
  const CholeskyFactor covariance_factor =
      CholeskyFactor::factorize(std::move(covariance), "S' (q(u) carried to new inducing inputs)");
  out.scale = covariance_factor.storage().triangularView<Eigen::Lower>();
  return out;
}

}  // namespace gplvm
