// The sparse and Bayesian hGP-LVM (sparse_gplvm / bayesian_gplvm on model.latent_space = "lorentz")
// in the minibatch trainer at 1-4 ranks against the same run on one process: from the data's start
// (PCA latents mapped to the sheet, Z a random subset of them, q(u) at its optimum), 60 steps of
// Riemannian Adam on the points and on Z and Adam on the rest. With train.reproducible the shared
// parameters and every point are the same bits; without, equal to 1e-7 relative (per-rank sums
// round differently and Adam carries the difference). Points and Z stay on the sheet, and the
// Riemannian moments of both travel through the AdamState. N = 521 is not divisible by 2, 3 or 4.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/train/trainer.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 521, kDim = 6, kInducing = 20, kPointCols = 3;  // Q = 2

struct Variant {
  bool bayesian;
  PsiNoise noise;
};
void PrintTo(const Variant& v, std::ostream* os) {
  *os << (v.bayesian ? "bayesian_gplvm" : "sparse_gplvm")
      << (v.bayesian ? (v.noise == PsiNoise::fixed ? "_fixed" : "_fresh") : "");
}

SparseGplvmConfig lorentz_config(const Variant& v, bool reproducible) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.bayesian = v.bayesian;
  c.latents = LatentKind::free;
  c.latent_space = "lorentz";
  c.decoder.kernel = "hyperboloid_exp";
  c.decoder.init.lengthscale = 2.0;
  c.decoder.noise_variance = 0.1;
  c.free_latent_scale = 0.5;
  c.num_inducing = kInducing;
  c.inducing_init = InducingInit::random;
  c.psi_samples = 3;
  c.psi_noise = v.noise;
  c.seed = 9;
  c.reproducible_sums = reproducible;
  return c;
}

TrainerOptions options() {
  TrainerOptions o;
  o.batch_size = 100;
  o.epochs = 1000;
  o.max_steps = 60;
  o.adam.learning_rate = 2e-2;
  o.seed = 13;
  o.progress_seconds = 1e9;
  return o;
}

RowMatrix problem_data() {
  return testing::sample_gp_problem(EqArdKernel(1.0, (Vector(2) << 1.0, 0.6).finished()), 0.05, kRows, kDim,
                                    17)
      .Y;
}

double relative_difference(const ConstMatrixRef& a, const ConstMatrixRef& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

class LorentzSparseTraining : public ::testing::TestWithParam<Variant> {};

TEST_P(LorentzSparseTraining, TrainerEqualsOneProcessAndPointsStayOnTheSheet) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  for (const bool reproducible : {false, true}) {
    SCOPED_TRACE(reproducible ? "reproducible" : "per-rank sums");
    const SparseGplvmConfig c = lorentz_config(GetParam(), reproducible);
    const RowPartition partition(kRows, comm.size()), whole(kRows, 1);
    const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
    const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
    SparseGplvmModel model(c, kRows, begin, count), serial_model(c, kRows, 0, kRows);
    model.initialise_from_data(comm, partition, DataRef(local));
    serial_model.initialise_from_data(self, whole, DataRef(Y));
    const Trainer trainer(model, comm, partition, DataRef(local), options());
    const Trainer serial_trainer(serial_model, self, whole, DataRef(Y), options());
    TrainingState state = trainer.initial_state(), serial = serial_trainer.initial_state();
    const TrainRunStats stats = trainer.run(state);
    serial_trainer.run(serial);
    EXPECT_EQ(stats.steps, 60u) << stats.divergence;
    const Index shared = model.num_shared_parameters();
    const RowMatrix mine = model.local_block_rows(state.params);
    const RowMatrix reference = serial_model.local_block_rows(serial.params)
                                    .middleRows(static_cast<Index>(begin), static_cast<Index>(count));
    const RowMatrix start = model.local_block_rows(model.initial_parameters());
    const Matrix Z = model.inducing_inputs(state.params),
                 Z0 = model.inducing_inputs(model.initial_parameters());
    EXPECT_GT(comm.allreduce_sum((mine - start).squaredNorm()),
              1e-4 * comm.allreduce_sum(start.squaredNorm()));
    EXPECT_GT((Z - Z0).norm(), 1e-2 * Z0.norm());  // Z moved too
    if (reproducible) {
      EXPECT_TRUE(state.params.head(shared) == serial.params.head(shared));
      EXPECT_TRUE(mine == reference);
      EXPECT_TRUE(state.adam.first_moment.head(shared) == serial.adam.first_moment.head(shared));
    } else {
      EXPECT_LT(relative_difference(state.params.head(shared), serial.params.head(shared)), 1e-7);
      EXPECT_LT(relative_difference(mine, reference), 1e-7);
    }
    const Matrix points = mine.leftCols(kPointCols);
    EXPECT_EQ(lorentz::first_row_off_sheet(points, 1e-12), -1);
    EXPECT_EQ(lorentz::first_row_off_sheet(Z, 1e-12), -1);
    // The Riemannian first moments of Z are tangent at Z: <z, m>_L = 0 in the state's Z columns.
    const Eigen::Map<const Matrix> moments(state.adam.first_moment.data(), kInducing, kPointCols);
    ASSERT_GT(moments.norm(), 0.0);
    for (Index k = 0; k < kInducing; ++k)
      EXPECT_NEAR(lorentz::minkowski_dot(Z.row(k).transpose(), moments.row(k).transpose()), 0.0,
                  1e-10 * (1 + moments.row(k).norm() * Z.row(k).norm()))
          << k;
  }
}

