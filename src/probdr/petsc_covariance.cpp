#include "gplvm/probdr/petsc_covariance.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"

namespace gplvm {

PetscMatrixCovariance::PetscMatrixCovariance(const Communicator& comm, MatHandle matrix,
                                             Vector local_deflation, std::optional<double> spectrum_top)
    : comm_(comm),
      product_(std::move(matrix), "covariance"),
      deflation_(std::move(local_deflation)),
      spectrum_top_(spectrum_top) {
  // A rank without rows holds an empty v either way; whether there is one is agreed over the ranks.
  deflated_ = comm_.allreduce_max(static_cast<std::int64_t>(deflation_.size())) > 0;
  if (deflated_ && deflation_.size() == 0) deflation_ = Vector::Zero(product_.local_rows());
  require(deflation_.size() == 0 || deflation_.size() == product_.local_rows(),
          "the deflation vector must have the matrix's local rows",
          {"", "covariance", std::to_string(deflation_.size())});
}

Matrix PetscMatrixCovariance::apply(const ConstMatrixRef& local_latents) const {
  Matrix product = product_.apply(local_latents);
  if (!deflated_) return product;
  // v^T X over all rows, then this rank's rows of v (v^T X).
  Vector projection = local_latents.transpose() * deflation_;
  comm_.allreduce_sum(projection.data(), projection.size());
  product.noalias() -= deflation_ * projection.transpose();
  return product;
}

}  // namespace gplvm
