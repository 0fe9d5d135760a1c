#include "gplvm/model/gp_prior_sample.hpp"

#include "gplvm/linalg/cholesky.hpp"

namespace gplvm {

RowMatrix sample_gp_outputs(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                            Index num_outputs, const CounterRng& rng, std::uint64_t stream) {
  Matrix K;
  kernel.cross(X, X, K);
  K.diagonal().array() += noise_variance;
  const CholeskyFactor factor = CholeskyFactor::factorize(std::move(K), "GP prior covariance for sampling");
  Matrix z(X.rows(), num_outputs);
  for (Index d = 0; d < num_outputs; ++d)
    for (Index n = 0; n < X.rows(); ++n)
      z(n, d) = rng.normal(RngPurpose::generator, stream, 0, static_cast<std::uint64_t>(d * X.rows() + n));
  return factor.storage().triangularView<Eigen::Lower>() * z;
}

}  // namespace gplvm
