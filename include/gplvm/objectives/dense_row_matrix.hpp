#pragma once
// A square n x n matrix held densely by rows: this rank's rows, all n columns, consecutive blocks
// in rank order (as RowPartition's; any split, empty blocks allowed). What the dense covariance and
// precision operators of the Wishart objectives (DenseRowCovariance, DenseRowPrecision) hold: a
// product gathers the n x l latents on every rank and costs O(n^2 l / P); memory n^2 / P doubles.
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class DenseRowMatrix {
 public:
  // Collective. InputError (key `key`, naming the matrix as `name`, e.g. "S_hat") on every rank
  // unless the blocks together have n rows and every one has n columns.
  DenseRowMatrix(const Communicator& comm, Matrix local_rows, const std::string& name,
                 const std::string& key);

  Index num_rows() const noexcept { return local_.cols(); }
  Index local_rows() const noexcept { return local_.rows(); }
  Index first_row() const noexcept { return first_row_; }
  const Matrix& local_block() const noexcept { return local_; }
  // Collective: this rank's rows of M X, from this rank's rows of X (InputError for another count).
  Matrix apply(const ConstMatrixRef& local_latents) const;
  // The sum of this rank's diagonal entries (no communication).
  double local_trace() const { return local_.diagonal(first_row_).sum(); }

 private:
  const Communicator& comm_;
  Matrix local_;
  std::string name_;
  Index first_row_ = 0;  // global index of this rank's first row
};

}  // namespace gplvm
