#pragma once
// Small problems for the ProbDR Wishart objectives' tests, and the dense n x n formulas those
// objectives avoid (the tests' oracle: nothing here shares code with src/objectives).
#include <Eigen/Dense>
#include <cmath>
#include <cstdint>

#include "gplvm/core/types.hpp"
#include "support/test_support.hpp"

namespace gplvm::testing {

// F (n x d) with S_hat = F F^T: a rank-3 signal of well-separated strengths plus isotropic noise,
// over sqrt(d) as for F = Y / sqrt(d).
inline RowMatrix wishart_test_factor(Index n, Index d, std::uint64_t seed) {
  const Vector strengths = (Vector(3) << 3.0, 2.0, 1.4).finished();
  const Matrix signal = random_normal(n, 3, seed) * strengths.asDiagonal() * random_normal(3, d, seed + 1);
  return (signal + 0.5 * random_normal(n, d, seed + 2)) / std::sqrt(static_cast<double>(d));
}

// A symmetric positive definite n x n precision: B B^T / m + 0.2 I for a Gaussian n x m B.
inline Matrix wishart_test_precision(Index n, std::uint64_t seed) {
  const Index m = n + 3;
  const Matrix b = random_normal(n, m, seed);
  Matrix gamma = b * b.transpose() / static_cast<double>(m);
  gamma.diagonal().array() += 0.2;
  return gamma;
}

// The Laplacian D - A of the path graph 0 - 1 - ... - (n-1): singular, L 1 = 0.
inline Matrix path_laplacian(Index n) {
  Matrix laplacian = Matrix::Zero(n, n);
  for (Index i = 0; i + 1 < n; ++i) {
    laplacian(i, i + 1) = laplacian(i + 1, i) = -1.0;
    laplacian(i, i) += 1.0;
    laplacian(i + 1, i + 1) += 1.0;
  }
  return laplacian;
}

// A random orthogonal l x l matrix (Q of a Gaussian matrix's QR).
inline Matrix random_orthogonal(Index l, std::uint64_t seed) {
  return Eigen::HouseholderQR<Matrix>(random_normal(l, l, seed)).householderQ() * Matrix::Identity(l, l);
}

inline double log_determinant_spd(const Matrix& a) {
  const Eigen::LLT<Matrix> llt(a);
  return 2.0 * llt.matrixLLT().diagonal().array().log().sum();
}

// The covariance objective written with n x n matrices: C = X X^T + s2 I,
//   f = d/2 [log|C| + tr(C^{-1} S)], df/dX = d (C^{-1} - C^{-1} S C^{-1}) X,
//   df/ds2 = d/2 [tr C^{-1} - tr(C^{-1} S C^{-1})].
struct DenseWishart {
  double value = 0, d_noise = 0;
  Matrix d_latents;
};

inline DenseWishart dense_covariance_objective(const Matrix& S, const Matrix& X, double s2, double d) {
  const Index n = X.rows();
  const Matrix C = X * X.transpose() + s2 * Matrix::Identity(n, n);
  const Matrix C_inv = C.inverse();
  const Matrix middle = C_inv * S * C_inv;
  return {0.5 * d * (log_determinant_spd(C) + (C_inv * S).trace()),
          0.5 * d * (C_inv.trace() - middle.trace()), d * (C_inv - middle) * X};
}

// The precision objective with n x n matrices: K = X X^T + beta I,
//   f = d/2 [tr(K Gamma) - log|K|], df/dX = d (Gamma - K^{-1}) X, df/dbeta = d/2 [tr Gamma - tr K^{-1}].
inline DenseWishart dense_precision_objective(const Matrix& Gamma, const Matrix& X, double beta, double d) {
  const Index n = X.rows();
  const Matrix K = X * X.transpose() + beta * Matrix::Identity(n, n);
  const Matrix K_inv = K.inverse();
  return {0.5 * d * ((K * Gamma).trace() - log_determinant_spd(K)), 0.5 * d * (Gamma.trace() - K_inv.trace()),
          d * (Gamma - K_inv) * X};
}

}  // namespace gplvm::testing
