#pragma once
// The checks every graph construction (and every ProbDR method) makes of its rows, each collective:
// every rank throws the same InputError, so none is left waiting in the next collective.
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

// The RowPartition of the rows held over the ranks (their total), after checking that each rank
// holds its share of it and that every rank's rows have the same width.
RowPartition partition_of_rows(const DataRef& local, const Communicator& comm);
// Every entry finite; otherwise an InputError naming the first bad row's global index.
void require_finite_rows(const DataRef& local, std::uint64_t first_row, const Communicator& comm);
// 1 <= k < n: a row has at most n - 1 others. The error names `key`.
void require_neighbour_count(Index k, std::uint64_t num_rows, const std::string& key);

}  // namespace gplvm
