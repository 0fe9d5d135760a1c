// Full-batch exact GPLVM training (TAO L-BFGS on the ScaLAPACK objective) and its PCA
// initialisation, under mpirun at 1-4 ranks: the flat objective's gradient against finite
// differences, a training run on GP-sampled data (monotone LML, convergence on the tolerance, the
// returned LML equal to the dense serial objective, agreement with a one-rank run), and PCA
// latents against the known subspace and the serial computation.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/objectives/gp_marginal.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/exact_trainer.hpp"
#include "support/petsc_environment.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::max_relative_error;
using testing::random_normal;

// This rank's rows of Y in the training code's layout.
DataRef local_rows(const RowMatrix& Y, const RowPartition& part, int rank) {
  return Y.middleRows(static_cast<Index>(part.begin(rank)), static_cast<Index>(part.count(rank)));
}

// Data drawn from the model at known 2-D latents.
RowMatrix gp_data(const Matrix& X, Index d, double noise, std::uint64_t seed) {
  const EqArdKernel kernel(1.0, (Vector(2) << 0.9, 1.3).finished());
  return sample_gp_outputs(kernel, noise, X, d, CounterRng(seed), 0);
}

// Every rank's slice concatenated in rank order: the global parameter vector.
Vector gather(const Communicator& comm, const Vector& local) {
  return comm.allgather_rows(ConstMatrixRef(local)).col(0);
}

// Where this rank's slice starts in the global vector.
Index slice_offset(const Communicator& comm, Index local_size) {
  std::vector<double> sizes(comm.size(), 0.0);
  sizes[comm.rank()] = static_cast<double>(local_size);
  comm.allreduce_sum(sizes.data(), comm.size());
  Index offset = 0;
  for (int r = 0; r < comm.rank(); ++r) offset += static_cast<Index>(sizes[r]);
  return offset;
}

TEST(ExactGplvmObjective, GradientMatchesFiniteDifferencesInTheGlobalLayout) {
  const Communicator comm;
  const Index n = 17, d = 3;
  const Matrix X = random_normal(n, 2, 11);
  const RowMatrix Y = gp_data(X, d, 0.05, 12);
  const RowPartition part(n, comm.size());
  ExactDistributedOptions gp;
  gp.block_size = 4;  // several blocks per rank, not dividing N
  const EqArdKernel kernel(0.7, (Vector(2) << 0.8, 1.2).finished());
  ExactGplvmObjective objective(kernel, local_rows(Y, part, comm.rank()), part, comm, gp);
  ASSERT_EQ(objective.num_shared(), 4);

  const Matrix X0 = X.middleRows(part.begin(comm.rank()), part.count(comm.rank())) * 0.8;
  const Vector x = objective.pack(X0, kernel.hyperparameters(), 0.2);
  Vector g(x.size());
  const double f = objective(x, g);
  EXPECT_NEAR(f, -exact_log_marginal_likelihood(kernel, 0.2, X * 0.8, Y, false).value, 1e-10 * std::abs(f));

  // Central differences over the global vector [log theta, log l1, log l2, log s2, X row-major];
  // the owner of entry j perturbs it, every rank evaluates.
  const Vector global_gradient = gather(comm, g);
  const Index total = global_gradient.size();
  ASSERT_EQ(total, 4 + n * 2);
  const Index offset = slice_offset(comm, x.size());
  Vector fd(total), scratch(x.size());
  const double h = 1e-5;
  for (Index j = 0; j < total; ++j) {
    Vector xp = x, xm = x;
    if (j >= offset && j < offset + x.size()) xp[j - offset] += h, xm[j - offset] -= h;
    fd[j] = (objective(xp, scratch) - objective(xm, scratch)) / (2 * h);
  }
  EXPECT_LT(max_relative_error(global_gradient, fd), 1e-6);
  // The global layout: the gathered latent block is X0 row-major, whatever the rank count.
  const Vector global_x = gather(comm, x);
  const Matrix all = X * 0.8;
  for (Index i = 0; i < n; ++i)
    for (Index q = 0; q < 2; ++q) EXPECT_EQ(global_x[4 + i * 2 + q], all(i, q));
}

struct TrainedModel {
  ExactTrainingResult result;
  Matrix latents;  // all N rows
  double initial_lml = 0;
};

constexpr Index kN = 90, kD = 6;

ExactTrainingOptions training_options() {
  ExactTrainingOptions o;
  o.decoder.init.variance = 1.0;
  o.decoder.init.lengthscale = 1.0;
  o.decoder.noise_variance = 0.1;
  o.gatol = 1e-6;  // tight enough that runs at different rank counts agree to ~1e-8
  o.grtol = 0;
  o.max_iterations = 3000;
  o.gp.block_size = 16;
  return o;
}

