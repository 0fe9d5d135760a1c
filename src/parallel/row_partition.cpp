#include "gplvm/parallel/row_partition.hpp"

#include <algorithm>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

RowPartition::RowPartition(std::uint64_t num_rows, int num_ranks)
    : num_rows_(num_rows), num_ranks_(num_ranks) {
  require(num_ranks >= 1, "number of ranks must be positive", {"", "ranks", std::to_string(num_ranks)});
}

std::uint64_t RowPartition::begin(int rank) const {
  const std::uint64_t base = num_rows_ / num_ranks_, extra = num_rows_ % num_ranks_;
  const auto r = static_cast<std::uint64_t>(rank);
  return r * base + std::min(r, extra);
}

int RowPartition::owner(std::uint64_t row) const {
  // Called for every row of every batch: test before building the error's strings.
  if (row >= num_rows_) throw InputError("row index out of range", {"", "row", std::to_string(row)});
  const std::uint64_t base = num_rows_ / num_ranks_, extra = num_rows_ % num_ranks_;
  const std::uint64_t boundary = extra * (base + 1);  // rows below it belong to the larger blocks
  if (row < boundary) return static_cast<int>(row / (base + 1));
  return static_cast<int>(extra + (row - boundary) / base);
}

}  // namespace gplvm
