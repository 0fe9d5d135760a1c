#pragma once
// Which data rows form batch b of epoch e: a keyed permutation of 0..N-1 per epoch, cut into
// floor(N / B) consecutive batches of near-equal size (B to 2B-1 rows), so every row is used in
// every epoch. The first A rows of a batch are its active set. Nothing depends on the rank count.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

class BatchSchedule {
 public:
  BatchSchedule(std::uint64_t num_data, std::uint64_t batch_size, std::uint64_t seed);

  std::uint64_t num_data() const noexcept { return num_data_; }
  std::uint64_t batches_per_epoch() const noexcept { return batches_per_epoch_; }
  std::uint64_t batch_length(std::uint64_t batch) const;
  // Global row indices of the batch, in batch order (the first A are the active set).
  std::vector<std::uint64_t> batch_rows(std::uint64_t epoch, std::uint64_t batch) const;

 private:
  std::uint64_t batch_begin(std::uint64_t batch) const;

  std::uint64_t num_data_;
  std::uint64_t batches_per_epoch_;
  std::uint64_t seed_;
};

}  // namespace gplvm
