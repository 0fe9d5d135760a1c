#include "gplvm/objectives/dense_row_matrix.hpp"

#include <vector>

#include "gplvm/core/error.hpp"

namespace gplvm {

DenseRowMatrix::DenseRowMatrix(const Communicator& comm, Matrix local_rows, const std::string& name,
                               const std::string& key)
    : comm_(comm), local_(std::move(local_rows)), name_(name) {
  const std::vector<std::int64_t> counts = comm_.allgather(static_cast<std::int64_t>(local_.rows()));
  std::int64_t total = 0;
  for (int r = 0; r < comm_.size(); ++r) {
    if (r == comm_.rank()) first_row_ = total;
    total += counts[r];
  }
  // The column counts may differ by rank: every rank sees the smallest and largest, so all agree.
  const auto columns = static_cast<std::int64_t>(local_.cols());
  const bool square = comm_.allreduce_min(columns) == total && comm_.allreduce_max(columns) == total;
  comm_.agree_on_problem(square ? ""
                                : "the rows of " + name_ + " (" + std::to_string(total) +
                                      " over all ranks) do not make a square matrix",
                         key);
}

Matrix DenseRowMatrix::apply(const ConstMatrixRef& local_latents) const {
  require(local_latents.rows() == local_.rows(), "latents and " + name_ + " have different local row counts",
          {"", "latents", std::to_string(local_latents.rows()) + " vs " + std::to_string(local_.rows())});
  const Matrix all_latents = comm_.allgather_rows(local_latents);
  return local_ * all_latents;
}

}  // namespace gplvm
