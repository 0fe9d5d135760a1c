// The exact GPLVM (ScaLAPACK) refuses train.reproducible: its reductions (pdpotrf's trailing
// updates, pdpotri, pdsyrk, the gradient's allreduce) are ScaLAPACK's and PBLAS's, and their order
// follows the process grid, 1 x P by default. This bounds how far the results at 2-4 ranks are
// from the same computation on one rank inside the test (MPI_COMM_SELF on rank 0, broadcast), at
// N = 500: one evaluation of the objective and its gradient, and 25 L-BFGS iterations from the PCA
// start. The bounds are the measured drift with a margin (docs/reliability.md); a wrong reduction
// would show at 1e-3 or more.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/models/exact_gplvm_objective.hpp"
#include "gplvm/models/pca_latents.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/train/exact_trainer.hpp"
#include "support/petsc_environment.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 500, kDim = 5, kIterations = 25;
// Largest |difference| over the largest |value| at 2, 3, 4 ranks, measured: one evaluation
// (objective and gradient) 6.1e-15, 3.3e-15, 2.5e-15; after 25 L-BFGS iterations (hyperparameters,
// noise, latents) 6.1e-13, 1.0e-12, 1.6e-12 (and 3.7e-11, 3.5e-11, 3.2e-11 after 40 at N = 600:
// the drift grows along the path). Bounded about ten and sixty times above.
constexpr double kEvaluationBound = 1e-13, kTrainingBound = 1e-10;

RowMatrix gp_data() {
  const Matrix X = testing::random_normal(kRows, 2, 41);
  const EqArdKernel kernel(1.0, (Vector(2) << 0.9, 1.3).finished());
  return sample_gp_outputs(kernel, 0.05, X, kDim, CounterRng(42), 0);
}

DataRef local_rows(const RowMatrix& Y, const RowPartition& part, int rank) {
  return Y.middleRows(static_cast<Index>(part.begin(rank)), static_cast<Index>(part.count(rank)));
}

double relative_drift(const Vector& mine, const Vector& reference) {
  return (mine - reference).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
}

// [objective, global gradient] at the PCA latents.
Vector one_evaluation(const Communicator& comm, const RowMatrix& Y) {
  const RowPartition part(kRows, comm.size());
  const DataRef local = local_rows(Y, part, comm.rank());
  const EqArdKernel kernel(0.8, (Vector(2) << 1.1, 0.9).finished());
  ExactDistributedOptions gp;
  gp.block_size = 32;  // several blocks per rank
  ExactGplvmObjective objective(kernel, local, part, comm, gp);
  const Vector x = objective.pack(pca_latents(local, part, comm, 2), kernel.hyperparameters(), 0.1);
  Vector g(x.size());
  const double f = objective(x, g);
  const Vector global = comm.allgather_rows(ConstMatrixRef(g)).col(0);
  Vector out(global.size() + 1);
  out << f, global;
  return out;
}

// [log hyperparameters, log noise, latents row-major] after kIterations L-BFGS iterations.
Vector trained(const Communicator& comm, const RowMatrix& Y) {
  const RowPartition part(kRows, comm.size());
  const DataRef local = local_rows(Y, part, comm.rank());
  ExactTrainingOptions o;
  o.gatol = 0;
  o.grtol = 0;
  o.max_iterations = kIterations;
  o.gp.block_size = 32;
  const ExactTrainingResult r = train_exact_gplvm(local, part, comm, pca_latents(local, part, comm, 2), o);
  const RowMatrix latents = comm.allgather_rows(ConstMatrixRef(r.latents));
  const Vector h = r.kernel->hyperparameters();
  Vector out(h.size() + 1 + latents.size());
  out << h, std::log(r.noise_variance), latents.reshaped<Eigen::RowMajor>();
  return out;
}

template <typename Compute>
double drift_from_one_rank(const Compute& compute, const RowMatrix& Y) {
  const Communicator comm;
  const Vector mine = compute(comm, Y);
  Vector reference(mine.size());
  if (comm.is_root()) reference = compute(Communicator(MPI_COMM_SELF), Y);
  comm.broadcast(reference.data(), reference.size());
  EXPECT_TRUE(mine.allFinite());
  return relative_drift(mine, reference);
}

TEST(ExactRankCountDrift, OneEvaluationStaysWithinTheMeasuredBoundOfOneRank) {
  const RowMatrix Y = gp_data();
  const double drift = drift_from_one_rank(one_evaluation, Y);
  if (Communicator().is_root())
    std::printf("one evaluation, relative drift at %d ranks: %.3g\n", Communicator().size(), drift);
  EXPECT_LE(drift, kEvaluationBound);
}

TEST(ExactRankCountDrift, TwentyFiveIterationsStayWithinTheMeasuredBoundOfOneRank) {
  const RowMatrix Y = gp_data();
  const double drift = drift_from_one_rank(trained, Y);
  if (Communicator().is_root())
    std::printf("%ld L-BFGS iterations, relative drift at %d ranks: %.3g\n", static_cast<long>(kIterations),
                Communicator().size(), drift);
  EXPECT_LE(drift, kTrainingBound);
}

// One PETSc session for the binary, between MPI_Init and MPI_Finalize (inside RUN_ALL_TESTS).
const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace
}  // namespace gplvm
