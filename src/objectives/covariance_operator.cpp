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
  // F^T X (d x l) summed over the ranks' rows, then this rank's rows of F (F^T X).
  Matrix projected = factor_.transpose() * local_latents;
  comm_.allreduce_sum(projected);
  return factor_ * projected;
}

double LowRankCovariance::local_trace() const {
  return factor_.squaredNorm();
}

DenseRowCovariance::DenseRowCovariance(const Communicator& comm, Matrix local_rows)
    : comm_(comm), local_(std::move(local_rows)) {
  const std::vector<std::int64_t> counts = comm_.allgather(static_cast<std::int64_t>(local_.rows()));
  std::int64_t total = 0;
  for (int r = 0; r < comm_.size(); ++r) {
    if (r == comm_.rank()) first_row_ = total;
    total += counts[r];
  }
  // The column counts may differ by rank: every rank sees the smallest and largest, so all agree.
  const auto columns = static_cast<std::int64_t>(local_.cols());
  const bool square = comm_.allreduce_min(columns) == total && comm_.allreduce_max(columns) == total;
  const std::string problem =
      square ? ""
             : "the rows of S_hat (" + std::to_string(total) + " over all ranks) do not make a square matrix";
  comm_.agree_on_problem(problem, "covariance");
}

Matrix DenseRowCovariance::apply(const ConstMatrixRef& local_latents) const {
  require_local_rows(local_latents, local_.rows());
  const Matrix all_latents = comm_.allgather_rows(local_latents);
  return local_ * all_latents;
}

double DenseRowCovariance::local_trace() const {
  return local_.diagonal(first_row_).sum();
}

}  // namespace gplvm
