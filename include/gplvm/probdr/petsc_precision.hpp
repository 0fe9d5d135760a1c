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
#include "gplvm/petsc/column_product.hpp"

namespace gplvm {

class PetscMatrixPrecision : public PrecisionOperator {
 public:
  // Takes ownership of `matrix` (square, symmetric positive semi-definite, rows split as X's rows
  // will be). Collective (reads the diagonal).
  explicit PetscMatrixPrecision(MatHandle matrix) : product_(std::move(matrix), "precision") {}
  Index num_rows() const override { return product_.num_rows(); }
  Index local_rows() const override { return product_.local_rows(); }
  Matrix apply(const ConstMatrixRef& local_latents) const override { return product_.apply(local_latents); }
  double local_trace() const override { return product_.local_trace(); }
  Mat matrix() const noexcept { return product_.matrix(); }

 private:
  ColumnProduct product_;
};

}  // namespace gplvm