TrainedModel train_on(const Communicator& comm, const RowMatrix& Y) {
  const RowPartition part(Y.rows(), comm.size());
  const DataRef Y_local = local_rows(Y, part, comm.rank());
  const Matrix initial = pca_latents(Y_local, part, comm, 2);
  TrainedModel model;
  model.result = train_exact_gplvm(Y_local, part, comm, initial, training_options());
  model.latents = comm.allgather_rows(ConstMatrixRef(model.result.latents));
  return model;
}

class ExactTraining : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    X_true_ = random_normal(kN, 2, 21);
    Y_ = gp_data(X_true_, kD, 0.01, 22);
    model_ = std::make_unique<TrainedModel>(train_on(Communicator(), Y_));
  }
  static void TearDownTestSuite() { model_.reset(); }
  static Matrix X_true_;
  static RowMatrix Y_;
  static std::unique_ptr<TrainedModel> model_;
};
Matrix ExactTraining::X_true_;
RowMatrix ExactTraining::Y_;
std::unique_ptr<TrainedModel> ExactTraining::model_;

TEST_F(ExactTraining, LmlIncreasesMonotonicallyAndTaoStopsOnItsTolerance) {
  const ExactTrainingResult& r = model_->result;
  const std::vector<double>& curve = r.lml_curve;
  ASSERT_EQ(curve.size(), static_cast<size_t>(r.iterations) + 1);
  for (size_t k = 1; k < curve.size(); ++k)
    EXPECT_GE(curve[k], curve[k - 1] - 1e-10 * std::abs(curve[k - 1])) << "iteration " << k;
  EXPECT_EQ(curve.back(), r.log_marginal_likelihood);
  EXPECT_GT(r.log_marginal_likelihood - curve.front(), 100.0);
  EXPECT_TRUE(r.converged) << to_string(r.reason);
  EXPECT_EQ(r.reason, TaoStopReason::gradient_absolute) << to_string(r.reason);
  EXPECT_LT(r.iterations, training_options().max_iterations);
  EXPECT_LE(r.gradient_norm, training_options().gatol);
  EXPECT_GE(r.noise_variance, training_options().min_noise_variance);
  if (Communicator().is_root())
    std::printf(
        "exact training, %d ranks: LML %.6f -> %.6f in %d iterations (%lld evaluations), "
        "|g| %.2e, noise %.4g, theta %.4g, l = (%.4g, %.4g), stop: %s\n",
        Communicator().size(), curve.front(), r.log_marginal_likelihood, r.iterations,
        static_cast<long long>(r.evaluations), r.gradient_norm, r.noise_variance,
        std::exp(r.kernel->hyperparameters()[0]), std::exp(r.kernel->hyperparameters()[1]),
        std::exp(r.kernel->hyperparameters()[2]), to_string(r.reason).c_str());
}

TEST_F(ExactTraining, ReturnedLmlIsTheDenseSerialObjectiveAtTheReturnedParameters) {
  const ExactTrainingResult& r = model_->result;
  const double dense =
      exact_log_marginal_likelihood(*r.kernel, r.noise_variance, model_->latents, Y_, false).value;
  EXPECT_NEAR(r.log_marginal_likelihood, dense, 1e-9 * std::abs(dense));
  // Every rank returns the same model.
  const Communicator comm;
  EXPECT_EQ(comm.allreduce_max(r.log_marginal_likelihood), -comm.allreduce_max(-r.log_marginal_likelihood));
  EXPECT_EQ(comm.allreduce_max(r.noise_variance), -comm.allreduce_max(-r.noise_variance));
}

// What the model determines: with u_q = x_q / l_q the EQ-ARD kernel is theta exp(-|u - u'|^2 / 2),
// so the objective is invariant to scaling latent column q together with l_q, and to translating
// and rotating the scaled latents u. Runs are compared on the invariants: the LML, the noise and
// the kernel matrix k(X, X) (which fixes theta and every scaled distance |u_i - u_j|).
TEST_F(ExactTraining, AgreesWithAOneRankRun) {
  // Rank 0 trains alone on MPI_COMM_SELF and broadcasts its kernel matrix. Another rank count
  // changes only the rounding of the reductions; L-BFGS carries that along its path, so the runs
  // take slightly different iterations (and drift apart along the symmetries), but they must reach
  // the same optimum.
  const Communicator comm;
  const ExactTrainingResult& r = model_->result;
  Matrix K_serial(kN, kN);
  double reference[2] = {0, 0};
  if (comm.is_root()) {
    const TrainedModel serial = train_on(Communicator(MPI_COMM_SELF), Y_);
    reference[0] = serial.result.log_marginal_likelihood;
    reference[1] = serial.result.noise_variance;
    serial.result.kernel->cross(serial.latents, serial.latents, K_serial);
  }
  comm.broadcast(reference, 2, 0);
  comm.broadcast(K_serial.data(), K_serial.size(), 0);
  Matrix K;
  r.kernel->cross(model_->latents, model_->latents, K);
  const double lml_error = std::abs(r.log_marginal_likelihood - reference[0]) / std::abs(reference[0]);
  const double noise_error = std::abs(r.noise_variance - reference[1]) / reference[1];
  const double kernel_error = (K - K_serial).cwiseAbs().maxCoeff() / K_serial.cwiseAbs().maxCoeff();
  EXPECT_LT(lml_error, 1e-9);
  EXPECT_LT(noise_error, 1e-6);
  EXPECT_LT(kernel_error, 1e-6);
  if (comm.is_root())
    std::printf("vs one-rank run (relative): LML %.2e, noise %.2e, kernel matrix %.2e\n", lml_error,
                noise_error, kernel_error);
}

