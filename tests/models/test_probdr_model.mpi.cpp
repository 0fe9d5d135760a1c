// model.kind = "probdr" as a Model at 1-4 ranks: the full-batch objective (-KL over [log noise, X])
// against central finite differences, its gradient orthogonal to the moment's known null vectors,
// the closed form a stationary point of it, and the value the same at every rank count for the same
// global parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gplvm/models/probdr_model.hpp"
#include "graph/graph_test_data.hpp"
#include "support/petsc_environment.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 97;  // uneven splits at 2, 3 and 4 ranks

RowMatrix helix() {
  RowMatrix y = testing::gaussian_rows(kRows, 3, 5) * 0.02;
  for (Index i = 0; i < kRows; ++i) {
    const double t = 4.0 * M_PI * static_cast<double>(i) / static_cast<double>(kRows);
    y(i, 0) += std::cos(t);
    y(i, 1) += std::sin(t);
    y(i, 2) += 0.3 * t;
  }
  return y;
}

ProbdrModelConfig le_config() {
  ProbdrModelConfig c;
  c.probdr.method = "le";
  c.probdr.latent_dim = 2;
  c.probdr.graph.k = 8;
  c.probdr.precision_regularisation = 1e-2;
  c.start.init = LatentInit::random;
  return c;
}

struct Fixture {
  const Communicator& comm;
  RowPartition partition;
  RowMatrix local;
  std::unique_ptr<ProbdrModel> model;
  Fixture(const Communicator& c, const ProbdrModelConfig& config)
      : comm(c), partition(kRows, c.size()), local(testing::local_block(helix(), c)) {
    model =
        std::make_unique<ProbdrModel>(config, 3, kRows, partition.begin(c.rank()), partition.count(c.rank()));
    model->initialise_from_data(comm, partition, DataRef(local));
  }
  // Parameters keyed by global row, so the same point at every rank count.
  Vector parameters(unsigned seed) const {
    Vector p = model->initial_parameters();
    p[0] = std::log(0.3);
    const Index l = model->latent_dim();
    for (Index i = 0; i < local.rows(); ++i) {
      std::mt19937_64 rng(seed * 100003u + partition.begin(comm.rank()) + static_cast<std::uint64_t>(i));
      std::normal_distribution<double> normal;
      for (Index j = 0; j < l; ++j) p[1 + i * l + j] = 0.3 * normal(rng);
    }
    return p;
  }
};

TEST(ProbdrModel, TheObjectiveGradientMatchesCentralDifferences) {
  const Communicator comm;
  const Fixture f(comm, le_config());
  const auto objective = f.model->make_full_batch_objective(comm, f.partition, DataRef(f.local));
  const Vector p = f.parameters(1);
  Vector g(p.size()), scratch(p.size());
  objective->evaluate(p, g);
  // The noise and a few latent entries of rows on every rank (the same global rows at any rank count).
  double worst = 0.0;
  for (std::uint64_t row : {0u, 31u, 64u, 96u})
    for (Index j = 0; j < 2; ++j) {
      const bool mine = f.partition.owner(row) == comm.rank();
      const Index index = mine ? 1 + static_cast<Index>(row - f.partition.begin(comm.rank())) * 2 + j : -1;
      const double h = 1e-6;
      Vector plus = p, minus = p;
      if (mine) plus[index] += h, minus[index] -= h;
      const double numeric =
          (objective->evaluate(plus, scratch) - objective->evaluate(minus, scratch)) / (2 * h);
      const double analytic = comm.allreduce_sum(mine ? g[index] : 0.0);
      worst = std::max(worst, std::abs(numeric - analytic) / std::max(std::abs(analytic), 1e-3));
    }
  Vector plus = p, minus = p;
  plus[0] += 1e-6, minus[0] -= 1e-6;
  const double numeric_noise =
      (objective->evaluate(plus, scratch) - objective->evaluate(minus, scratch)) / 2e-6;
  worst = std::max(worst, std::abs(numeric_noise - g[0]) / std::abs(g[0]));
  EXPECT_LT(worst, 1e-6);
}

TEST(ProbdrModel, TheGradientIsOrthogonalToTheNullVectorAndTheClosedFormIsStationary) {
  const Communicator comm;
  const Fixture f(comm, le_config());
  const auto objective = f.model->make_full_batch_objective(comm, f.partition, DataRef(f.local));
  const Matrix& u = f.model->moment().null_space;
  ASSERT_EQ(u.cols(), 1);
  Vector g(f.model->num_parameters());
  const double value = objective->evaluate(f.parameters(2), g);
  const Eigen::Map<const RowMatrix> dx(g.data() + 1, f.local.rows(), 2);
  Matrix along = u.transpose() * dx;
  comm.allreduce_sum(along);
  const double norm = std::sqrt(comm.allreduce_sum(dx.squaredNorm()));
  EXPECT_LT(along.norm(), 1e-12 * norm) << value;

  const Vector optimum = *f.model->closed_form_parameters(comm, nullptr);
  Vector at_optimum(optimum.size());
  objective->evaluate(optimum, at_optimum);
  const double optimum_norm =
      std::sqrt(at_optimum[0] * at_optimum[0] +
                comm.allreduce_sum(at_optimum.tail(at_optimum.size() - 1).squaredNorm()));
  EXPECT_LT(optimum_norm, 1e-8 * norm);
}

TEST(ProbdrModel, TheObjectiveIsTheSameAtEveryRankCount) {
  const Communicator comm;
  const Fixture f(comm, le_config());
  const auto objective = f.model->make_full_batch_objective(comm, f.partition, DataRef(f.local));
  Vector g(f.model->num_parameters());
  const double value = objective->evaluate(f.parameters(3), g);
  // The serial value, computed on one rank's own communicator.
  const Communicator self(MPI_COMM_SELF);
  if (comm.rank() == 0) {
    const Fixture serial(self, le_config());
    const auto serial_objective =
        serial.model->make_full_batch_objective(self, serial.partition, DataRef(serial.local));
    Vector gs(serial.model->num_parameters());
    const double serial_value = serial_objective->evaluate(serial.parameters(3), gs);
    EXPECT_NEAR(value, serial_value, 1e-11 * std::abs(serial_value));
  }
}

}  // namespace

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace gplvm
