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

void EqArdKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  require_input_dim(X1, input_dim(), "X1");
  require_input_dim(X2, input_dim(), "X2");
  // Direct differences rather than |x|^2 + |x'|^2 - 2 x.x': no cancellation.
  const Index rows = X1.rows(), q_dim = X1.cols();
  K.resize(rows, X2.rows());
  advise_huge_pages(K.data(), static_cast<std::size_t>(K.size()) * sizeof(double));
  const Eigen::ArrayXd inv_l = lengthscales_.array().inverse();
  // Columns are independent: the rank's threads take a block of them each. Within a share, a tile
  // of X1's rows stays in cache while every column passes (all of X1 streamed once per column is
  // memory-bound when X1 is large, as in kernel PCA of data); each entry is still the sum over q in
  // order, so the tiling does not change a bit.
  constexpr Index kColumnsPerShareUnit = 16;
  constexpr Index kRowsPerTile = 256;
  for_each_thread_share(X2.rows(), kColumnsPerShareUnit, [&](Index j0, Index j1) {
    for (Index i0 = 0; i0 < rows; i0 += kRowsPerTile) {
      const Index length = std::min(kRowsPerTile, rows - i0);
      for (Index j = j0; j < j1; ++j) {
        auto tile = K.col(j).segment(i0, length).array();
        tile = ((X1.col(0).segment(i0, length).array() - X2(j, 0)) * inv_l[0]).square();
        for (Index q = 1; q < q_dim; ++q)
          tile += ((X1.col(q).segment(i0, length).array() - X2(j, q)) * inv_l[q]).square();
      }
    }
    for (Index j = j0; j < j1; ++j) {
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

Matrix EqArdKernel::gradient_covariance(const ConstMatrixRef& x) const {
  // k = theta exp(-|d / l|^2 / 2), d = x - x': d^2 k / dx dx'^T = -d^2 k / dd dd^T = theta diag(1 / l^2) at d
  // = 0.
  require_input_dim(x, input_dim(), "x");
  return Matrix(variance_ * lengthscales_.array().square().inverse().matrix().asDiagonal());
}

}  // namespace gplvm
