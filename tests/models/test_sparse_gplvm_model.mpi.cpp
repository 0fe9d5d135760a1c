// SparseGplvmModel with its rows split over 1-4 ranks (block partition) against the same model in
// one process (MPI_COMM_SELF, every row): the minibatch step and the full-batch objective must
// give every rank the serial value and shared gradient, and each rank its own rows' local
// gradient, to 1e-9 relative, at N = 600 (D = 8, M = 25) where another summation order shows.
// Also: the data-dependent start (PCA latents, k-means Z, optimal q(u)) agrees with the serial
// one, and a few full-batch L-BFGS iterations reach the serial parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "gplvm/core/keyed_permutation.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/train/full_batch_trainer.hpp"
#include "support/petsc_environment.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 600, kDim = 8, kBatch = 230;
constexpr double kTolerance = 1e-9;

struct Variant {
  bool bayesian;
  LatentKind latents;
};

std::string name_of(const Variant& v) {
  return std::string(v.bayesian ? "bayesian_" : "sparse_") + to_string(v.latents);
}

SparseGplvmConfig config_for(const Variant& v, SparseTraining training) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.bayesian = v.bayesian;
  c.latents = v.latents;
  c.encoder_hidden = {16};
  c.encoder_activation = Activation::tanh;
  c.decoder.init.lengthscale = v.latents == LatentKind::free ? 1.0 : 0.3;
  c.decoder.noise_variance = 0.1;
  c.num_inducing = 25;
  c.training = training;
  c.seed = 3;
  return c;
}

const RowMatrix& data() {
  static const RowMatrix Y =
      testing::sample_gp_problem(EqArdKernel(1.0, (Vector(2) << 1.0, 0.6).finished()), 0.05, kRows, kDim, 21)
          .Y;
  return Y;
}

