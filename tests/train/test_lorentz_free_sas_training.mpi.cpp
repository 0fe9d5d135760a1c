// Free latents on the hyperboloid for SAS and Bayesian SAS in the minibatch trainer
// (model.latents = "free", model.latent_space = "lorentz"): the batch objective's derivative
// along exponential-map curves of the free points against finite differences, the trainer's
// Riemannian Adam run at 1-4 ranks against the same run on one process, the points staying on the
// sheet, and a run stopped, checkpointed, read back and continued equal to the uninterrupted one.
// N = 61 is not divisible by 2, 3 or 4, so ranks hold uneven shares.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "gplvm/train/run_file.hpp"
#include "gplvm/train/trainer.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kBatch = 12;
constexpr Index kRows = 61;
constexpr Index kDim = 7, kActive = 4, kPointCols = 3;  // Q = 2: three ambient coordinates

SasModelConfig lorentz_free_config(bool bayesian, bool reproducible) {
  SasModelConfig c =
      testing::training_test_config(kDim, bayesian, LatentKind::free, Precision::float64, {}, 11);
  c.latent_space = "lorentz";
  c.decoder.kernel = "hyperboloid_exp";
  c.decoder.init.lengthscale = 2.0;
  c.active_size = kActive;
  c.reproducible_sums = reproducible;
  return c;
}

RowMatrix batch_of(const RowMatrix& Y, const std::vector<std::uint64_t>& rows) {
  RowMatrix batch(rows.size(), Y.cols());
  for (size_t i = 0; i < rows.size(); ++i) batch.row(i) = Y.row(rows[i]);
  return batch;
}

// params with each point row n moved to Exp_{x_n}(t xi_n).
Vector moved(const SasModel& model, const Vector& params, const Matrix& xi, double t) {
  RowMatrix rows = model.local_block_rows(params);
  for (Index n = 0; n < rows.rows(); ++n) {
    const Vector x = rows.row(n).head(kPointCols).transpose();
    rows.row(n).head(kPointCols) = lorentz::exp_map(x, t * xi.row(n).transpose()).transpose();
  }
  Vector out = params;
  model.set_local_block_rows(out, rows);
  return out;
}

class LorentzFreeLatents : public ::testing::TestWithParam<bool> {};

// The free rows' ambient adjoint, paired with tangent directions, is the derivative along
// t -> Exp_x(t xi): checked for all rows at once (non-batch rows contribute nothing) and for
// one batch row alone. Bayesian: the wrapped-normal sample's noise is keyed by the step, fixed here.
TEST_P(LorentzFreeLatents, GradientAlongExponentialMapMatchesFiniteDifferences) {
  const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = testing::random_normal(kRows, kDim, 5);
  const SasModel model(lorentz_free_config(GetParam(), false), kRows, 0, kRows);
  ASSERT_NE(model.curved_point_space(), nullptr);
  Vector params = model.initial_parameters();
  // Spread the points out (the start is near the origin), so the curvature matters.
  RowMatrix rows = model.local_block_rows(params);
  const RowMatrix spread = testing::random_normal(kRows, 2, 8);
  for (Index n = 0; n < kRows; ++n)
    rows.row(n).head(kPointCols) = lorentz::lift(0.8 * spread.row(n).transpose()).transpose();
  model.set_local_block_rows(params, rows);

  const BatchSchedule schedule(kRows, kBatch, 11);
  const std::vector<std::uint64_t> batch = schedule.batch_rows(0, 2);
  const RowMatrix batch_data = batch_of(Y, batch);
  const Batch b{batch, DataRef(batch_data), kActive};
  Vector gradient;
  model.evaluate(params, b, {0, 2}, gradient);
  const RowMatrix g = model.local_block_rows(gradient);
  const RowMatrix noise = testing::random_normal(kRows, kPointCols, 9);
  for (const bool one_row : {false, true}) {
    Matrix xi = Matrix::Zero(kRows, kPointCols);
    for (Index n = 0; n < kRows; ++n) {
      if (one_row && static_cast<std::uint64_t>(n) != batch[1]) continue;
      xi.row(n) = lorentz::project_tangent(rows.row(n).head(kPointCols).transpose(), noise.row(n).transpose())
                      .transpose();
    }
    double analytic = 0.0;
    for (Index n = 0; n < kRows; ++n) analytic += g.row(n).head(kPointCols).dot(xi.row(n));
    const double h = 1e-5;
    Vector unused;
    const double up = model.evaluate(moved(model, params, xi, h), b, {0, 2}, unused).objective;
    const double down = model.evaluate(moved(model, params, xi, -h), b, {0, 2}, unused).objective;
    const double numeric = (up - down) / (2 * h);
    ASSERT_GT(std::abs(analytic), 1e-3);
    EXPECT_LT(std::abs(numeric - analytic) / std::abs(analytic), 1e-6)
        << "one_row " << one_row << ": " << numeric << " vs " << analytic;
  }
}

