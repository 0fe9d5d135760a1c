// Rank-count invariance to the last bit: several hundred Adam steps of the data-parallel SAS and
// Bayesian SAS step, amortised and with free latents, at realistic size (N = 2,000, batches of 256 with 64
// active rows, so several row blocks per batch) must give exactly the parameters that the same training gives
// on one rank. The reference is trained inside the test on rank 0 with a one-rank communicator
// (MPI_COMM_SELF) and broadcast. Every reduction of a step sums per-block partials exactly
// (parallel/reproducible_sum.hpp), so no tolerance is needed: one differing bit fails.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/models/distributed_sas_step.hpp"
#include "gplvm/models/pca_latents.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using Variant = testing::ModelVariant;

constexpr std::uint64_t kRows = 2000;
constexpr Index kDim = 9, kBatch = 256, kActive = 64;
constexpr int kSteps = 300;
constexpr AdamOptions kAdam{.learning_rate = 1e-2};

SasModelConfig config(const Variant& v) {
  SasModelConfig c = testing::training_test_config(kDim, v.bayesian, v.latents, v.precision, {24, 12}, 17);
  c.active_size = kActive;
  c.reproducible_sums = true;
  return c;
}

// How free latents start: keyed random draws, or the data's principal components (model.init =
// "pca", formed from the distributed rows with reproducible sums).
enum class Start { random, pca };

// kSteps steps of the distributed step over `comm` with sharded Adam (what Trainer runs); returns
// the shared parameters (identical on every rank) followed by every row's free latents, gathered
// in global row order (none for amortised models).
Vector train_all(const Communicator& comm, const Variant& v, const RowMatrix& Y,
                 Start start = Start::random) {
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  SasModel model(config(v), kRows, begin, count);
  if (start == Start::pca) model.initialise_from_data(comm, partition, DataRef(local));
  RowMatrixF local_f32;
  const DistributedSasStep step = testing::distributed_step_for(model, comm, partition, local, local_f32);
  ShardedAdam adam(comm, model.num_parameters(), step.encoder_block(), kAdam);
  const BatchSchedule schedule(kRows, kBatch, 23);
  Vector params = model.initial_parameters(), grad;
  for (int s = 0; s < kSteps; ++s) {
    const std::uint64_t epoch = s / schedule.batches_per_epoch(), b = s % schedule.batches_per_epoch();
    step.evaluate(params, schedule.batch_rows(epoch, b), kActive, StepKey{epoch, b}, grad,
                  &adam.slice_counts());
    adam.ascend(params, grad);
  }
  const RowMatrix rows = comm.allgather_rows(DataRef(model.local_block_rows(params)));
  Vector all(model.num_shared_parameters() + rows.size());
  all << params.head(model.num_shared_parameters()), rows.reshaped<Eigen::RowMajor>();
  return all;
}

Vector initial_values(const Variant& v) {
  const SasModel model(config(v), kRows, 0, kRows);
  const Vector params = model.initial_parameters();
  Vector all(params.size());
  all << params.head(model.num_shared_parameters()),
      model.local_block_rows(params).reshaped<Eigen::RowMajor>();
  return all;
}

// The exact block sums are still the step's gradient: one step against the serial model's, for
// the shared parameters and, with free latents (sent to their block's worker and their gradients
// back), for this rank's latents.
class ReproducibleStep : public ::testing::TestWithParam<Variant> {};