double relative(const ConstVectorRef& a, const ConstVectorRef& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// The serial model (every row in this process) and this rank's share of the same model.
struct Pair {
  Communicator world, self{MPI_COMM_SELF};
  RowPartition partition{kRows, world.size()}, whole{kRows, 1};
  std::uint64_t begin = partition.begin(world.rank()), count = partition.count(world.rank());
  RowMatrix local = data().middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  SparseGplvmModel serial, distributed;

  Pair(const Variant& v, SparseTraining training)
      : serial(config_for(v, training), kRows, 0, kRows),
        distributed(config_for(v, training), kRows, begin, count) {
    serial.initialise_from_data(self, whole, DataRef(data()));
    distributed.initialise_from_data(world, partition, DataRef(local));
  }

  // Serial parameters, moved off the optimum, and this rank's view of them. Amortised latents start
  // close together (small initial encoders), and so does Z chosen among them: a 5 x 5 grid at
  // about the lengthscale's spacing instead keeps K_ZZ conditioned well enough that 1e-9 measures
  // the reduction, not rounding amplified by K_ZZ^{-1} m in the uncollapsed bound.
  Vector serial_parameters() const {
    Vector p = serial.initial_parameters();
    p += 0.02 * testing::random_normal(p.size(), 1, 9);
    if (serial.latents() == LatentKind::amortised)
      for (Index i = 0; i < 25; ++i) {
        p[i] = -0.8 + 0.4 * static_cast<double>(i % 5);
        p[25 + i] = -0.8 + 0.4 * static_cast<double>(i / 5);
      }
    return p;
  }
  Vector local_view(const Vector& serial_params) const { return restrict(serial_params); }
  Vector restrict(const Vector& v) const {
    const Index shared = serial.num_shared_parameters(), per_row = serial.local_values_per_row();
    Vector out(distributed.num_parameters());
    out.head(shared) = v.head(shared);
    RowMatrix rows =
        serial.local_block_rows(v).middleRows(static_cast<Index>(begin), static_cast<Index>(count));
    if (per_row > 0) distributed.set_local_block_rows(out, rows);
    return out;
  }

  void expect_same_gradient(const Vector& distributed_gradient, const Vector& serial_gradient) const {
    const Index shared = serial.num_shared_parameters();
    const Vector expected = restrict(serial_gradient);
    EXPECT_LT(relative(distributed_gradient.head(shared), expected.head(shared)), kTolerance);
    const Index local = distributed.num_parameters() - shared;
    // This rank's rows against the serial gradient's scale over all rows.
    const Index serial_local = serial.num_parameters() - shared;
    if (local > 0) {
      EXPECT_LE((distributed_gradient.tail(local) - expected.tail(local)).norm(),
                kTolerance * serial_gradient.tail(serial_local).norm());
    }
  }
};

class DistributedSparseModel : public ::testing::TestWithParam<Variant> {};

TEST_P(DistributedSparseModel, StartMatchesSerial) {
  const Pair p(GetParam(), SparseTraining::minibatch);
  const Vector a = p.distributed.initial_parameters(), b = p.restrict(p.serial.initial_parameters());
  // Z (k-means on PCA latents that differ by rounding) and q(u) (statistics summed in another
  // order): equal to rounding, with every assignment the same.
  EXPECT_LT(relative(a.head(p.serial.num_shared_parameters()), b.head(p.serial.num_shared_parameters())),
            1e-8);
  if (GetParam().latents == LatentKind::free) {
    EXPECT_LT(relative(a.tail(a.size() - p.serial.num_shared_parameters()),
                       b.tail(b.size() - p.serial.num_shared_parameters())),
              1e-8);
  }
}

TEST_P(DistributedSparseModel, MinibatchStepMatchesSerial) {
  const Pair p(GetParam(), SparseTraining::minibatch);
  const Vector params = p.serial_parameters();
  // A batch spread over every rank's rows, in shuffled order.
  const KeyedPermutation permutation(kRows, 7, 0);
  std::vector<std::uint64_t> batch(kBatch);
  for (Index i = 0; i < kBatch; ++i) batch[i] = permutation(static_cast<std::uint64_t>(i));
  Vector serial_gradient, distributed_gradient;
  const BatchTerms s = p.serial.make_step(p.self, p.whole, DataRef(data()))
                           ->evaluate(params, batch, {}, serial_gradient, nullptr, nullptr);
  const BatchTerms d =
      p.distributed.make_step(p.world, p.partition, DataRef(p.local))
          ->evaluate(p.local_view(params), batch, {}, distributed_gradient, nullptr, nullptr);
  EXPECT_LT(std::abs(d.objective - s.objective), kTolerance * std::abs(s.objective));
  EXPECT_LT(std::abs(d.kl - s.kl), kTolerance * std::max(1.0, std::abs(s.kl)));
  p.expect_same_gradient(distributed_gradient, serial_gradient);
}

TEST_P(DistributedSparseModel, FullBatchObjectiveMatchesSerial) {
  const Pair p(GetParam(), SparseTraining::full_batch);
  const Vector params = p.serial_parameters();
  Vector serial_gradient, distributed_gradient;
  const double s =
      p.serial.make_full_batch_objective(p.self, p.whole, DataRef(data()))->evaluate(params, serial_gradient);
  const double d = p.distributed.make_full_batch_objective(p.world, p.partition, DataRef(p.local))
                       ->evaluate(p.local_view(params), distributed_gradient);
  EXPECT_LT(std::abs(d - s), kTolerance * std::abs(s));
  p.expect_same_gradient(distributed_gradient, serial_gradient);
}

// The generic L-BFGS trainer: its distributed vector (shared block on rank 0, local blocks on
// their owners) follows the serial path, to rounding amplified over a few iterations.
TEST_P(DistributedSparseModel, FewFullBatchIterationsFollowSerial) {
  const Pair p(GetParam(), SparseTraining::full_batch);
  FullBatchOptions options;
  options.max_iterations = 5;
  options.gatol = options.grtol = 0;
  const Vector start = p.serial.initial_parameters();
  const auto serial_objective = p.serial.make_full_batch_objective(p.self, p.whole, DataRef(data()));
  const auto distributed_objective =
      p.distributed.make_full_batch_objective(p.world, p.partition, DataRef(p.local));
  const FullBatchResult s = train_full_batch(p.serial, *serial_objective, p.self, start, options);
  const FullBatchResult d =
      train_full_batch(p.distributed, *distributed_objective, p.world, p.local_view(start), options);
  EXPECT_EQ(d.iterations, s.iterations);
  EXPECT_GT(s.objective, s.curve.front());
  EXPECT_LT(std::abs(d.objective - s.objective), 1e-7 * std::abs(s.objective));
  EXPECT_LT(relative(d.params, p.restrict(s.params)), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Variants, DistributedSparseModel,
                         ::testing::Values(Variant{false, LatentKind::free}, Variant{true, LatentKind::free},
                                           Variant{false, LatentKind::amortised},
                                           Variant{true, LatentKind::amortised}),
                         [](const auto& info) { return name_of(info.param); });

// One PETSc session for the binary, between MPI_Init and MPI_Finalize (inside RUN_ALL_TESTS).
const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace
}  // namespace gplvm