TrainerOptions options(std::uint64_t max_steps) {
  TrainerOptions o;
  o.batch_size = kBatch;
  o.epochs = 1000;
  o.max_steps = max_steps;
  o.adam.learning_rate = 2e-2;
  o.seed = 11;
  o.progress_seconds = 1e9;
  return o;
}

double relative_difference(const ConstVectorRef& a, const ConstVectorRef& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// The trainer at this rank count against the trainer on one process over all rows: shared
// parameters, this rank's points and variances. Reproducible sums give the same bits.
TEST_P(LorentzFreeLatents, TrainerEqualsSerialAtEveryRankCountAndPointsStayOnTheSheet) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = testing::random_normal(kRows, kDim, 5);
  for (const bool reproducible : {false, true}) {
    const SasModelConfig c = lorentz_free_config(GetParam(), reproducible);
    const RowPartition partition(kRows, comm.size());
    const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
    const RowMatrix local = Y.middleRows(begin, count);
    const SasModel model(c, kRows, begin, count), serial_model(c, kRows, 0, kRows);
    const Trainer trainer(model, comm, partition, DataRef(local), options(40));
    const Trainer serial_trainer(serial_model, self, RowPartition(kRows, 1), DataRef(Y), options(40));
    TrainingState state = trainer.initial_state(), serial = serial_trainer.initial_state();
    const TrainRunStats stats = trainer.run(state);
    serial_trainer.run(serial);
    EXPECT_EQ(stats.steps, 40u) << stats.divergence;
    const Index shared = model.num_shared_parameters();
    const RowMatrix mine = model.local_block_rows(state.params);
    const RowMatrix reference = serial_model.local_block_rows(serial.params).middleRows(begin, count);
    const RowMatrix start = model.local_block_rows(model.initial_parameters());
    EXPECT_GT((mine - start).norm(), 1e-2 * start.norm());  // the points moved
    if (reproducible) {
      EXPECT_TRUE(state.params.head(shared) == serial.params.head(shared));
      EXPECT_TRUE(mine == reference);
    } else {
      EXPECT_LT(relative_difference(state.params.head(shared), serial.params.head(shared)), 1e-8);
      EXPECT_LT((mine - reference).norm() / reference.norm(), 1e-8);
    }
    const Matrix points = mine.leftCols(kPointCols);
    EXPECT_LT(lorentz::max_sheet_deviation(points), 1e-12 * points.squaredNorm() / std::max<Index>(1, count));
    EXPECT_EQ(lorentz::first_row_off_sheet(points, 1e-12), -1);
  }
}