// Z's Riemannian moments travel in the AdamState (as checkpoints and rollbacks carry it): a run
// stopped after 30 steps and continued from its state equals the uninterrupted one bit for bit,
// and the same continuation with Z's moments dropped does not.
TEST(LorentzSparseResume, ContinuedRunEqualsTheUninterruptedOneAndNeedsZsMoments) {
  const Communicator comm;
  const RowMatrix Y = problem_data();
  const SparseGplvmConfig c = lorentz_config({false, PsiNoise::fixed}, true);
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  SparseGplvmModel model(c, kRows, begin, count);
  model.initialise_from_data(comm, partition, DataRef(local));
  TrainerOptions half = options();
  half.max_steps = 30;
  const Trainer whole_trainer(model, comm, partition, DataRef(local), options());
  const Trainer half_trainer(model, comm, partition, DataRef(local), half);
  TrainingState whole = whole_trainer.initial_state(), first = half_trainer.initial_state();
  whole_trainer.run(whole);
  half_trainer.run(first);
  TrainingState forgetful = first;
  forgetful.adam.first_moment.head(kInducing * kPointCols).setZero();
  forgetful.adam.second_moment.head(kInducing * kPointCols).setZero();
  whole_trainer.run(first);
  whole_trainer.run(forgetful);
  EXPECT_EQ(first.step, 60u);
  EXPECT_TRUE(first.params == whole.params);
  EXPECT_FALSE(forgetful.params.head(kInducing * kPointCols) == whole.params.head(kInducing * kPointCols));
}

// model.fixed_hyperparameters = ["kappa"], as the hGP-LVM paper fixes kappa: after training, log
// kappa is bitwise its initial value and its Adam moments are zero, while the kernel variance, the
// noise and the points moved; at every rank count the same bits as one process under
// train.reproducible.
TEST_P(LorentzSparseTraining, FixedKappaKeepsItsInitialBitsWhileTheRestMoves) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  SparseGplvmConfig c = lorentz_config(GetParam(), true);
  c.decoder.fixed_hyperparameters = {"kappa"};
  const RowPartition partition(kRows, comm.size()), whole(kRows, 1);
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  SparseGplvmModel model(c, kRows, begin, count), serial_model(c, kRows, 0, kRows);
  model.initialise_from_data(comm, partition, DataRef(local));
  serial_model.initialise_from_data(self, whole, DataRef(Y));
  const Index log_variance = model.kernel_offset(), log_kappa = model.kernel_offset() + 1;
  ASSERT_EQ(model.fixed_parameter_indices(), std::vector<Index>{log_kappa});
  const Trainer trainer(model, comm, partition, DataRef(local), options());
  const Trainer serial_trainer(serial_model, self, whole, DataRef(Y), options());
  TrainingState state = trainer.initial_state(), serial = serial_trainer.initial_state();
  const Vector start = state.params;
  EXPECT_EQ(trainer.run(state).steps, 60u);
  serial_trainer.run(serial);
  EXPECT_EQ(state.params[log_kappa], start[log_kappa]);
  EXPECT_EQ(state.params[log_kappa], std::log(c.decoder.init.lengthscale));
  EXPECT_EQ(state.adam.first_moment[log_kappa], 0.0);
  EXPECT_EQ(state.adam.second_moment[log_kappa], 0.0);
  EXPECT_GT(std::abs(state.params[log_variance] - start[log_variance]), 1e-4);
  EXPECT_GT(std::abs(state.params[model.noise_offset()] - start[model.noise_offset()]), 1e-4);
  const Index shared = model.num_shared_parameters();
  EXPECT_TRUE(state.params.head(shared) == serial.params.head(shared));
}

// A name the kernel does not have is refused, naming the key and the name.
TEST(LorentzSparseFixedHyperparameters, UnknownNamesAreRefusedByKeyAndValue) {
  SparseGplvmConfig c = lorentz_config({false, PsiNoise::fixed}, false);
  c.decoder.fixed_hyperparameters = {"lengthscales"};
  try {
    SparseGplvmModel(c, kRows, 0, kRows);
    ADD_FAILURE() << "accepted a hyperparameter hyperboloid_exp does not have";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "model.fixed_hyperparameters");
    EXPECT_EQ(e.context().value, "lengthscales");
    EXPECT_NE(std::string(e.what()).find("log_kappa"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, LorentzSparseTraining,
                         ::testing::Values(Variant{false, PsiNoise::fixed}, Variant{true, PsiNoise::fixed},
                                           Variant{true, PsiNoise::fresh}));

}  // namespace
}  // namespace gplvm
