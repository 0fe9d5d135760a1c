#include "gplvm/train/batch_schedule.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/keyed_permutation.hpp"
#include "gplvm/core/threads.hpp"

namespace gplvm {

BatchSchedule::BatchSchedule(std::uint64_t num_data, std::uint64_t batch_size, std::uint64_t seed)
    : num_data_(num_data), seed_(seed) {
  require(num_data > 0, "the data set is empty", {"", "N", "0"});
  require(batch_size > 0, "batch size must be positive", {"", "sas.batch_size", "0"});
  require(batch_size <= num_data, "batch size exceeds the number of data rows (N < B)",
          {"", "sas.batch_size", std::to_string(batch_size) + " > N = " + std::to_string(num_data)});
  batches_per_epoch_ = num_data / batch_size;
}

std::uint64_t BatchSchedule::batch_begin(std::uint64_t batch) const {
  // floor(b N / nb) without overflow for N up to 2^62 and nb up to 2^32.
  const unsigned __int128 product = static_cast<unsigned __int128>(batch) * num_data_;
  return static_cast<std::uint64_t>(product / batches_per_epoch_);
}

std::uint64_t BatchSchedule::batch_length(std::uint64_t batch) const {
  require(batch < batches_per_epoch_, "batch index out of range", {"", "batch", std::to_string(batch)});
  return batch_begin(batch + 1) - batch_begin(batch);
}

std::vector<std::uint64_t> BatchSchedule::batch_rows(std::uint64_t epoch, std::uint64_t batch) const {
  const std::uint64_t begin = batch_begin(batch), length = batch_length(batch);
  const KeyedPermutation permutation(num_data_, seed_, epoch);
  std::vector<std::uint64_t> rows(length);
  // Each position is a keyed Feistel evaluation of its own (several Philox blocks): the rank's
  // threads take a share of positions each.
  constexpr Index kPositionsPerShareUnit = 64;
  for_each_thread_share(static_cast<Index>(length), kPositionsPerShareUnit, [&](Index i0, Index i1) {
    for (Index i = i0; i < i1; ++i) rows[i] = permutation(begin + static_cast<std::uint64_t>(i));
  });
  return rows;
}

}  // namespace gplvm
