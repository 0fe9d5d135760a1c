// A numerical failure in work that one rank does alone must reach every rank as the same error,
// never leave the other ranks waiting in the step's next collective (a hang, or an MPI_Abort from
// the command's error handler). The step's remainder rows are rank-local: a free latent that is
// NaN on its owner makes that row's predictive variance non-positive on the rank that evaluates
// it, and only there.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/distributed_sas_step.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr std::uint64_t kRows = 400;
constexpr Index kDim = 5, kBatch = 128, kActive = 32;

class RankLocalFailure : public ::testing::TestWithParam<bool> {};

TEST_P(RankLocalFailure, EveryRankThrowsTheSameAgreedNumericalError) {
  const Communicator comm;
  SasModelConfig config =
      testing::training_test_config(kDim, false, LatentKind::free, Precision::float64, {8}, 17);
  config.active_size = kActive;
  config.reproducible_sums = GetParam();
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const SasModel model(config, kRows, begin, count);
  const RowMatrix Y = testing::random_normal(kRows, kDim, 29);
  const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  const DistributedSasStep step(model, comm, partition, local);
  const std::vector<std::uint64_t> rows = BatchSchedule(kRows, kBatch, 23).batch_rows(0, 0);

  // The last remainder row's latent is NaN on its owner.
  const std::uint64_t broken = rows.back();
  Vector params = model.initial_parameters();
  if (partition.owner(broken) == comm.rank()) {
    RowMatrix latents = model.local_block_rows(params);
    latents.row(static_cast<Index>(broken - begin)).setConstant(std::numeric_limits<double>::quiet_NaN());
    model.set_local_block_rows(params, latents);
  }

  Vector grad;
  std::string message = "no error";
  bool numerical = false, agreed = false;
  try {
    step.evaluate(params, rows, kActive, {0, 0}, grad);
  } catch (const NumericalError& e) {
    numerical = true;
    agreed = e.agreed();
    message = e.what();
  }
  EXPECT_TRUE(numerical) << message;
  // Marked agreed so that gplvm's error handler ends every rank with exit 1 instead of aborting
  // (one rank needs no agreement: its error is the job's).
  if (comm.size() > 1) {
    EXPECT_TRUE(agreed);
  }
  EXPECT_NE(message.find("remainder latents contain NaN"), std::string::npos) << message;
  EXPECT_EQ(message, comm.broadcast(message, 0)) << "rank " << comm.rank();

  // The ranks are still in step: a good step afterwards succeeds everywhere.
  const BatchTerms terms = step.evaluate(model.initial_parameters(), rows, kActive, {0, 0}, grad);
  EXPECT_TRUE(std::isfinite(terms.objective));
}

INSTANTIATE_TEST_SUITE_P(PerRankAndReproducibleSums, RankLocalFailure, ::testing::Values(false, true));

}  // namespace
}  // namespace gplvm
