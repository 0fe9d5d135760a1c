// The exact model with the linear basepoint on the sphere (model.kind = "exact",
// model.basepoint = "linear") under mpirun at 1-4 ranks: its full-batch objective and gradient
// (kernel, noise, A, every rank's latents) against the serial dense objective
// (objectives/wrapped_linear_basepoint) evaluated in the data's own frame at a random mu0, and a
// few L-BFGS iterations from A = 0 on data drawn around a moving basepoint: the objective
// increases, A moves away from 0, and the result is the same at every rank count.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/manifold/sphere_manifold.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/models/exact_gplvm_model.hpp"
#include "gplvm/objectives/wrapped_linear_basepoint.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/full_batch_trainer.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::random_normal;

constexpr Index kTangentDim = 3;  // S^3
constexpr Index kLatentDim = 2;

ExactGplvmConfig linear_config() {
  ExactGplvmConfig c;
  SasModelConfig& m = c.base;
  m.data_dim = kTangentDim;
  m.latent_dim = kLatentDim;
  m.latents = LatentKind::free;
  m.decoder.kernel = "eq_ard";
  m.decoder.init.variance = 0.5;
  m.decoder.init.lengthscale = 1.2;
  m.decoder.noise_variance = 0.05;
  m.seed = 3;
  c.linear_basepoint = true;
  c.gp.block_size = 4;  // several ScaLAPACK blocks per rank, not dividing N
  return c;
}

// Points of S^3 around a moving basepoint: m(x) = Exp_mu0(B0 A x) with A != 0, tangent
// coordinates at m(x) a smooth function of x plus noise; the chart at a random mu0.
struct SphereData {
  TangentChart chart;
  Matrix X;           // N x Q, the latents that drew them
  RowMatrix points;   // N x 4, the data's frame
  RowMatrix tangent;  // N x 3, the chart's coordinates at mu0 (what the model is given)
  Matrix true_map;    // A
};

SphereData sphere_data(Index n) {
  SphereData d;
  const auto sphere = std::make_shared<const SphereManifold>(kTangentDim + 1);
  const Vector mu0 = random_normal(kTangentDim + 1, 1, 11).col(0).normalized();
  d.chart = TangentChart::at(sphere, mu0);
  d.X = random_normal(n, kLatentDim, 12);
  d.true_map = 0.5 * random_normal(kTangentDim, kLatentDim, 13);
  const SphereLinearBasepoint truth(d.chart.basepoint, d.chart.basis, d.true_map);
  const RowMatrix noise = random_normal(n, kTangentDim, 14);
  d.points.resize(n, kTangentDim + 1);
  for (Index j = 0; j < n; ++j) {
    const double x0 = d.X(j, 0), x1 = d.X(j, 1);
    const Vector c =
        0.2 * Vector{{std::sin(x0), std::cos(x1), std::sin(x0 + x1)}} + 0.05 * noise.row(j).transpose();
    d.points.row(j) = truth.point(d.X.row(j).transpose(), c).transpose();
  }
  d.tangent = d.chart.coordinates(d.points);
  return d;
}

struct LocalModel {
  RowPartition partition;
  RowMatrix rows;
  std::unique_ptr<ExactGplvmModel> model;
};

LocalModel local_model(const Communicator& comm, const RowMatrix& tangent) {
  const RowPartition part(static_cast<std::uint64_t>(tangent.rows()), comm.size());
  const auto begin = static_cast<Index>(part.begin(comm.rank())),
             count = static_cast<Index>(part.count(comm.rank()));
  LocalModel m{part, tangent.middleRows(begin, count), nullptr};
  m.model = std::make_unique<ExactGplvmModel>(linear_config(), tangent.rows(), part.begin(comm.rank()),
                                              part.count(comm.rank()));
  return m;
}