TEST_P(ReproducibleStep, GradientEqualsTheSerialModelsToRounding) {
  const Communicator comm;
  const Variant v = GetParam();
  const RowMatrix Y = testing::random_normal(kRows, kDim, 29);
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const SasModel model(config(v), kRows, begin, count);
  const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  const DistributedSasStep step(model, comm, partition, local);
  const std::vector<std::uint64_t> rows = BatchSchedule(kRows, kBatch, 23).batch_rows(0, 0);
  RowMatrix batch(rows.size(), kDim);
  for (std::size_t i = 0; i < rows.size(); ++i)
    batch.row(static_cast<Index>(i)) = Y.row(static_cast<Index>(rows[i]));
  const SasModel serial_model(config(v), kRows, 0, kRows);
  const Vector serial_params = serial_model.initial_parameters();
  Vector params = model.initial_parameters();  // this rank's rows of the same latents
  model.set_local_block_rows(params, serial_model.local_block_rows(serial_params)
                                         .middleRows(static_cast<Index>(begin), static_cast<Index>(count)));
  Vector grad, serial_grad;
  const BatchTerms terms = step.evaluate(params, rows, kActive, {0, 0}, grad);
  const BatchTerms serial = serial_model.evaluate(serial_params, {rows, batch, kActive}, {0, 0}, serial_grad);
  EXPECT_NEAR(terms.objective, serial.objective, 1e-11 * std::abs(serial.objective));
  const Index shared = model.num_shared_parameters();
  EXPECT_LT((grad.head(shared) - serial_grad.head(shared)).norm(), 1e-10 * serial_grad.head(shared).norm());
  const RowMatrix latent_grad = model.local_block_rows(grad);
  const RowMatrix serial_latent_grad = serial_model.local_block_rows(serial_grad)
                                           .middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  EXPECT_LE((latent_grad - serial_latent_grad).norm(),
            1e-10 * serial_model.local_block_rows(serial_grad).norm());
  if (v.latents == LatentKind::free) {  // the batch's latents have gradients, on their owners
    const double total = comm.allreduce_sum(latent_grad.squaredNorm());
    EXPECT_GT(total, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, ReproducibleStep,
                         ::testing::Values(Variant{true, LatentKind::amortised},
                                           Variant{false, LatentKind::free},
                                           Variant{true, LatentKind::free}));

class ReproducibleTraining : public ::testing::TestWithParam<Variant> {};

TEST_P(ReproducibleTraining, ParametersAfterThreeHundredStepsEqualOneRankBitForBit) {
  const Communicator comm;
  const Variant v = GetParam();
  RowMatrix Y = testing::random_normal(kRows, kDim, 29);
  if (v.precision == Precision::float32) Y = Y.cast<float>().cast<double>();

  const Vector mine = train_all(comm, v, Y);
  Vector reference(mine.size());
  if (comm.is_root()) reference = train_all(Communicator(MPI_COMM_SELF), v, Y);
  comm.broadcast(reference.data(), reference.size());

  ASSERT_TRUE(mine.allFinite());
  Index differing = 0;
  for (Index i = 0; i < mine.size(); ++i) differing += mine[i] != reference[i];
  EXPECT_EQ(differing, 0) << "of " << mine.size() << " parameters; largest difference "
                          << (mine - reference).cwiseAbs().maxCoeff() << " at " << comm.size() << " ranks";
  // The run moved: a test of equal initial values would prove nothing.
  EXPECT_GT((mine - initial_values(v)).norm(), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(Amortised, ReproducibleTraining,
                         ::testing::Values(Variant{false, LatentKind::amortised},
                                           Variant{true, LatentKind::amortised},
                                           Variant{false, LatentKind::amortised, Precision::float32},
                                           Variant{true, LatentKind::amortised, Precision::float32}));
// Free latents live with their owner; the step sends them to the worker of their row block and the
// gradients back, so their rows' partial sums are the same at any rank count too.
INSTANTIATE_TEST_SUITE_P(Free, ReproducibleTraining,
                         ::testing::Values(Variant{false, LatentKind::free}, Variant{true, LatentKind::free},
                                           Variant{true, LatentKind::free, Precision::float32}));

// The PCA start itself: fixed blocks of 256 global rows (8 here, cut by the rank boundaries at 3 and
// 4 ranks), exact block sums and a projection per row give the one-rank latents bit for bit, and
// they are the ordinary PCA latents to rounding.
TEST(ReproduciblePca, LatentsEqualOneRankBitForBit) {
  const Communicator comm;
  constexpr Index kWide = 40;
  RowMatrix Y = testing::random_normal(kRows, kWide, 31);
  Y.col(3) += 0.5 * Y.col(0) + Vector::Constant(kRows, 7.0);  // correlated columns and a large mean
  Y.col(5) *= 4.0;
  const RowPartition partition(kRows, comm.size());
  const RowMatrix local = Y.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                                       static_cast<Index>(partition.count(comm.rank())));
  const RowMatrix mine =
      comm.allgather_rows(DataRef(RowMatrix(pca_latents(local, partition, comm, 3, true))));
  RowMatrix reference(kRows, 3);
  if (comm.is_root())
    reference = pca_latents(Y, RowPartition(kRows, 1), Communicator(MPI_COMM_SELF), 3, true);
  comm.broadcast(reference.data(), reference.size());
  Index differing = 0;
  for (Index i = 0; i < mine.size(); ++i) differing += mine.data()[i] != reference.data()[i];
  EXPECT_EQ(differing, 0) << "of " << mine.size() << " latents at " << comm.size() << " ranks";
  // Unit variance per dimension, and the same latents as the per-rank sums give.
  const RowMatrix per_rank = comm.allgather_rows(DataRef(RowMatrix(pca_latents(local, partition, comm, 3))));
  EXPECT_LT((mine - per_rank).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NEAR(mine.col(0).squaredNorm() / kRows, 1.0, 1e-12);
}

// Free latents from the PCA start (model.init = "pca", the default): the start is bitwise too,
// so the whole run is.
class ReproducibleTrainingFromPca : public ::testing::TestWithParam<Variant> {};

TEST_P(ReproducibleTrainingFromPca, ParametersAfterThreeHundredStepsEqualOneRankBitForBit) {
  const Communicator comm;
  const Variant v = GetParam();
  const RowMatrix Y = testing::random_normal(kRows, kDim, 29);
  const Vector mine = train_all(comm, v, Y, Start::pca);
  Vector reference(mine.size());
  if (comm.is_root()) reference = train_all(Communicator(MPI_COMM_SELF), v, Y, Start::pca);
  comm.broadcast(reference.data(), reference.size());
  ASSERT_TRUE(mine.allFinite());
  Index differing = 0;
  for (Index i = 0; i < mine.size(); ++i) differing += mine[i] != reference[i];
  EXPECT_EQ(differing, 0) << "of " << mine.size() << " parameters; largest difference "
                          << (mine - reference).cwiseAbs().maxCoeff() << " at " << comm.size() << " ranks";
  EXPECT_GT((mine - initial_values(v)).norm(), 1e-2);  // moved (and started elsewhere than at random)
}

INSTANTIATE_TEST_SUITE_P(Free, ReproducibleTrainingFromPca,
                         ::testing::Values(Variant{false, LatentKind::free},
                                           Variant{true, LatentKind::free}));

}  // namespace
}  // namespace gplvm
