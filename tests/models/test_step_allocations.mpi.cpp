// The training step's heap allocations do not grow with the batch: its temporaries are whole
// matrices and vectors (served again from the heap every step, core/memory_reuse.hpp), never one
// allocation per row. A per-row allocation went unnoticed once: require() took its message as a
// std::string, so the owner lookup of every batch row built a heap copy of a 22-character message,
// 2,048 allocations in a step of 1,024 rows. At 1-4 ranks, for SAS and Bayesian SAS, amortised and
// free latents, fp64 and fp32, each rank counts the allocations of four steps (after two to warm
// up) at two batch sizes, 8x apart; the counts must be equal at one rank, and within a few message
// buffers per step of each other at several.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "gplvm/models/distributed_sas_step.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/allocation_counter.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using Variant = testing::ModelVariant;

class StepAllocations : public ::testing::TestWithParam<Variant> {};

constexpr std::uint64_t kRows = 400;
constexpr Index kDim = 7, kActive = 8;
constexpr int kWarmUpSteps = 2, kCountedSteps = 4;
constexpr std::int64_t kMessageBuffersPerStep = 8;

// Heap allocations on this rank over kCountedSteps steps with batches of `batch_size` rows.
std::uint64_t allocations_of_steps(const DistributedSasStep& step, const Vector& params,
                                   std::uint64_t batch_size) {
  const BatchSchedule schedule(kRows, batch_size, 3);
  Vector gradient;
  std::uint64_t before = 0;
  for (int s = 0; s < kWarmUpSteps + kCountedSteps; ++s) {
    if (s == kWarmUpSteps) before = testing::heap_allocations();
    const std::uint64_t b = static_cast<std::uint64_t>(s) % schedule.batches_per_epoch();
    step.evaluate(params, schedule.batch_rows(0, b), kActive, StepKey{0, b}, gradient);
  }
  return testing::heap_allocations() - before;
}

TEST_P(StepAllocations, DoNotGrowWithTheBatchSize) {
  const Communicator comm;
  const Variant v = GetParam();
  const RowMatrix Y = testing::random_normal(kRows, kDim, 7);
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const SasModel model(testing::training_test_config(kDim, v.bayesian, v.latents, v.precision, {10, 6}, 13),
                       kRows, begin, count);
  const RowMatrix local = Y.middleRows(begin, count);
  RowMatrixF local_f32;
  const DistributedSasStep step = testing::distributed_step_for(model, comm, partition, local, local_f32);
  const Vector params = model.initial_parameters();

  const std::uint64_t small = allocations_of_steps(step, params, 48);
  const std::uint64_t large = allocations_of_steps(step, params, 384);
  EXPECT_GT(small, 0u);  // the counter sees the step's matrices
  const std::string counts = "rank " + std::to_string(comm.rank()) + ": " + std::to_string(small) +
                             " allocations in " + std::to_string(kCountedSteps) + " steps of 48 rows, " +
                             std::to_string(large) + " of 384";
  if (comm.size() == 1) {
    EXPECT_EQ(large, small) << counts;
  } else {
    // Across ranks a step's message buffers come and go with its rows: a rank with no row to send,
    // receive or evaluate in a step allocates no (empty) buffer for it. That moved the count by up
    // to 6 per step at 2-4 ranks; one allocation per row would add 336 per step.
    const auto difference = static_cast<std::int64_t>(large) - static_cast<std::int64_t>(small);
    EXPECT_LE(std::abs(difference), kCountedSteps * kMessageBuffersPerStep) << counts;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, StepAllocations, ::testing::ValuesIn(testing::all_model_variants()));

}  // namespace
}  // namespace gplvm
