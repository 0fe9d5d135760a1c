#include "low_rank_plus_noise.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/linalg/cholesky.hpp"

namespace gplvm {

LowRankPlusNoise low_rank_plus_noise(const Matrix& gram, double noise, Index num_rows, const char* what) {
  const Index l = gram.rows();
  Matrix a = gram;
  a.diagonal().array() += noise;
  const CholeskyFactor factor = CholeskyFactor::factorize(std::move(a), what);
  LowRankPlusNoise k;
  k.a_inverse = factor.inverse();
  k.log_determinant = static_cast<double>(num_rows - l) * std::log(noise) + factor.log_determinant();
  // A^{-1} and X^T X are symmetric: the trace of their product is their elementwise product's sum.
  k.trace_inverse = (static_cast<double>(num_rows) - k.a_inverse.cwiseProduct(gram).sum()) / noise;
  return k;
}

void require_positive_noise(double noise, const char* key) {
  require(std::isfinite(noise) && noise > 0, "the Wishart noise must be positive and finite",
          {"", key, std::to_string(noise)});
}

}  // namespace gplvm
