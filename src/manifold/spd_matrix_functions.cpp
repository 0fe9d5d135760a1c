#include "gplvm/manifold/spd_matrix_functions.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm::spd {
namespace {

template <class F>
Matrix apply_to_eigenvalues(const Matrix& s, F f) {
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(s);
  const Vector values = eigen.eigenvalues().unaryExpr(f);
  const Matrix& u = eigen.eigenvectors();
  Matrix out = u * values.asDiagonal() * u.transpose();
  return symmetric_part(out);  // exactly symmetric, whatever the products rounded
}

}  // namespace

Index matrix_order(Index size, const std::string& key) {
  const auto n = static_cast<Index>(std::llround(std::sqrt(static_cast<double>(size))));
  require(size >= 1 && n * n == size, "SPD matrices need n x n = n^2 numbers per point",
          {"", key, std::to_string(size) + " numbers per point"});
  return n;
}

Matrix as_matrix(const ConstVectorRef& flat, Index n) {
  // C order read as column-major is the transpose: the same matrix when symmetric, and the
  // symmetric part (the only part used) either way.
  return Eigen::Map<const Matrix>(flat.data(), n, n).transpose();
}

Vector as_flat(const Matrix& m) {
  const Matrix t = m.transpose();
  return Eigen::Map<const Vector>(t.data(), t.size());
}

Matrix symmetric_part(const Matrix& a) {
  return 0.5 * (a + a.transpose());
}

Matrix log(const Matrix& s) {
  return apply_to_eigenvalues(s, [](double x) { return std::log(x); });
}

Matrix exp(const Matrix& s) {
  return apply_to_eigenvalues(s, [](double x) { return std::exp(x); });
}

Matrix sqrt(const Matrix& s) {
  return apply_to_eigenvalues(s, [](double x) { return std::sqrt(x); });
}

Matrix exp_derivative(const Matrix& s, const Matrix& h) {
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(s);
  const Vector& l = eigen.eigenvalues();
  const Matrix& u = eigen.eigenvectors();
  Matrix inner = u.transpose() * h * u;
  for (Index j = 0; j < l.size(); ++j)
    for (Index i = 0; i < l.size(); ++i) {
      // e^l_i (e^d - 1) / d with d = l_j - l_i: no cancellation when the eigenvalues are close.
      const double d = l[j] - l[i];
      inner(i, j) *= std::exp(l[i]) * (d == 0.0 ? 1.0 : std::expm1(d) / d);
    }
  return symmetric_part(u * inner * u.transpose());
}

Matrix inverse_sqrt(const Matrix& s) {
  return apply_to_eigenvalues(s, [](double x) { return 1.0 / std::sqrt(x); });
}

Matrix clip_to_spd(const Matrix& a, double relative_floor) {
  const Matrix s = symmetric_part(a);
  const double largest =
      s.size() == 0 ? 0.0 : Eigen::SelfAdjointEigenSolver<Matrix>(s).eigenvalues().cwiseAbs().maxCoeff();
  if (!(largest > 0.0) || !std::isfinite(largest))
    throw NumericalError("no SPD matrix is nearest to a zero or non-finite matrix",
                         {"", "largest |eigenvalue|", std::to_string(largest)});
  const double floor = relative_floor * largest;
  return apply_to_eigenvalues(s, [floor](double x) { return std::max(x, floor); });
}

Matrix frobenius_basis(Index n) {
  Matrix basis = Matrix::Zero(n * n, n * (n + 1) / 2);
  Index column = 0;
  for (Index i = 0; i < n; ++i) basis(i * n + i, column++) = 1.0;
  for (Index i = 0; i < n; ++i) {
    for (Index j = i + 1; j < n; ++j) {
      basis(i * n + j, column) = basis(j * n + i, column) = 1.0 / std::sqrt(2.0);
      ++column;
    }
  }
  return basis;
}

}  // namespace gplvm::spd