TEST(ExactTrainingInput, BadOptionsAndShapesAreInputErrorsOnEveryRank) {
  const Communicator comm;
  const Index n = 12;
  const RowMatrix Y = gp_data(random_normal(n, 2, 31), 3, 0.1, 32);
  const RowPartition part(n, comm.size());
  const DataRef Y_local = local_rows(Y, part, comm.rank());
  const Matrix latents = Matrix::Zero(part.count(comm.rank()), 2);
  ExactTrainingOptions low_noise;
  low_noise.decoder.noise_variance = 1e-8;
  EXPECT_THROW(train_exact_gplvm(Y_local, part, comm, latents, low_noise), InputError);
  // One rank passes one latent row too many.
  const Matrix wrong = Matrix::Zero(part.count(comm.rank()) + (comm.rank() == comm.size() - 1), 2);
  try {
    train_exact_gplvm(Y_local, part, comm, wrong);
    ADD_FAILURE() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("initial latent rows"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// PCA

TEST(PcaLatents, SpanTheLatentSubspaceOfRankTwoDataAndMatchTheSerialComputation) {
  const Communicator comm;
  const Index n = 61, d = 7;
  const Matrix X = random_normal(n, 2, 41);
  const Matrix W = random_normal(d, 2, 42);
  const Vector offset = random_normal(d, 1, 43).col(0) * 10.0;  // a mean far from zero
  const RowMatrix Y = (X * W.transpose()).rowwise() + offset.transpose();
  const RowPartition part(n, comm.size());
  const Matrix Z_local = pca_latents(local_rows(Y, part, comm.rank()), part, comm, 2);
  ASSERT_EQ(Z_local.rows(), static_cast<Index>(part.count(comm.rank())));
  const Matrix Z = comm.allgather_rows(ConstMatrixRef(Z_local));

  // Unit variance, uncorrelated, centred.
  EXPECT_LT((Z.transpose() * Z / static_cast<double>(n) - Matrix::Identity(2, 2)).norm(), 1e-10);
  EXPECT_LT(Z.colwise().sum().norm(), 1e-9);
  // The centred true latents are a linear function of Z: least-squares residual ~ 0.
  const Matrix Xc = X.rowwise() - X.colwise().mean();
  const Matrix B = (Z.transpose() * Z).ldlt().solve(Z.transpose() * Xc);
  EXPECT_LT((Xc - Z * B).norm() / Xc.norm(), 1e-10);
  // The same as the serial computation on one process, row for row.
  const Matrix serial = pca_latents(Y, RowPartition(n, 1), Communicator(MPI_COMM_SELF), 2);
  EXPECT_LT((Z - serial).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(PcaLatents, MoreDimensionsThanTheDataSupportAreAnInputError) {
  const Communicator comm;
  const Index n = 20, d = 5;
  const RowMatrix Y = random_normal(n, 2, 51) * random_normal(d, 2, 52).transpose();  // rank 2
  const RowPartition part(n, comm.size());
  const DataRef Y_local = local_rows(Y, part, comm.rank());
  EXPECT_THROW(pca_latents(Y_local, part, comm, 3), InputError);
  EXPECT_THROW(pca_latents(Y_local, part, comm, 6), InputError);
  EXPECT_THROW(pca_latents(Y_local, part, comm, 0), InputError);
  EXPECT_NO_THROW(pca_latents(Y_local, part, comm, 2));
}

TEST(PcaLatents, RanksWithoutRowsTakePartAndGetNone) {
  const Communicator comm;
  const Index n = 3;  // at 4 ranks, rank 3 owns no row
  const RowMatrix Y = random_normal(n, 4, 61);
  const RowPartition part(n, comm.size());
  const Matrix Z_local = pca_latents(local_rows(Y, part, comm.rank()), part, comm, 2);
  ASSERT_EQ(Z_local.rows(), static_cast<Index>(part.count(comm.rank())));
  const Matrix Z = comm.allgather_rows(ConstMatrixRef(Z_local));
  const Matrix serial = pca_latents(Y, RowPartition(n, 1), Communicator(MPI_COMM_SELF), 2);
  EXPECT_LT((Z - serial).cwiseAbs().maxCoeff(), 1e-12);
}

// One PETSc session for the binary, between MPI_Init and MPI_Finalize (inside RUN_ALL_TESTS).
const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace
}  // namespace gplvm