double relative(const Matrix& a, const Matrix& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

TEST(LinearBasepointExactObjective, EqualsTheSerialObjectiveInTheDataFrameAtAnyRankCount) {
  const Communicator comm;
  const Index n = 14;
  const SphereData d = sphere_data(n);
  LocalModel m = local_model(comm, d.tangent);
  const ExactGplvmModel& model = *m.model;
  const Index shared = model.num_shared_parameters(), h = 3;  // eq_ard: variance, 2 lengthscales
  ASSERT_EQ(shared, h + 1 + kTangentDim * kLatentDim);
  // Parameters away from the start: latents, hyperparameters and A of their own.
  Vector params = model.initial_parameters();
  EXPECT_EQ(params.segment(h + 1, kTangentDim * kLatentDim).norm(), 0.0);  // A starts at 0
  params.head(h) << std::log(0.7), std::log(0.9), std::log(1.4);
  params[h] = std::log(0.03);
  const Matrix A = 0.4 * random_normal(kTangentDim, kLatentDim, 21);
  params.segment(h + 1, A.size()) = Eigen::Map<const Vector>(A.data(), A.size());
  const Matrix X = random_normal(n, kLatentDim, 22);
  const auto begin = static_cast<Index>(m.partition.begin(comm.rank()));
  model.set_local_block_rows(params, X.middleRows(begin, m.rows.rows()));

  const auto objective = model.make_full_batch_objective(comm, m.partition, DataRef(m.rows));
  Vector gradient;
  const double value = objective->evaluate(params, gradient);

  // The reference: every row, one process, the points as given, mu0 and B0 of the chart.
  EqArdKernel kernel(0.7, Vector{{0.9, 1.4}});
  const SphereLinearBasepoint basepoint(d.chart.basepoint, d.chart.basis, A);
  const LinearBasepointGradient reference =
      wrapped_linear_basepoint_lml(kernel, 0.03, X, DataRef(d.points), basepoint);
  EXPECT_NEAR(value, reference.gp.value, 1e-10 * std::abs(reference.gp.value));
  EXPECT_LT(relative(gradient.head(h).transpose(), reference.gp.d_kernel.transpose()), 1e-9);
  EXPECT_NEAR(gradient[h], reference.gp.d_log_noise, 1e-9 * std::abs(reference.gp.d_log_noise));
  const Matrix d_map = Eigen::Map<const Matrix>(gradient.data() + h + 1, kTangentDim, kLatentDim);
  EXPECT_LT(relative(d_map, reference.d_map), 1e-9);
  const Matrix d_local = model.local_block_rows(gradient);
  EXPECT_LT(relative(d_local, reference.gp.d_latents.middleRows(begin, m.rows.rows())), 1e-9);
  // The linear basepoint the model reports is A in the chart's frame.
  EXPECT_EQ((model.linear_basepoint(params)->map() - A).norm(), 0.0);
}

class LinearBasepointTraining : public ::testing::Test {
 protected:
  void SetUp() override { session_ = std::make_unique<PetscSession>(); }
  void TearDown() override { session_.reset(); }

 private:
  std::unique_ptr<PetscSession> session_;
};

TEST_F(LinearBasepointTraining, FewLbfgsIterationsRaiseTheObjectiveAndMoveAFromZero) {
  const Communicator comm;
  const SphereData d = sphere_data(30);
  LocalModel m = local_model(comm, d.tangent);
  ExactGplvmModel& model = *m.model;
  model.initialise_from_data(comm, m.partition, DataRef(m.rows));  // PCA latents, A = 0
  const auto objective = model.make_full_batch_objective(comm, m.partition, DataRef(m.rows));
  FullBatchOptions options;
  options.max_iterations = 8;
  const FullBatchResult r = train_full_batch(model, *objective, comm, model.initial_parameters(), options);
  ASSERT_GE(r.curve.size(), 2u);
  EXPECT_GT(r.objective, r.curve.front() + 1.0) << "from " << r.curve.front();
  const Matrix learnt = model.linear_basepoint(r.params)->map();
  EXPECT_GT(learnt.norm(), 1e-2);
  // The same iterations at one process (a communicator of this rank alone) give the same A and
  // objective (to the rounding ScaLAPACK's rank-dependent sums bring, grown over 8 iterations).
  const Communicator self(MPI_COMM_SELF);
  LocalModel serial = local_model(self, d.tangent);
  serial.model->initialise_from_data(self, serial.partition, DataRef(serial.rows));
  const auto serial_objective =
      serial.model->make_full_batch_objective(self, serial.partition, DataRef(serial.rows));
  const FullBatchResult s =
      train_full_batch(*serial.model, *serial_objective, self, serial.model->initial_parameters(), options);
  EXPECT_NEAR(r.objective, s.objective, 1e-7 * std::abs(s.objective));
  EXPECT_LT((learnt - serial.model->linear_basepoint(s.params)->map()).norm(), 1e-6);
}

}  // namespace
}  // namespace gplvm
