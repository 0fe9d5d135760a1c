#pragma once
// Checks of a rank's block of data rows before training: once, when a step is made, rather than in
// every step (the data never change during training).
#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

// Index of the first row of data holding a NaN or Inf, or -1 if every value is finite.
template <typename Scalar>
Index first_non_finite_row(const DataRefT<Scalar>& data) {
  if (data.allFinite()) return -1;
  for (Index i = 0; i < data.rows(); ++i)
    if (!data.row(i).allFinite()) return i;
  return -1;
}

// Collective. Throws InputError if the partition was made for another rank count, if local_data is
// not this rank's rows of it or not data_dim wide, or (on every rank, naming the first such
// global row) if any rank's rows hold a NaN or Inf.
template <typename Scalar>
void check_local_rows(const Communicator& comm, const RowPartition& partition,
                      const DataRefT<Scalar>& local_data, Index data_dim);

}  // namespace gplvm