// model.fixed_hyperparameters = ["kappa"] on free Lorentz sas / bayesian_sas: log kappa keeps its
// initial bits (its moments stay zero), the kernel variance and the points move, and every rank
// count gives one process's bits under train.reproducible.
TEST_P(LorentzFreeLatents, FixedKappaKeepsItsInitialBitsWhileTheRestMoves) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = testing::random_normal(kRows, kDim, 5);
  SasModelConfig c = lorentz_free_config(GetParam(), true);
  c.decoder.fixed_hyperparameters = {"log_kappa"};
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const RowMatrix local = Y.middleRows(begin, count);
  const SasModel model(c, kRows, begin, count), serial_model(c, kRows, 0, kRows);
  ASSERT_EQ(model.fixed_parameter_indices(), std::vector<Index>{1});  // (log sigma, log kappa) first
  const Trainer trainer(model, comm, partition, DataRef(local), options(40));
  const Trainer serial_trainer(serial_model, self, RowPartition(kRows, 1), DataRef(Y), options(40));
  TrainingState state = trainer.initial_state(), serial = serial_trainer.initial_state();
  const Vector start = state.params;
  EXPECT_EQ(trainer.run(state).steps, 40u);
  serial_trainer.run(serial);
  EXPECT_EQ(state.params[1], start[1]);
  EXPECT_EQ(state.params[1], std::log(c.decoder.init.lengthscale));
  EXPECT_EQ(state.adam.first_moment[1], 0.0);
  EXPECT_EQ(state.adam.second_moment[1], 0.0);
  EXPECT_GT(std::abs(state.params[0] - start[0]), 1e-4);
  const RowMatrix mine = model.local_block_rows(state.params);
  EXPECT_GT((mine - model.local_block_rows(start)).norm(), 1e-2 * mine.norm());
  const Index shared = model.num_shared_parameters();
  EXPECT_TRUE(state.params.head(shared) == serial.params.head(shared));
  EXPECT_TRUE(mine == serial_model.local_block_rows(serial.params).middleRows(begin, count));
}

class LorentzFreeResume : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string dir;
    if (comm_.is_root()) {
      dir = (fs::temp_directory_path() / ("gplvm-lorentz-resume-" + std::to_string(::getpid()))).string();
      fs::create_directories(dir);
    }
    dir_ = comm_.broadcast(dir);
  }
  void TearDown() override {
    comm_.barrier();
    if (comm_.is_root()) fs::remove_all(dir_);
  }
  const Communicator comm_;
  std::string dir_;
};

// The Riemannian moments travel in the checkpoint: without them the continued run differs.
TEST_P(LorentzFreeResume, ResumedRunEqualsTheUninterruptedOne) {
  const RowMatrix Y = testing::random_normal(kRows, kDim, 5);
  const RowPartition partition(kRows, comm_.size());
  const std::uint64_t begin = partition.begin(comm_.rank()), count = partition.count(comm_.rank());
  const RowMatrix local = Y.middleRows(begin, count);
  const SasModel model(lorentz_free_config(GetParam(), false), kRows, begin, count);
  const Trainer trainer(model, comm_, partition, DataRef(local), options(30));
  TrainingState whole = trainer.initial_state();
  ASSERT_EQ(trainer.run(whole).steps, 30u);

  TrainingState first = trainer.initial_state();
  int calls = 0;
  ASSERT_EQ(trainer.run(first, {}, [&] { return ++calls == 13; }).reason, StopReason::stopped);
  const RowMatrix moment = model.local_block_rows(first.adam.first_moment).leftCols(kPointCols);
  EXPECT_GT(comm_.allreduce_sum(moment.squaredNorm()), 0.0);  // the points' moments are in the state
  const LocalLatents latents_now = encode_local_latents(model, first.params, DataRef(local));
  RunMetadata meta;
  meta.data = fingerprint_data(comm_, DataRef(local), begin, kRows);
  meta.data_file = "y.h5";
  const std::string file = dir_ + "/checkpoint.h5";
  write_run_file(file, comm_, {model, first, latents_now, nullptr, meta}, true);
  TrainingState resumed = read_checkpoint(file, comm_, model, meta);
  trainer.run(resumed);
  EXPECT_EQ(resumed.step, whole.step);
  EXPECT_TRUE(resumed.params == whole.params) << relative_difference(resumed.params, whole.params);

  // Control: the same continuation with the points' moments dropped ends elsewhere.
  TrainingState forgetful = read_checkpoint(file, comm_, model, meta);
  RowMatrix m = model.local_block_rows(forgetful.adam.first_moment);
  m.leftCols(kPointCols).setZero();
  model.set_local_block_rows(forgetful.adam.first_moment, m);
  trainer.run(forgetful);
  EXPECT_GT(comm_.allreduce_sum((forgetful.params - whole.params).squaredNorm()), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Kinds, LorentzFreeLatents, ::testing::Values(false, true),
                         [](const auto& info) { return std::string(info.param ? "bayesian_sas" : "sas"); });
INSTANTIATE_TEST_SUITE_P(Kinds, LorentzFreeResume, ::testing::Values(false, true),
                         [](const auto& info) { return std::string(info.param ? "bayesian_sas" : "sas"); });

}  // namespace
}  // namespace gplvm
