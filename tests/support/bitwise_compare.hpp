#pragma once
// Bit-for-bit comparisons of runs (a resumed run against the uninterrupted one, a run at P ranks
// against one rank): memcmp per value, so that -0.0 against 0.0 and NaN payloads count as different.
#include <algorithm>
#include <cstring>

#include "gplvm/core/types.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm::testing {

// How many values differ in their bits (every value of the longer one when the sizes differ).
inline Index bitwise_differences(const Vector& a, const Vector& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  Index differing = 0;
  for (Index i = 0; i < a.size(); ++i) differing += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
  return differing;
}

// The shared parameters, then every row's local values in global row order, on every rank. Collective.
inline Vector parameters_in_row_order(const Communicator& comm, const Model& model, const Vector& params) {
  const RowMatrix rows = comm.allgather_rows(DataRef(model.local_block_rows(params)));
  Vector all(model.num_shared_parameters() + rows.size());
  all << params.head(model.num_shared_parameters()), rows.reshaped<Eigen::RowMajor>();
  return all;
}

}  // namespace gplvm::testing
