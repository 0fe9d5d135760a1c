#include "gplvm/probdr/petsc_precision.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"

namespace gplvm {

PetscMatrixPrecision::PetscMatrixPrecision(MatHandle matrix) : matrix_(std::move(matrix)) {
  require_petsc_session("a PETSc-backed precision operator");
  PetscInt rows = 0, columns = 0, local = 0;
  check_petsc(MatGetSize(matrix_.get(), &rows, &columns), "MatGetSize");
  require(rows == columns, "a precision matrix must be square", {"", "precision", std::to_string(columns)});
  check_petsc(MatGetLocalSize(matrix_.get(), &local, nullptr), "MatGetLocalSize");
  num_rows_ = rows;
  local_rows_ = local;
  check_petsc(MatCreateVecs(matrix_.get(), in_.out(), out_.out()), "MatCreateVecs");
  check_petsc(MatGetDiagonal(matrix_.get(), out_.get()), "MatGetDiagonal");
  local_trace_ = copy_out(out_.get()).sum();
}

Matrix PetscMatrixPrecision::apply(const ConstMatrixRef& local_latents) const {
  require(local_latents.rows() == local_rows_, "the latents' local rows must be the precision matrix's",
          {"", "latents", std::to_string(local_latents.rows())});
  Matrix product(local_rows_, local_latents.cols());
  for (Index j = 0; j < local_latents.cols(); ++j) {
    copy_into(in_.get(), local_latents.col(j));
    check_petsc(MatMult(matrix_.get(), in_.get(), out_.get()), "MatMult");
    product.col(j) = copy_out(out_.get());
  }
  return product;
}

}  // namespace gplvm
