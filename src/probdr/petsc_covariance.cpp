#include "gplvm/probdr/petsc_covariance.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"

namespace gplvm {

PetscMatrixCovariance::PetscMatrixCovariance(const Communicator& comm, MatHandle matrix,
                                             Vector local_deflation)
    : comm_(comm), matrix_(std::move(matrix)), deflation_(std::move(local_deflation)) {
  require_petsc_session("a PETSc-backed covariance operator");
  PetscInt rows = 0, columns = 0, local = 0;
  check_petsc(MatGetSize(matrix_.get(), &rows, &columns), "MatGetSize");
  require(rows == columns, "a covariance matrix must be square", {"", "covariance", std::to_string(columns)});
  check_petsc(MatGetLocalSize(matrix_.get(), &local, nullptr), "MatGetLocalSize");
  num_rows_ = rows;
  local_rows_ = local;
  // A rank without rows holds an empty v either way; whether there is one is agreed over the ranks.
  deflated_ = comm_.allreduce_max(static_cast<std::int64_t>(deflation_.size())) > 0;
  if (deflated_ && deflation_.size() == 0) deflation_ = Vector::Zero(local_rows_);
  require(deflation_.size() == 0 || deflation_.size() == local_rows_,
          "the deflation vector must have the matrix's local rows",
          {"", "covariance", std::to_string(deflation_.size())});
  check_petsc(MatCreateVecs(matrix_.get(), in_.out(), out_.out()), "MatCreateVecs");
  check_petsc(MatGetDiagonal(matrix_.get(), out_.get()), "MatGetDiagonal");
  local_trace_ = copy_out(out_.get()).sum() - deflation_.squaredNorm();
}

Matrix PetscMatrixCovariance::apply(const ConstMatrixRef& local_latents) const {
  require(local_latents.rows() == local_rows_, "the latents' local rows must be the covariance matrix's",
          {"", "latents", std::to_string(local_latents.rows())});
  Matrix product(local_rows_, local_latents.cols());
  for (Index j = 0; j < local_latents.cols(); ++j) {
    copy_into(in_.get(), local_latents.col(j));
    check_petsc(MatMult(matrix_.get(), in_.get(), out_.get()), "MatMult");
    product.col(j) = copy_out(out_.get());
  }
  if (!deflated_) return product;
  // v^T X over all rows, then this rank's rows of v (v^T X).
  Vector projection = local_latents.transpose() * deflation_;
  comm_.allreduce_sum(projection.data(), projection.size());
  product.noalias() -= deflation_ * projection.transpose();
  return product;
}

}  // namespace gplvm
