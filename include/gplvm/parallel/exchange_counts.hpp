#pragma once
// The bookkeeping of an alltoallv: where each rank's slice starts, and how many elements each rank
// will send this one.
#include <vector>

#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Where each rank's slice starts in a buffer of consecutive per-rank slices.
std::vector<int> offsets_of(const std::vector<int>& counts);

// How many elements every rank sends this one, from how many this one sends each (collective: one
// count per pair of ranks).
std::vector<int> receive_counts(const std::vector<int>& send_counts, const Communicator& comm);

}  // namespace gplvm
