#pragma once
// A sparse PrecisionOperator (objectives/precision_operator.hpp) backed by a distributed PETSc
// matrix, e.g. a graph Laplacian (graph/laplacian.hpp): the Wishart precision objective then
// evaluates on Gamma_hat = L (+ gamma I, the objective's) without ever forming it densely.
//
//   apply        Gamma_hat X column by column: one MatMult per latent column (a halo exchange of
//                the entries its off-rank columns touch, then the local sparse product), l in all.
//   local_trace  the sum of this rank's diagonal entries (MatGetDiagonal), no communication.
#include "gplvm/objectives/precision_operator.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/petsc_matrix.hpp"

namespace gplvm {

class PetscMatrixPrecision : public PrecisionOperator {
 public:
  // Takes ownership of `matrix` (square, symmetric positive semi-definite, rows split as X's rows
  // will be). Collective (reads the diagonal).
  explicit PetscMatrixPrecision(MatHandle matrix);

  Index num_rows() const override { return num_rows_; }
  Index local_rows() const override { return local_rows_; }
  Matrix apply(const ConstMatrixRef& local_latents) const override;
  double local_trace() const override { return local_trace_; }
  Mat matrix() const noexcept { return matrix_.get(); }

 private:
  MatHandle matrix_;
  VecHandle in_, out_;  // work vectors with the matrix's layout, reused by every apply
  Index num_rows_ = 0;
  Index local_rows_ = 0;
  double local_trace_ = 0.0;
};

}  // namespace gplvm
