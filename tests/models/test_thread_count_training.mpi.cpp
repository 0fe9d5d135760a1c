// Thread-count invariance of training: the distributed step with sharded Adam (what Trainer runs)
// for a few steps at 2 and 3 threads per rank must give bit for bit the parameters and objectives
// of 1 thread per rank, at every rank count the suite runs (so P ranks x T threads equals P x 1,
// which test_distributed_training ties to the serial model). Every split among threads is by
// output element (include/gplvm/core/threads.hpp), so nothing may differ, in fp64 or fp32. Sizes
// are large enough that the products, solves and element-wise passes really split.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gplvm/linalg/gemm.hpp"
#include "gplvm/models/distributed_sas_step.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

bool products_through_blas() {
  return gplvm::gemm_engine_name().rfind("blas", 0) == 0;
}

using Variant = testing::ModelVariant;

class ThreadCountTraining : public ::testing::TestWithParam<Variant> {};

constexpr std::uint64_t kRows = 1501, kBatch = 500;
constexpr Index kDim = 96, kActive = 80;
constexpr int kSteps = 4;

struct Trajectory {
  Vector params;
  std::vector<double> objectives;
};

Trajectory train(const Variant& v, const Communicator& comm, int threads) {
  const testing::ScopedThreads scoped(threads);
  const SasModelConfig c =
      testing::training_test_config(kDim, v.bayesian, v.latents, v.precision, {128, 64}, 3);
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const SasModel model(c, kRows, begin, count);
  const RowMatrix all = testing::random_normal(kRows, kDim, 9);
  const RowMatrix local = all.middleRows(begin, count);
  RowMatrixF local_f32;
  const DistributedSasStep step = testing::distributed_step_for(model, comm, partition, local, local_f32);
  ShardedAdam adam(comm, model.num_parameters(), step.encoder_block(), {.learning_rate = 1e-2});
  const BatchSchedule schedule(kRows, kBatch, c.seed);
  Trajectory t{model.initial_parameters(), {}};
  Vector grad;
  for (int s = 0; s < kSteps; ++s) {
    const std::uint64_t epoch = s / schedule.batches_per_epoch(), b = s % schedule.batches_per_epoch();
    const BatchTerms terms = step.evaluate(t.params, schedule.batch_rows(epoch, b), kActive, {epoch, b}, grad,
                                           &adam.slice_counts());
    t.objectives.push_back(terms.objective);
    adam.ascend(t.params, grad);
  }
  return t;
}

TEST_P(ThreadCountTraining, ParametersAndObjectivesEqualOneThreadBitForBit) {
  const Communicator comm;
  const Variant v = GetParam();
  const Trajectory one = train(v, comm, 1);
  for (int threads : {2, 3}) {
    const Trajectory many = train(v, comm, threads);
    // The packed engine and Eigen's product compute every element the same way whatever the
    // split: the same bits. OpenBLAS picks its kernels by the shape of each thread's tile, so its
    // sums may round differently: agreement to rounding, amplified over the steps.
    const double tolerance = products_through_blas() ? 1e-4 : 0.0;  // fp32 variants: ~1e-5 seen
    for (int s = 0; s < kSteps; ++s)
      EXPECT_LE(std::abs(many.objectives[s] - one.objectives[s]), tolerance * std::abs(one.objectives[s]))
          << "threads " << threads << " step " << s;
    const double scale = std::max(1.0, one.params.lpNorm<Eigen::Infinity>());
    EXPECT_LE((many.params - one.params).lpNorm<Eigen::Infinity>(), tolerance * 1e3 * scale)
        << "threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, ThreadCountTraining,
                         ::testing::Values(Variant{false, LatentKind::amortised, Precision::float64},
                                           Variant{true, LatentKind::amortised, Precision::float64},
                                           Variant{false, LatentKind::free, Precision::float64},
                                           Variant{true, LatentKind::free, Precision::float64},
                                           Variant{false, LatentKind::amortised, Precision::float32},
                                           Variant{true, LatentKind::amortised, Precision::float32},
                                           Variant{true, LatentKind::free, Precision::float32}));

}  // namespace
}  // namespace gplvm
