#pragma once
// Contiguous block partition of N rows over P ranks: rank r owns [begin(r), begin(r + 1)), the
// first N mod P ranks one row more than the rest. Ranks may own no row when P > N.
#include <cstdint>

namespace gplvm {

class RowPartition {
 public:
  RowPartition(std::uint64_t num_rows, int num_ranks);
  std::uint64_t num_rows() const noexcept { return num_rows_; }
  int num_ranks() const noexcept { return num_ranks_; }
  std::uint64_t begin(int rank) const;
  std::uint64_t count(int rank) const { return begin(rank + 1) - begin(rank); }
  int owner(std::uint64_t row) const;

 private:
  std::uint64_t num_rows_;
  int num_ranks_;
};

}  // namespace gplvm
