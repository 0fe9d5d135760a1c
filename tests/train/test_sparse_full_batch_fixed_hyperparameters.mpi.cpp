// model.fixed_hyperparameters with sparse.training = "full_batch", at 1-4 ranks, for the sparse and
// Bayesian GPLVMs: on euclidean (TAO's L-BFGS, eq_ard's variance held) and on lorentz (Riemannian
// Adam and the paper's accept/reject ascent, hyperboloid_exp's kappa held) the held entry keeps its
// initial bits over the run while the other hyperparameters and the noise move, and the run is the
// same bits as one process under train.reproducible. The same run without the key moves the entry,
// so the held bits are the key's doing. N = 203 is not divisible by 2, 3 or 4.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/train/full_batch_trainer.hpp"
#include "gplvm/train/riemannian_full_batch_trainer.hpp"
#include "support/petsc_environment.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 203, kDim = 5, kInducing = 15;

enum class Path { lbfgs, riemannian_adam, paper_gd };

SparseGplvmConfig full_batch_config(bool bayesian, Path path, bool reproducible, bool hold) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.bayesian = bayesian;
  c.latents = LatentKind::free;
  c.decoder.noise_variance = 0.1;
  c.num_inducing = kInducing;
  c.training = SparseTraining::full_batch;
  c.seed = 9;
  c.reproducible_sums = reproducible;
  if (path == Path::lbfgs) {
    c.decoder.kernel = "eq_ard";
    c.decoder.init.lengthscale = 1.0;
    c.decoder.init.variance = 1.5;  // log 1.5 != 0: a held value with bits to lose
    if (hold) c.decoder.fixed_hyperparameters = {"variance"};
  } else {
    c.latent_space = "lorentz";
    c.decoder.kernel = "hyperboloid_exp";
    c.decoder.init.lengthscale = 2.0;
    c.free_latent_scale = 0.5;
    c.inducing_init = InducingInit::random;
    c.psi_samples = 3;
    if (hold) c.decoder.fixed_hyperparameters = {"kappa"};
  }
  return c;
}

RowMatrix problem_data() {
  return testing::sample_gp_problem(EqArdKernel(1.0, (Vector(2) << 1.0, 0.6).finished()), 0.05, kRows, kDim,
                                    17)
      .Y;
}

struct TrainedRun {
  Vector start, end;
  Index held = 0;           // the held entry's index (kernel_offset for variance, + 1 for kappa)
  Index kernel_offset = 0;  // the kernel's log-hyperparameters follow
  Index kernel_size = 0;
  Index noise = 0;
  Index shared = 0;
};

TrainedRun train(const Communicator& comm, const RowMatrix& Y, const SparseGplvmConfig& c, Path path) {
  const RowPartition partition(kRows, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const RowMatrix local = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  SparseGplvmModel model(c, kRows, begin, count);
  model.initialise_from_data(comm, partition, DataRef(local));
  const auto objective = model.make_full_batch_objective(comm, partition, DataRef(local));
  TrainedRun r;
  r.start = model.initial_parameters();
  r.kernel_offset = model.kernel_offset();
  r.kernel_size = model.noise_offset() - model.kernel_offset();
  r.held = model.kernel_offset() + (path == Path::lbfgs ? 0 : 1);
  r.noise = model.noise_offset();
  r.shared = model.num_shared_parameters();
  if (path == Path::lbfgs) {
    FullBatchOptions o;
    o.max_iterations = 25;
    o.gatol = o.grtol = 0;
    o.replicated = c.reproducible_sums;
    r.end = train_full_batch(model, *objective, comm, r.start, o).params;
  } else {
    RiemannianFullBatchOptions o;
    o.method = path == Path::riemannian_adam ? RiemannianMethod::adam : RiemannianMethod::paper_gd;
    o.adam.learning_rate = path == Path::riemannian_adam ? 2e-2 : 1e-2;
    o.tolerance = 0;
    o.max_iterations = 12;
    r.end = train_full_batch_riemannian(model, *objective, comm, r.start, o).params;
  }
  return r;
}

struct Case {
  bool bayesian;
  Path path;
};
std::string case_name(const Case& v) {
  const char* path = v.path == Path::lbfgs             ? "lbfgs"
                     : v.path == Path::riemannian_adam ? "riemannian_adam"
                                                       : "paper_gd";
  return std::string(v.bayesian ? "bayesian_gplvm_" : "sparse_gplvm_") + path;
}
void PrintTo(const Case& v, std::ostream* os) {
  *os << case_name(v);
}

// One PETSc session for the binary, between MPI_Init and MPI_Finalize (inside RUN_ALL_TESTS).
const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

class FullBatchFixedHyperparameters : public ::testing::TestWithParam<Case> {};

TEST_P(FullBatchFixedHyperparameters, HeldEntryKeepsItsBitsWhileTheRestMoves) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  const Case v = GetParam();
  for (const bool reproducible : {false, true}) {
    SCOPED_TRACE(reproducible ? "reproducible" : "per-rank sums");
    const TrainedRun r = train(comm, Y, full_batch_config(v.bayesian, v.path, reproducible, true), v.path);
    EXPECT_EQ(r.end[r.held], r.start[r.held]);
    EXPECT_TRUE(std::signbit(r.end[r.held]) == std::signbit(r.start[r.held]));
    for (Index i = r.kernel_offset; i < r.kernel_offset + r.kernel_size; ++i)
      if (i != r.held) {
        EXPECT_GT(std::abs(r.end[i] - r.start[i]), 1e-4) << "hyperparameter " << i;
      }
    EXPECT_GT(std::abs(r.end[r.noise] - r.start[r.noise]), 1e-4);
    if (reproducible && comm.size() > 1) {
      const TrainedRun one = train(self, Y, full_batch_config(v.bayesian, v.path, true, true), v.path);
      EXPECT_TRUE(r.end.head(r.shared) == one.end.head(one.shared));
    }
  }
  // Not held, the same entry moves: the optimiser would change it.
  const TrainedRun free = train(comm, Y, full_batch_config(v.bayesian, v.path, true, false), v.path);
  EXPECT_GT(std::abs(free.end[free.held] - free.start[free.held]), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Paths, FullBatchFixedHyperparameters,
                         ::testing::Values(Case{false, Path::lbfgs}, Case{true, Path::lbfgs},
                                           Case{false, Path::riemannian_adam},
                                           Case{true, Path::riemannian_adam}, Case{false, Path::paper_gd},
                                           Case{true, Path::paper_gd}),
                         [](const auto& info) { return case_name(info.param); });

}  // namespace
}  // namespace gplvm
