#include "gplvm/petsc/column_product.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"
#include "gplvm/petsc/petsc_session.hpp"

namespace gplvm {

ColumnProduct::ColumnProduct(MatHandle matrix, const std::string& key)
    : matrix_(std::move(matrix)), key_(key) {
  require_petsc_session(("a PETSc-backed " + key_ + " operator").c_str());
  PetscInt rows = 0, columns = 0, local = 0;
  check_petsc(MatGetSize(matrix_.get(), &rows, &columns), "MatGetSize");
  require(rows == columns, "a " + key_ + " matrix must be square", {"", key_, std::to_string(columns)});
  check_petsc(MatGetLocalSize(matrix_.get(), &local, nullptr), "MatGetLocalSize");
  num_rows_ = rows;
  local_rows_ = local;
  check_petsc(MatCreateVecs(matrix_.get(), in_.out(), out_.out()), "MatCreateVecs");
  check_petsc(MatGetDiagonal(matrix_.get(), out_.get()), "MatGetDiagonal");
  local_trace_ = copy_out(out_.get()).sum();
}

Matrix ColumnProduct::apply(const ConstMatrixRef& local_columns) const {
  require(local_columns.rows() == local_rows_, "the latents' local rows must be the " + key_ + " matrix's",
          {"", "latents", std::to_string(local_columns.rows())});
  Matrix product(local_rows_, local_columns.cols());
  for (Index j = 0; j < local_columns.cols(); ++j) {
    copy_into(in_.get(), local_columns.col(j));
    check_petsc(MatMult(matrix_.get(), in_.get(), out_.get()), "MatMult");
    product.col(j) = copy_out(out_.get());
  }
  return product;
}

}  // namespace gplvm
