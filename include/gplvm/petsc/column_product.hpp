#pragma once
// A square distributed PETSc matrix applied to a block of columns distributed by its rows: what the
// PETSc-backed operators of the Wishart objectives (probdr/petsc_precision.hpp,
// probdr/petsc_covariance.hpp) share. Each column is one MatMult (a halo exchange of the entries the
// matrix's off-rank columns touch, then the local sparse product); the diagonal's local sum is read
// once.
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/petsc/petsc_matrix.hpp"
#include "gplvm/petsc/petsc_vector.hpp"

namespace gplvm {

class ColumnProduct {
 public:
  // Takes ownership of `matrix`; InputError (key `key`) unless it is square. Collective (reads the
  // diagonal). Needs a PetscSession.
  ColumnProduct(MatHandle matrix, const std::string& key);

  Index num_rows() const noexcept { return num_rows_; }
  Index local_rows() const noexcept { return local_rows_; }
  double local_trace() const noexcept { return local_trace_; }
  Mat matrix() const noexcept { return matrix_.get(); }
  // Collective: this rank's rows of A X, from this rank's rows of X.
  Matrix apply(const ConstMatrixRef& local_columns) const;

 private:
  MatHandle matrix_;
  std::string key_;
  VecHandle in_, out_;  // work vectors with the matrix's layout, reused by every apply
  Index num_rows_ = 0;
  Index local_rows_ = 0;
  double local_trace_ = 0.0;
};

}  // namespace gplvm
