#pragma once
// Data rows by global index, fetched from the ranks that own them (rows split as RowPartition
// splits them): what a method needs of its k-NN graph's neighbours beyond the distances, e.g. LLE's
// local Gram matrices of neighbour differences. One alltoallv of the requests, one of the rows;
// each rank receives only the rows it asked for (k per local row for LLE), never the whole data.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Row t of the result is global row wanted[t] of the data whose local rows are `local` (collective;
// `wanted` may differ by rank, repeat rows, or be empty). Indices must lie in [0, num_rows).
RowMatrix fetch_rows(const DataRef& local, std::uint64_t num_rows, const std::vector<std::int64_t>& wanted,
                     const Communicator& comm);

}  // namespace gplvm
