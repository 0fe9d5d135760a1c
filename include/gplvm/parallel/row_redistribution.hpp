#pragma once
// Moves rows between ranks so that a contiguous global sequence ends up in the balanced block
// layout of RowPartition: used when a subset of the data (e.g. the conditioning set of an exact
// predictive) is selected where it lies and must then be laid out as the ScaLAPACK path expects.
#include <cstdint>
#include <vector>

#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Rank r holds rows [offset_r, offset_r + local.rows()) of a sequence of `total` rows, the ranges
// being contiguous and in rank order. Returns rows [RowPartition(total, P).begin(rank), ...).
RowMatrix rebalance_rows(const Communicator& comm, const DataRef& local, std::uint64_t offset,
                         std::uint64_t total);

// The same move to any contiguous layout in rank order: rank r receives rows
// [target_begins[r], target_begins[r + 1]) (P + 1 non-decreasing values from 0 to total, the same
// on every rank), e.g. a partition whose boundaries fall on whole row blocks.
RowMatrix redistribute_rows(const Communicator& comm, const DataRef& local, std::uint64_t offset,
                            std::uint64_t total, const std::vector<std::uint64_t>& target_begins);

}  // namespace gplvm
