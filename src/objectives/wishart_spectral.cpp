#include "gplvm/objectives/wishart_spectral.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/linalg/symmetric_eigen.hpp"
#include "gplvm/objectives/wishart_precision.hpp"

namespace gplvm {
namespace {

void require_latent_dim(Index latent_dim, Index num_rows) {
  require(latent_dim >= 1 && latent_dim < num_rows, "the latent dimension l must satisfy 1 <= l < n",
          {"", "latent_dim", std::to_string(latent_dim) + " (n = " + std::to_string(num_rows) + ")"});
}

// The fixed noise, or the estimate from the mean of the n - l discarded eigenvalues: that mean for
// the covariance model, its inverse for the precision model. `scale` (the mean eigenvalue) judges
// a mean that is zero to rounding.
double noise_value(const WishartNoise& noise, double discarded_mean, bool invert, double scale) {
  if (!noise.estimate) {
    require(std::isfinite(noise.fixed_value) && noise.fixed_value > 0,
            "a fixed Wishart noise must be positive",
            {"", kFixedNoiseKey, std::to_string(noise.fixed_value)});
    return noise.fixed_value;
  }
  require(discarded_mean > 1e-12 * scale,
          "the mean of the moment's discarded eigenvalues is not positive (the moment has rank <= l, or "
          "negative eigenvalues, as geodesic or other non-Euclidean distances give): the noise estimate "
          "(that mean) leaves the objective without an optimum; fix the noise instead",
          {"", kFixedNoiseKey, std::to_string(discarded_mean)});
  return invert ? 1.0 / discarded_mean : discarded_mean;
}

}  // namespace

CovarianceClosedForm covariance_closed_form(const Vector& retained, double trace, Index num_rows,
                                            const WishartNoise& noise) {
  const Index l = retained.size();
  require_latent_dim(l, num_rows);
  CovarianceClosedForm closed;
  closed.noise = noise_value(noise, (trace - retained.sum()) / static_cast<double>(num_rows - l), false,
                             trace / static_cast<double>(num_rows));
  closed.scales = Vector::Zero(l);
  for (Index i = 0; i < l; ++i)
    if (retained[i] > closed.noise) closed.scales[i] = std::sqrt(retained[i] - closed.noise);
  return closed;
}

FactorEigenpairs factor_eigenpairs(const Communicator& comm, const DataRef& local_factor, Index count) {
  const Index d = local_factor.cols();
  // F^T F and n in one allreduce.
  Vector buffer(d * d + 1);
  Eigen::Map<Matrix> ftf(buffer.data(), d, d);
  ftf.noalias() = local_factor.transpose() * local_factor;
  buffer[d * d] = static_cast<double>(local_factor.rows());
  comm.allreduce_sum(buffer.data(), buffer.size());
  FactorEigenpairs pairs;
  pairs.num_rows = static_cast<Index>(buffer[d * d]);
  require_latent_dim(count, pairs.num_rows);
  pairs.trace = ftf.trace();
  pairs.values = Vector::Zero(count);
  pairs.local_vectors = Matrix::Zero(local_factor.rows(), count);
  // S_hat's nonzero eigenvalues are F^T F's; beyond d (or F's rank) they are zero, and so are the
  // columns kept for them: F v / sqrt(lambda) is no eigenvector there.
  const Index m = std::min(count, d);
  const SymmetricEigenpairs small = largest_eigenpairs(ftf, m, "F^T F (Wishart covariance fit)");
  pairs.values.head(m) = small.values;
  for (Index i = 0; i < m; ++i)
    if (small.values[i] > 0)
      pairs.local_vectors.col(i).noalias() = local_factor * small.vectors.col(i) / std::sqrt(small.values[i]);
  return pairs;
}

WishartOptimum spectral_covariance_fit(const Communicator& comm, const DataRef& local_factor,
                                       Index latent_dim, const WishartNoise& noise) {
  const FactorEigenpairs pairs = factor_eigenpairs(comm, local_factor, latent_dim);
  const CovarianceClosedForm closed =
      covariance_closed_form(pairs.values, pairs.trace, pairs.num_rows, noise);
  WishartOptimum fit;
  fit.noise = closed.noise;
  fit.eigenvalues = pairs.values;
  fit.latents = pairs.local_vectors * closed.scales.asDiagonal();
  return fit;
}

PrecisionClosedForm precision_closed_form(const Vector& retained, double trace, Index num_rows,
                                          const WishartNoise& noise) {
  const Index l = retained.size();
  require_latent_dim(l, num_rows);
  const double mean = trace / static_cast<double>(num_rows);
  PrecisionClosedForm closed;
  closed.noise = noise_value(noise, (trace - retained.sum()) / static_cast<double>(num_rows - l), true, mean);
  closed.scales = Vector::Zero(l);
  for (Index i = 0; i < l; ++i)
    if (1.0 / retained[i] > closed.noise) closed.scales[i] = std::sqrt(1.0 / retained[i] - closed.noise);
  return closed;
}

WishartOptimum spectral_precision_fit(const Matrix& precision, double regularisation, Index latent_dim,
                                      const WishartNoise& noise) {
  const Index n = precision.rows();
  require(precision.cols() == n, "Gamma_hat must be square",
          {"", "precision", std::to_string(precision.cols())});
  require_latent_dim(latent_dim, n);
  require(std::isfinite(regularisation) && regularisation >= 0,
          "the precision regularisation gamma must be finite and >= 0",
          {"", kPrecisionRegularisationKey, std::to_string(regularisation)});
  Matrix gamma = precision;
  gamma.diagonal().array() += regularisation;
  const SymmetricEigenpairs pairs = smallest_eigenpairs(gamma, latent_dim, "Gamma (Wishart precision fit)");
  const double trace = gamma.trace(), mean = trace / static_cast<double>(n);
  require(pairs.values[0] > kNullVectorTolerance * mean,
          "Gamma_hat + gamma I has a null vector (smallest eigenvalue " + std::to_string(pairs.values[0]) +
              "): the Wishart precision objective is unbounded below; increase the regularisation gamma",
          {"", kPrecisionRegularisationKey, std::to_string(regularisation)});

  const PrecisionClosedForm closed = precision_closed_form(pairs.values, trace, n, noise);
  WishartOptimum fit;
  fit.noise = closed.noise;
  fit.eigenvalues = pairs.values;
  fit.latents = pairs.vectors * closed.scales.asDiagonal();
  return fit;
}

}  // namespace gplvm
