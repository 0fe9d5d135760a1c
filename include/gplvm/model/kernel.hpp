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
#include <memory>
#include <string>

#include "gplvm/core/types.hpp"

namespace gplvm {

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual std::unique_ptr<Kernel> clone() const = 0;

  virtual Index input_dim() const = 0;
  virtual Index num_hyperparameters() const = 0;
  virtual std::string hyperparameter_name(Index i) const = 0;
  virtual Vector hyperparameters() const = 0;
  virtual void set_hyperparameters(const ConstVectorRef& values) = 0;

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
};

}  // namespace gplvm
