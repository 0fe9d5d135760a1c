#pragma once
// A test-only kernel whose Psi-statistics are brute force: the EQ-ARD kernel with
// E[f(x)], x ~ N(mu, diag s), replaced by a fixed tensor-product Gauss-Hermite rule
// (x_k = mu + sqrt(s) xi_k), so that the statistics are smooth, exactly differentiable functions
// of mu, s, Z and the hyperparameters, and their adjoints go through cross_backward alone. It is an
// independent reference for the bounds' Bayesian path, not a fast implementation.
#include <Eigen/Eigenvalues>
#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include "gplvm/model/eq_ard_kernel.hpp"

namespace gplvm::testing {

class QuadraturePsiKernel final : public Kernel {
 public:
  QuadraturePsiKernel(const EqArdKernel& base, int nodes_per_dim)
      : base_(base), nodes_per_dim_(nodes_per_dim) {
    build_rule();
  }

  std::unique_ptr<Kernel> clone() const override { return std::make_unique<QuadraturePsiKernel>(*this); }
  std::string name() const override { return "eq_ard_quadrature"; }
  bool is_stationary() const override { return true; }
  Index input_dim() const override { return base_.input_dim(); }
  Index num_hyperparameters() const override { return base_.num_hyperparameters(); }
  std::string hyperparameter_name(Index i) const override { return base_.hyperparameter_name(i); }
  Vector hyperparameters() const override { return base_.hyperparameters(); }
  void set_hyperparameters(const ConstVectorRef& v) override { base_.set_hyperparameters(v); }
  std::vector<NamedHyperparameter> named_hyperparameters() const override {
    return base_.named_hyperparameters();
  }
  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override {
    base_.cross(X1, X2, K);
  }
  void diagonal(const ConstMatrixRef& X, Vector& k) const override { base_.diagonal(X, k); }
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override {
    base_.cross_backward(X1, X2, K, G, dX1, dX2, d_hyper);
  }
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override {
    base_.diagonal_backward(X, g, dX, d_hyper);
  }

  void psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                      PsiStatistics& out) const override {
    out.psi0 = 0.0;
    out.psi1 = Matrix::Zero(mean.rows(), Z.rows());
    out.psi2 = Matrix::Zero(Z.rows(), Z.rows());
    Matrix K;
    Vector diag;
    for (Index k = 0; k < nodes_.rows(); ++k) {
      const Matrix x = sample(mean, variance, k);
      base_.cross(x, Z, K);
      base_.diagonal(x, diag);
      out.psi0 += weights_(k) * diag.sum();
      out.psi1 += weights_(k) * K;
      out.psi2.noalias() += weights_(k) * K.transpose() * K;
    }
  }

  void psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                    const PsiStatistics&, double d_psi0, const ConstMatrixRef& d_psi1,
                    const ConstMatrixRef& d_psi2, Matrix* d_mean, Matrix* d_variance, Matrix* dZ,
                    VectorRef d_hyper) const override {
    Matrix K;
    for (Index k = 0; k < nodes_.rows(); ++k) {
      const Matrix x = sample(mean, variance, k);
      base_.cross(x, Z, K);
      const Matrix G = weights_(k) * (d_psi1 + 2.0 * K * d_psi2);
      Matrix dx = Matrix::Zero(x.rows(), x.cols());
      base_.cross_backward(x, Z, K, G, &dx, dZ, d_hyper);
      base_.diagonal_backward(x, Vector::Constant(x.rows(), weights_(k) * d_psi0), &dx, d_hyper);
      if (d_mean) *d_mean += dx;
      if (d_variance)
        for (Index q = 0; q < x.cols(); ++q)
          d_variance->col(q).array() +=
              dx.col(q).array() * nodes_(k, q) / (2.0 * variance.col(q).array().sqrt());
    }
  }

 private:
  Matrix sample(const ConstMatrixRef& mean, const ConstMatrixRef& variance, Index k) const {
    Matrix x = mean;
    for (Index q = 0; q < x.cols(); ++q) x.col(q).array() += variance.col(q).array().sqrt() * nodes_(k, q);
    return x;
  }

  // Golub-Welsch for the probabilists' Hermite rule (standard normal weight), then its tensor
  // product over the Q input dimensions.
  void build_rule() {
    const int n = nodes_per_dim_;
    Matrix jacobi = Matrix::Zero(n, n);
    for (int i = 1; i < n; ++i) jacobi(i, i - 1) = jacobi(i - 1, i) = std::sqrt(static_cast<double>(i));
    const Eigen::SelfAdjointEigenSolver<Matrix> eig(jacobi);
    const Vector points = eig.eigenvalues();
    const Vector w = eig.eigenvectors().row(0).transpose().array().square();
    const Index q = base_.input_dim();
    Index total = 1;
    for (Index d = 0; d < q; ++d) total *= n;
    nodes_.resize(total, q);
    weights_.resize(total);
    for (Index k = 0; k < total; ++k) {
      Index rest = k;
      weights_(k) = 1.0;
      for (Index d = 0; d < q; ++d, rest /= n) {
        nodes_(k, d) = points(rest % n);
        weights_(k) *= w(rest % n);
      }
    }
  }

  EqArdKernel base_;
  int nodes_per_dim_;
  Matrix nodes_;    // tensor-grid nodes, one row per node
  Vector weights_;  // their weights, summing to 1
};

}  // namespace gplvm::testing
