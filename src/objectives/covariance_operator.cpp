#include "gplvm/objectives/covariance_operator.hpp"

#include <string>
#include <vector>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

void require_local_rows(const ConstMatrixRef& latents, Index rows) {
  require(latents.rows() == rows, "latents and S_hat have different local row counts",
          {"", "latents", std::to_string(latents.rows()) + " vs " + std::to_string(rows)});
}

}  // namespace

LowRankCovariance::LowRankCovariance(const Communicator& comm, RowMatrix local_factor)
    : comm_(comm), factor_(std::move(local_factor)) {
  num_rows_ = static_cast<Index>(comm_.allreduce_sum(static_cast<std::int64_t>(factor_.rows())));
}

Matrix LowRankCovariance::apply(const ConstMatrixRef& local_latents) const {
  require_local_rows(local_latents, factor_.rows());
  // F^T X (d x l) is a sum over rows: one allreduce, then every rank forms its own rows of F (F^T X).
  Matrix projection = factor_.transpose() * local_latents;
  comm_.allreduce_sum(projection);
  return factor_ * projection;
}

double LowRankCovariance::local_trace() const {
  return factor_.squaredNorm();  // the diagonal of F F^T holds the squared row norms of F
}

DenseRowCovariance::DenseRowCovariance(const Communicator& comm, Matrix local_rows)
    : rows_(comm, std::move(local_rows), "S_hat", "covariance") {}

}  // namespace gplvm
