#include "gplvm/model/eq_ard_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/core/threads.hpp"
#include "kernel_checks.hpp"

namespace gplvm {
namespace {

using kernel_checks::require_input_dim;
using kernel_checks::require_positive_finite;

}  // namespace

EqArdKernel::EqArdKernel(double variance, const Vector& lengthscales)
    : variance_(variance), lengthscales_(lengthscales) {
  require(lengthscales.size() >= 1, "EQ-ARD kernel needs at least one lengthscale (Q >= 1)",
          {"", "latent_dim", std::to_string(lengthscales.size())});
  require_positive_finite(variance, "kernel.variance");
  for (Index q = 0; q < lengthscales.size(); ++q)
    require_positive_finite(lengthscales[q], "kernel.lengthscale");
}

EqArdKernel::EqArdKernel(double variance, double lengthscale, Index input_dim)
    : EqArdKernel(variance, Vector::Constant(std::max<Index>(input_dim, 0), lengthscale)) {}

std::unique_ptr<Kernel> EqArdKernel::clone() const {
  return std::make_unique<EqArdKernel>(*this);
}

std::string EqArdKernel::hyperparameter_name(Index i) const {
  return i == 0 ? "log_variance" : "log_lengthscale_" + std::to_string(i - 1);
}

std::vector<NamedHyperparameter> EqArdKernel::named_hyperparameters() const {
  return {{"variance", Vector::Constant(1, variance_)}, {"lengthscales", lengthscales_}};
}

Vector EqArdKernel::hyperparameters() const {
  Vector h(num_hyperparameters());
  h[0] = std::log(variance_);
  h.tail(lengthscales_.size()) = lengthscales_.array().log();
  return h;
}

void EqArdKernel::set_hyperparameters(const ConstVectorRef& values) {
  require(values.size() == num_hyperparameters(), "wrong number of EQ-ARD hyperparameters",
          {"", "kernel", std::to_string(values.size())});
  require(values.allFinite(), "EQ-ARD hyperparameters must be finite", {"", "kernel", "non-finite"});
  variance_ = std::exp(values[0]);
  lengthscales_ = values.tail(lengthscales_.size()).array().exp();
}

namespace {

// Scaled squared distances sum_q ((x1_iq - x2_jq) / l_q)^2 of a block of kBlockRows rows of X1 and
// kBlockColumns rows of X2, the partial sums in registers across q. Each entry's sum over q takes
// the same operations in the same order as the one-column form below (and as this kernel's form
// before the blocking, which streamed all of X1 once per column).
constexpr Index kBlockRows = 32;
constexpr Index kBlockColumns = 4;

void distance_block(const ConstMatrixRef& X1, Index i, const ConstMatrixRef& X2, Index j,
                    const Eigen::ArrayXd& inv_l, Matrix& K) {
  double acc[kBlockColumns][kBlockRows] = {};
  for (Index q = 0; q < X1.cols(); ++q) {
    const double* x1 = X1.col(q).data() + i;
    for (Index c = 0; c < kBlockColumns; ++c) {
      const double x2 = X2(j + c, q);
      for (Index r = 0; r < kBlockRows; ++r) {
        const double d = (x1[r] - x2) * inv_l[q];
        acc[c][r] += d * d;
      }
    }
  }
  for (Index c = 0; c < kBlockColumns; ++c) std::copy(acc[c], acc[c] + kBlockRows, K.col(j + c).data() + i);
}

// Rows [i, rows) of column j, the same sums.
void distance_column(const ConstMatrixRef& X1, Index i, const ConstMatrixRef& X2, Index j,
                     const Eigen::ArrayXd& inv_l, Matrix& K) {
  const Index length = X1.rows() - i;
  auto tail = K.col(j).segment(i, length).array();
  tail.setZero();
  for (Index q = 0; q < X1.cols(); ++q)
    tail += ((X1.col(q).segment(i, length).array() - X2(j, q)) * inv_l[q]).square();
}

}  // namespace

void EqArdKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  require_input_dim(X1, input_dim(), "X1");
  require_input_dim(X2, input_dim(), "X2");
  // Direct differences rather than |x|^2 + |x'|^2 - 2 x.x': no cancellation.
  const Index rows = X1.rows();
  K.resize(rows, X2.rows());
  advise_huge_pages(K.data(), static_cast<std::size_t>(K.size()) * sizeof(double));
  const Eigen::ArrayXd inv_l = lengthscales_.array().inverse();
  // Columns are independent: the rank's threads take a block of them each (whole register blocks).
  constexpr Index kColumnsPerShareUnit = 16;
  static_assert(kColumnsPerShareUnit % kBlockColumns == 0);
  const Index blocked_rows = rows / kBlockRows * kBlockRows;
  for_each_thread_share(X2.rows(), kColumnsPerShareUnit, [&](Index j0, Index j1) {
    Index j = j0;
    for (; j + kBlockColumns <= j1; j += kBlockColumns) {
      for (Index i = 0; i < blocked_rows; i += kBlockRows) distance_block(X1, i, X2, j, inv_l, K);
      for (Index c = 0; c < kBlockColumns; ++c) distance_column(X1, blocked_rows, X2, j + c, inv_l, K);
    }
    for (; j < j1; ++j) distance_column(X1, 0, X2, j, inv_l, K);
    for (j = j0; j < j1; ++j) {
      auto col = K.col(j).array();
      col = variance_ * (-0.5 * col).exp();
    }
  });
}

void EqArdKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  require_input_dim(X, input_dim(), "X");
  k.setConstant(X.rows(), variance_);
}

void EqArdKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                                 const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const {
  // With P = G o K:  dk/dlog(theta) = k;  dk/dlog(l_q) = k d_q^2 / l_q^2;
  // dk/dx1_q = -k d_q / l_q^2 = -dk/dx2_q, where d_q = x1_q - x2_q.
  // Two passes so that the rank's threads can share the work without summing across threads:
  // column sums (for dX2 and the hyperparameters) by columns, then dX1 by rows. Every element is
  // accumulated in the same order, with the same operations, as a single column-by-column pass.
  const Eigen::ArrayXd inv_l2 = lengthscales_.array().square().inverse();
  const Index rows = X1.rows(), columns = X2.rows(), q_dim = X1.cols();
  constexpr Index kShareUnit = 16;
  // Per column j: sum_i p_ij, then for each q sum_i p_ij d_ijq and sum_i p_ij d_ijq^2.
  Eigen::ArrayXXd sums(columns, 1 + 2 * q_dim);
  for_each_thread_share(columns, kShareUnit, [&](Index j0, Index j1) {
    Eigen::ArrayXd p(rows), pd(rows), diff(rows);
    for (Index j = j0; j < j1; ++j) {
      p = G.col(j).array() * K.col(j).array();
      sums(j, 0) = p.sum();
      for (Index q = 0; q < q_dim; ++q) {
        diff = X1.col(q).array() - X2(j, q);
        pd = p * diff;
        sums(j, 1 + q) = pd.sum();
        sums(j, 1 + q_dim + q) = (pd * diff).sum();
      }
    }
  });
  for (Index j = 0; j < columns; ++j) {
    d_hyper[0] += sums(j, 0);
    for (Index q = 0; q < q_dim; ++q) {
      if (dX2) (*dX2)(j, q) += inv_l2[q] * sums(j, 1 + q);
      d_hyper[1 + q] += inv_l2[q] * sums(j, 1 + q_dim + q);
    }
  }
  if (!dX1) return;
  for_each_thread_share(rows, kShareUnit, [&](Index i0, Index i1) {
    const Index n = i1 - i0;
    Eigen::ArrayXd p(n);
    for (Index j = 0; j < columns; ++j) {
      p = G.col(j).segment(i0, n).array() * K.col(j).segment(i0, n).array();
      for (Index q = 0; q < q_dim; ++q)
        dX1->col(q).segment(i0, n).array() -= inv_l2[q] * (p * (X1.col(q).segment(i0, n).array() - X2(j, q)));
    }
  });
}

void EqArdKernel::diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                                    VectorRef d_hyper) const {
  d_hyper[0] += variance_ * g.sum();  // k(x, x) = theta: no latent dependence
}

std::vector<Matrix> EqArdKernel::input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const {
  require_input_dim(x, input_dim(), "x");
  require_input_dim(Z, input_dim(), "Z");
  const Vector inv_l2 = lengthscales_.array().square().inverse();
  Matrix K;
  cross(x, Z, K);
  std::vector<Matrix> hessians;
  hessians.reserve(static_cast<std::size_t>(Z.rows()));
  for (Index m = 0; m < Z.rows(); ++m) {
    const Vector s = (x.row(0) - Z.row(m)).transpose().cwiseProduct(inv_l2);
    Matrix H = s * s.transpose();
    H.diagonal() -= inv_l2;
    hessians.push_back(K(0, m) * H);
  }
  return hessians;
}

Matrix EqArdKernel::gradient_covariance(const ConstMatrixRef& x) const {
  // k = theta exp(-|d / l|^2 / 2), d = x - x': d^2 k / dx dx'^T = -d^2 k / dd dd^T = theta diag(1 / l^2) at d
  // = 0.
  require_input_dim(x, input_dim(), "x");
  return Matrix(variance_ * lengthscales_.array().square().inverse().matrix().asDiagonal());
}

}  // namespace gplvm
