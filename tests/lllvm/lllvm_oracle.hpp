#pragma once
// A brute-force oracle for LL-LVM's closed forms at small n (n <= 8): the paper's matrices built
// literally, in its node-major order (entry (i, r) at i d_x + r), as dense Kronecker products.
// Nothing here is efficient or shared with the library; the tests compare the library against it.
#include <cmath>
#include <numbers>

#include "gplvm/core/types.hpp"

namespace gplvm::testing::lllvm_oracle {

struct Instance {
  Matrix g;  // n x n, binary symmetric, zero diagonal
  Matrix y;  // n x d_y
  Matrix c;  // d_y x n d_x, node-major columns
  Vector x;  // n d_x, node-major
  Index dx = 1;
  double gamma = 0.7, epsilon = 1e-2;
  Index n() const { return g.rows(); }
  Index dy() const { return y.cols(); }
  Matrix c_block(Index i) const { return c.middleCols(i * dx, dx); }
  Vector x_block(Index i) const { return x.segment(i * dx, dx); }
};

inline Matrix laplacian(const Matrix& g) {
  return Matrix(g.rowwise().sum().asDiagonal()) - g;
}

// L~ = (eps 1 1^T + 2 gamma L)^-1.
inline Matrix l_tilde(const Matrix& g, double gamma, double epsilon) {
  const Index n = g.rows();
  return (epsilon * Matrix::Ones(n, n) + 2.0 * gamma * laplacian(g)).inverse();
}

inline Matrix kron(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows() * b.rows(), a.cols() * b.cols());
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < a.cols(); ++j)
      out.block(i * b.rows(), j * b.cols(), b.rows(), b.cols()) = a(i, j) * b;
  return out;
}

// A_E (n d_y x n d_x): e = A_E x.
inline Matrix a_e(const Instance& p) {
  const Index n = p.n(), dy = p.dy(), dx = p.dx;
  Matrix out = Matrix::Zero(n * dy, n * dx);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) {
      Matrix block = -p.g(i, j) * p.gamma * (p.c_block(j) + p.c_block(i));
      if (i == j)
        for (Index k = 0; k < n; ++k) block += p.g(i, k) * p.gamma * (p.c_block(k) + p.c_block(i));
      out.block(i * dy, j * dx, dy, dx) = block;
    }
  return out;
}

// e_i = gamma sum_j eta_ij (C_i + C_j)(x_i - x_j), stacked.
inline Vector e_direct(const Instance& p) {
  Vector e = Vector::Zero(p.n() * p.dy());
  for (Index i = 0; i < p.n(); ++i)
    for (Index j = 0; j < p.n(); ++j)
      e.segment(i * p.dy(), p.dy()) +=
          p.gamma * p.g(i, j) * (p.c_block(i) + p.c_block(j)) * (p.x_block(i) - p.x_block(j));
  return e;
}

// Q (n d_x x n): E = C Q, q_i(j) its j-th chunk of column i.
inline Matrix q_matrix(const Instance& p) {
  const Index n = p.n(), dx = p.dx;
  Matrix q = Matrix::Zero(n * dx, n);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) {
      Vector chunk = p.gamma * p.g(i, j) * (p.x_block(i) - p.x_block(j));
      if (i == j)
        for (Index k = 0; k < n; ++k) chunk += p.gamma * p.g(i, k) * (p.x_block(i) - p.x_block(k));
      q.block(j * dx, i, dx, 1) = chunk;
    }
  return q;
}

inline Matrix sigma_y(const Instance& p) {
  return kron(l_tilde(p.g, p.gamma, p.epsilon), Matrix::Identity(p.dy(), p.dy()));
}

// b_i = gamma sum_j eta_ij (C_i + C_j)^T (y_i - y_j), node-major.
inline Vector b_vector(const Instance& p) {
  Vector b = Vector::Zero(p.n() * p.dx);
  for (Index i = 0; i < p.n(); ++i)
    for (Index j = 0; j < p.n(); ++j)
      b.segment(i * p.dx, p.dx) += p.gamma * p.g(i, j) * (p.c_block(i) + p.c_block(j)).transpose() *
                                   (p.y.row(i) - p.y.row(j)).transpose();
  return b;
}

// H_i = sum_j eta_ij (y_j - y_i)(x_j - x_i)^T, node-major columns.
inline Matrix h_matrix(const Instance& p) {
  Matrix h = Matrix::Zero(p.dy(), p.n() * p.dx);
  for (Index i = 0; i < p.n(); ++i)
    for (Index j = 0; j < p.n(); ++j)
      h.middleCols(i * p.dx, p.dx) +=
          p.g(i, j) * (p.y.row(j) - p.y.row(i)).transpose() * (p.x_block(j) - p.x_block(i)).transpose();
  return h;
}

// The paper's quadruple sums for an arbitrary (node-major) second moment M of C (eq. 59) or of x
// (eq. 72), with kernel K in place of L~ and without the gamma^2 factor.
inline Matrix quadruple_sum(const Matrix& g, const Matrix& k, const Matrix& m, Index dx, bool for_a) {
  const Index n = g.rows();
  const auto blk = [&](Index a, Index b) { return m.block(a * dx, b * dx, dx, dx); };
  const double s = for_a ? 1.0 : -1.0;
  Matrix out = Matrix::Zero(n * dx, n * dx);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j)
      for (Index p = 0; p < n; ++p)
        for (Index q = 0; q < n; ++q) {
          const double weight = (k(p, q) - k(p, j) - k(i, q) + k(i, j)) * g(p, i) * g(q, j);
          if (weight == 0.0) continue;
          out.block(i * dx, j * dx, dx, dx) +=
              weight * (blk(p, q) + s * blk(p, j) + s * blk(i, q) + blk(i, j));
        }
  return out;
}

// log N(v; mean, cov), dense.
inline double log_normal(const Vector& v, const Vector& mean, const Matrix& cov) {
  const Eigen::LLT<Matrix> llt(cov);
  const Vector r = v - mean;
  const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return -0.5 *
         (r.dot(llt.solve(r)) + log_det + static_cast<double>(v.size()) * std::log(2.0 * std::numbers::pi));
}

// KL(N(m, s) || N(0, prior_precision^-1)), dense.
inline double gaussian_kl(const Vector& m, const Matrix& s, const Matrix& prior_precision) {
  const double log_det_s = Eigen::LLT<Matrix>(s).matrixLLT().diagonal().array().log().sum() * 2.0;
  const double log_det_p =
      Eigen::LLT<Matrix>(prior_precision).matrixLLT().diagonal().array().log().sum() * 2.0;
  return 0.5 * ((prior_precision * s).trace() + m.dot(prior_precision * m) - static_cast<double>(m.size()) -
                log_det_p - log_det_s);
}

}  // namespace gplvm::testing::lllvm_oracle
