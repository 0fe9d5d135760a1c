#pragma once
// The covariance-function interface every objective is written against.
//
// Objectives never differentiate a kernel themselves: they form the adjoint G = dL/dK of each
// kernel block they use and hand it back to the kernel, which turns it into gradients for its
// inputs and hyperparameters. So a new kernel (Matern, periodic, linear, hyperboloid) is one new
// class and no objective changes.
//
// Hyperparameters are exposed in the kernel's unconstrained parametrisation (e.g. log variance,
// log lengthscales): those are the optimiser's coordinates and the gradients are taken w.r.t. them.
// For people and files they are also given in natural units, grouped under names
// (named_hyperparameters: "variance", "lengthscales", ...), which the run file stores as
// /params/kernel/<name>; nothing outside the kernel knows what a kernel's parameters are.
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/model/psi_quadrature.hpp"

namespace gplvm {

// A group of hyperparameters in natural (constrained) units, e.g. {"lengthscales", [l_1..l_Q]}.
struct NamedHyperparameter {
  std::string name;
  Vector values;
};

// Expectations of kernel values under independent Gaussian inputs x_n ~ N(mu_n, diag(s_n)), the
// statistics of the variational (Bayesian) GPLVM bound, summed over the n rows given:
//   psi0 = sum_n E[k(x_n, x_n)]                       (scalar)
//   psi1(n, m) = E[k(x_n, z_m)]                       (N x M)
//   psi2 = sum_n E[k(Z, x_n) k(x_n, Z)]               (M x M, symmetric)
struct PsiStatistics {
  double psi0 = 0.0;
  Matrix psi1;
  Matrix psi2;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual std::unique_ptr<Kernel> clone() const = 0;

  // The registry expression that builds this kernel (e.g. "eq_ard", "eq_ard+linear").
  virtual std::string name() const = 0;
  // k(x, x') depends only on x - x': a common translation of all latents leaves every kernel
  // value unchanged (models may then pin the latents' mean).
  virtual bool is_stationary() const = 0;

  virtual Index input_dim() const = 0;
  virtual Index num_hyperparameters() const = 0;
  virtual std::string hyperparameter_name(Index i) const = 0;
  virtual Vector hyperparameters() const = 0;
  virtual void set_hyperparameters(const ConstVectorRef& values) = 0;
  // The hyperparameters in natural units, grouped and named (see the file comment).
  virtual std::vector<NamedHyperparameter> named_hyperparameters() const = 0;

  // K(i, j) = k(X1.row(i), X2.row(j)).
  virtual void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const = 0;
  // k(x_i, x_i) for each row of X.
  virtual void diagonal(const ConstMatrixRef& X, Vector& k) const = 0;

  // Adjoint of cross(): given G = dL/dK (same shape as K, which is the value cross() returned),
  // ADDS dL/dX1 to *dX1 and dL/dX2 to *dX2 (either may be null, both may be the same matrix when
  // X1 and X2 are the same points) and dL/dhyperparameters to d_hyper.
  virtual void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                              const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const = 0;
  // Adjoint of diagonal(): given g = dL/dk_ii, ADDS dL/dX to *dX (may be null) and dL/dhyper.
  virtual void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                                 VectorRef d_hyper) const = 0;

  // Input derivatives, for the Jacobian of a GP's predictive mean and the covariance of that
  // Jacobian (models/gp_posterior.hpp, docs/math/kernels.md, "Input derivatives").
  // Row m of the result is the gradient d k(x, z_m) / dx at the point x (1 x Q), for the M rows of Z
  // (M x Q). Through cross_backward, so every kernel has it.
  Matrix input_gradients(const ConstMatrixRef& x, const ConstMatrixRef& Z) const;
  // The mixed second derivative d^2 k(x, x') / dx dx'^T at x' = x (Q x Q): the covariance of the
  // gradient of a GP with this kernel at x. Only kernels whose GP is mean-square differentiable have
  // one; the default throws InputError naming model.kernel, so a kernel that declares none (or a cusp
  // at x = x', as the hyperboloid's Laplacian kernel) is refused, never approximated.
  virtual Matrix gradient_covariance(const ConstMatrixRef& x) const;
  // The first derivatives of k(x, x') in each argument at x' = x (1 x Q each), which the product rule
  // of a product kernel's gradient_covariance needs. Zero for a stationary kernel.
  void diagonal_input_gradients(const ConstMatrixRef& x, Matrix& d_first, Matrix& d_second) const;
  // Second input derivatives, which the derivatives of the mean Jacobian need (the Christoffel
  // symbols of the expected metric, geometry/expected_metric.hpp): entry m is the Hessian
  // d^2 k(x, z_m) / dx dx^T (Q x Q) at the point x, for the M rows of Z. The default throws
  // InputError naming model.kernel, as gradient_covariance does.
  virtual std::vector<Matrix> input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const;
  // The derivatives of gradient_covariance along each input coordinate (Q matrices; entry j is
  // dH(x) / dx_j). A stationary kernel's H is constant, so the default gives zeros for one and
  // throws InputError naming model.kernel for any other kernel that does not override it.
  virtual std::vector<Matrix> gradient_covariance_derivatives(const ConstMatrixRef& x) const;

  // Psi-statistics of inputs with means `mean` and diagonal variances `variance` (both N x Q,
  // variances >= 0) against inducing inputs Z (M x Q). Kernels with closed forms override these;
  // the default integrates numerically with the nodes of psi_quadrature() (psi_quadrature.hpp:
  // Gauss-Hermite for small Q, fixed-node Monte Carlo above), through cross(), diagonal() and
  // their adjoints, so every kernel has them.
  virtual void psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                              const ConstMatrixRef& Z, PsiStatistics& out) const;
  // Adjoint of psi_statistics(): given dL/dpsi0, dL/dpsi1 (N x M) and dL/dpsi2 (M x M, symmetric),
  // ADDS dL/dmean and dL/dvariance (N x Q) to *d_mean / *d_variance, dL/dZ to *dZ (each may be
  // null) and dL/dhyperparameters to d_hyper. `value` is what psi_statistics() returned. The
  // default needs every variance > 0 when d_variance is asked for (its estimator divides by sqrt(s)).
  virtual void psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                            const ConstMatrixRef& Z, const PsiStatistics& value, double d_psi0,
                            const ConstMatrixRef& d_psi1, const ConstMatrixRef& d_psi2, Matrix* d_mean,
                            Matrix* d_variance, Matrix* dZ, VectorRef d_hyper) const;

  // The nodes of the default Psi-statistics (kernels with closed forms ignore them).
  const PsiQuadrature& psi_quadrature() const noexcept { return psi_quadrature_; }
  void set_psi_quadrature(const PsiQuadrature& settings) { psi_quadrature_ = settings; }

 private:
  PsiQuadrature psi_quadrature_;
};

}  // namespace gplvm
