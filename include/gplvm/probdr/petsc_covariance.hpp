#pragma once
// A sparse CovarianceOperator (objectives/covariance_operator.hpp) backed by a distributed PETSc
// matrix A, less an optional known rank-one part: S_hat = A - v v^T. The twin of petsc_precision.hpp.
// Diffusion maps use it with A = M^t (the symmetric diffusion matrix, to the power t) and v = the
// unit vector of its trivial eigenvalue 1, which carries no embedding and is removed exactly.
//
//   apply        S_hat X column by column: one MatMult per latent column (a halo exchange, then the
//                local sparse product), less v (v^T X), one allreduce of l doubles.
//   local_trace  this rank's diagonal entries of A (MatGetDiagonal) less its sum of v_i^2.
#include <optional>

#include "gplvm/objectives/covariance_operator.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/column_product.hpp"

namespace gplvm {

class PetscMatrixCovariance : public CovarianceOperator {
 public:
  // Takes ownership of `matrix` (square and symmetric, rows split as X's rows will be).
  // `local_deflation` is this rank's entries of v, or empty for S_hat = A. Collective (reads the
  // diagonal).
  // `spectrum_top`, when known, is A's largest eigenvalue (attained by v where v is given: diffusion
  // maps' 1); the shift-and-invert route places its shift just above it.
  PetscMatrixCovariance(const Communicator& comm, MatHandle matrix, Vector local_deflation = {},
                        std::optional<double> spectrum_top = std::nullopt);
  Index num_rows() const override { return product_.num_rows(); }
  Index local_rows() const override { return product_.local_rows(); }
  Matrix apply(const ConstMatrixRef& local_latents) const override;
  double local_trace() const override { return product_.local_trace() - deflation_.squaredNorm(); }
  Mat matrix() const noexcept { return product_.matrix(); }
  // This rank's entries of v (empty without one), and A's largest eigenvalue where known.
  const Vector& local_deflation() const noexcept { return deflation_; }
  bool deflated() const noexcept { return deflated_; }
  std::optional<double> spectrum_top() const noexcept { return spectrum_top_; }

 private:
  const Communicator& comm_;
  ColumnProduct product_;
  Vector deflation_;       // this rank's entries of v
  bool deflated_ = false;  // whether any rank has v: the same on every rank, so all join its allreduce
  std::optional<double> spectrum_top_;
};

}  // namespace gplvm
