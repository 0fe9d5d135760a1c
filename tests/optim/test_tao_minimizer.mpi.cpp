// The TAO bound-constrained L-BFGS driver under mpirun at 1-4 ranks: a distributed convex
// quadratic whose bound-projected minimiser is known, stop reasons, the iteration history, and
// errors that must reach every rank as exceptions (never a hang or a PETSc traceback).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Uneven slices, one of them empty at 2+ ranks, so the global vector is not a multiple of anything.
Index slice_size(int rank) {
  const Index sizes[] = {7, 0, 5, 11};
  return sizes[rank % 4];
}

Index slice_offset(const Communicator& comm) {
  Index offset = 0;
  for (int r = 0; r < comm.rank(); ++r) offset += slice_size(r);
  return offset;
}

// f(x) = 1/2 sum_i w_i (x_i - c_i)^2 over the global index i, with curvatures w_i from 1 to 100
// (so L-BFGS needs several iterations) and centres c_i on both sides of the bounds below.
struct Quadratic {
  Vector w, c;
  Quadratic(Index offset, Index n) : w(n), c(n) {
    for (Index k = 0; k < n; ++k) {
      const double i = static_cast<double>(offset + k);
      w[k] = 1.0 + 99.0 * std::fmod(0.37 * i, 1.0);
      c[k] = 3.0 * std::sin(1.3 * i + 0.2);
    }
  }
  double operator()(const Communicator& comm, const ConstVectorRef& x, VectorRef g) const {
    const Vector r = x - c;
    g = w.cwiseProduct(r);
    return comm.allreduce_sum(0.5 * r.dot(g));
  }
};

// Every third global entry bounded below by 0.5, every fifth above by -0.25 (where both apply,
// [-1, 2]); the rest free. Infinite bounds are given as IEEE infinities.
void make_bounds(Index offset, Index n, Vector& lower, Vector& upper) {
  lower = Vector::Constant(n, -kInf);
  upper = Vector::Constant(n, kInf);
  for (Index k = 0; k < n; ++k) {
    const Index i = offset + k;
    if (i % 3 == 0) lower[k] = 0.5;
    if (i % 5 == 0) upper[k] = -0.25;
    if (i % 15 == 0) lower[k] = -1.0, upper[k] = 2.0;
  }
}

// The separable quadratic on this rank's slice, with its box bounds.
class TaoMinimizerOnQuadratic : public ::testing::Test {
 protected:
  void SetUp() override { make_bounds(offset, n, lower, upper); }

  const Communicator comm;
  const Index n = slice_size(comm.rank()), offset = slice_offset(comm);
  const Quadratic f{offset, n};
  Vector lower, upper;
};

TEST_F(TaoMinimizerOnQuadratic, BoundedQuadraticReachesTheProjectedMinimiser) {
  TaoOptions options;
  options.gatol = 1e-10;
  options.grtol = 0;
  options.max_iterations = 500;
  TaoMinimizer minimizer(comm, n, options);
  minimizer.set_bounds(lower, upper);
  const Vector start = Vector::Constant(n, 0.1);
  const TaoResult result =
      minimizer.minimize(start, [&](const ConstVectorRef& x, VectorRef g) { return f(comm, x, g); });

  // The problem is separable and convex: the minimiser is each centre clamped to its interval.
  const Vector expected = f.c.cwiseMax(lower).cwiseMin(upper);
  ASSERT_EQ(result.solution.size(), n);
  const double max_error = comm.allreduce_max(n ? (result.solution - expected).cwiseAbs().maxCoeff() : 0.0);
  EXPECT_LT(max_error, 1e-6);
  EXPECT_TRUE(result.converged) << to_string(result.reason);
  EXPECT_EQ(result.reason, TaoStopReason::gradient_absolute);
  EXPECT_LT(result.gradient_norm, 1e-10);
  EXPECT_GT(result.iterations, 2);
  EXPECT_LT(result.iterations, options.max_iterations);

  // One history entry per iteration, the initial point first, non-increasing (a line search with
  // sufficient decrease), the last one the returned objective; identical on every rank.
  ASSERT_EQ(result.history.size(), static_cast<size_t>(result.iterations) + 1);
  for (size_t k = 0; k < result.history.size(); ++k)
    EXPECT_EQ(result.history[k].iteration, static_cast<int>(k));
  for (size_t k = 1; k < result.history.size(); ++k)
    EXPECT_LE(result.history[k].objective, result.history[k - 1].objective + 1e-14);
  EXPECT_EQ(result.history.back().objective, result.objective);
  Vector scratch(n);
  EXPECT_NEAR(f(comm, result.solution, scratch), result.objective, 1e-12);
  EXPECT_EQ(comm.allreduce_max(result.objective), -comm.allreduce_max(-result.objective));
}

TEST_F(TaoMinimizerOnQuadratic, InitialPointOutsideTheBoundsIsProjectedAndMonitorSeesEveryIteration) {
  int seen = 0;
  TaoOptions options;
  options.gatol = 1e-9;
  options.on_iteration = [&](const TaoIterate& it) { EXPECT_EQ(it.iteration, seen++); };
  TaoMinimizer minimizer(comm, n, options);
  minimizer.set_bounds(lower, upper);
  const TaoResult result = minimizer.minimize(
      Vector::Constant(n, 50.0), [&](const ConstVectorRef& x, VectorRef g) { return f(comm, x, g); });
  EXPECT_TRUE(result.converged) << to_string(result.reason);
  EXPECT_EQ(seen, result.iterations + 1);
  const Vector expected = f.c.cwiseMax(lower).cwiseMin(upper);
  EXPECT_LT(comm.allreduce_max(n ? (result.solution - expected).cwiseAbs().maxCoeff() : 0.0), 1e-6);
}

TEST_F(TaoMinimizerOnQuadratic, StopsAtTheIterationLimitWithoutClaimingConvergence) {
  TaoOptions options;
  options.gatol = 1e-14;
  options.grtol = 0;
  options.max_iterations = 2;
  TaoMinimizer minimizer(comm, n, options);  // unbounded
  const TaoResult result = minimizer.minimize(
      Vector::Zero(n), [&](const ConstVectorRef& x, VectorRef g) { return f(comm, x, g); });
  EXPECT_EQ(result.reason, TaoStopReason::max_iterations);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, 2);
  EXPECT_EQ(result.history.size(), 3u);
}

TEST_F(TaoMinimizerOnQuadratic, CallerCanStopCleanlyAfterAnyIteration) {
  TaoOptions options;
  int seen = 0;
  options.on_iteration = [&](const TaoIterate&) { ++seen; };
  options.should_stop = [&] { return seen == 4; };  // after iteration 3
  TaoMinimizer minimizer(comm, n, options);
  const TaoResult result = minimizer.minimize(
      Vector::Zero(n), [&](const ConstVectorRef& x, VectorRef g) { return f(comm, x, g); });
  EXPECT_EQ(result.reason, TaoStopReason::stop_requested) << to_string(result.reason);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, 3);
  EXPECT_EQ(result.history.size(), 4u);
  EXPECT_EQ(result.objective, result.history.back().objective);
  Vector scratch(n);
  EXPECT_EQ(f(comm, result.solution, scratch), result.objective);  // the iterate it stopped at
}

TEST_F(TaoMinimizerOnQuadratic, ObjectiveExceptionsReachTheCallerUnchangedOnEveryRank) {
  TaoMinimizer minimizer(comm, n);
  int calls = 0;
  const auto failing = [&](const ConstVectorRef& x, VectorRef g) {
    if (++calls == 3) throw NumericalError("synthetic failure in evaluation 3");
    return f(comm, x, g);
  };
  try {
    minimizer.minimize(Vector::Zero(n), failing);
    ADD_FAILURE() << "no exception";
  } catch (const NumericalError& e) {
    EXPECT_STREQ(e.what(), "synthetic failure in evaluation 3");
  }
  // The driver is still usable after a failed solve.
  const TaoResult result = minimizer.minimize(
      Vector::Zero(n), [&](const ConstVectorRef& x, VectorRef g) { return f(comm, x, g); });
  EXPECT_TRUE(result.converged) << to_string(result.reason);
}

TEST(TaoMinimizer, BadBoundsOnOneRankAreAnInputErrorOnEveryRank) {
  const Communicator comm;
  const Index n = slice_size(comm.rank());
  TaoMinimizer minimizer(comm, n);
  Vector lower = Vector::Zero(n), upper = Vector::Ones(n);
  // The last rank with entries inverts one interval; a one-rank run gets a wrong size instead.
  int last_with_entries = 0;
  for (int r = 0; r < comm.size(); ++r)
    if (slice_size(r) > 0) last_with_entries = r;
  if (comm.rank() == last_with_entries) lower[n - 1] = 2.0;
  try {
    minimizer.set_bounds(lower, upper);
    ADD_FAILURE() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an interval"), std::string::npos) << e.what();
  }
  EXPECT_THROW(minimizer.minimize(Vector::Zero(n + (comm.rank() == 0 ? 1 : 0)),
                                  [](const ConstVectorRef&, VectorRef) { return 0.0; }),
               InputError);
  TaoOptions bad;
  bad.gatol = -1;
  EXPECT_THROW(TaoMinimizer(comm, n, bad), InputError);
}

TEST(TaoMinimizer, NonFiniteObjectiveAtTheStartIsAnErrorWithPetscsMessage) {
  const Communicator comm;
  const Index n = slice_size(comm.rank());
  TaoMinimizer minimizer(comm, n);
  try {
    minimizer.minimize(Vector::Zero(n), [&](const ConstVectorRef&, VectorRef g) {
      g.setOnes();
      return std::numeric_limits<double>::quiet_NaN();
    });
    ADD_FAILURE() << "no exception";
  } catch (const InputError&) {
    ADD_FAILURE() << "a PETSc failure is not bad input";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("PETSc TaoSolve failed"), std::string::npos) << what;
    EXPECT_NE(what.find("Inf or NaN"), std::string::npos) << what;
  }
}

TEST(PetscSession, NestedSessionsDoNotOwnTheInitialisation) {
  PetscSession inner;  // the environment below initialised PETSc
  EXPECT_FALSE(inner.owns_initialisation());
  {
    PetscSession innermost;
    EXPECT_FALSE(innermost.owns_initialisation());
  }
  // PETSc is still usable after a nested session ended.
  const Communicator comm;
  TaoMinimizer minimizer(comm, 1);
  const TaoResult result = minimizer.minimize(Vector::Zero(1), [&](const ConstVectorRef& x, VectorRef g) {
    g[0] = 2 * (x[0] - 1);
    return comm.allreduce_sum((x[0] - 1) * (x[0] - 1));
  });
  EXPECT_NEAR(result.solution[0], 1.0, 1e-6);
}

// One PETSc session for the whole binary, as main() would hold it: set up after MPI_Init and torn
// down before MPI_Finalize (both inside RUN_ALL_TESTS). The tear-down also checks that PETSc is
// never initialised a second time in one process.
class PetscEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    session_ = std::make_unique<PetscSession>();
    EXPECT_TRUE(session_->owns_initialisation());
  }
  void TearDown() override {
    session_.reset();
    EXPECT_THROW(PetscSession(), Error);
    EXPECT_THROW(TaoMinimizer(Communicator(), 1), Error);
  }

 private:
  std::unique_ptr<PetscSession> session_;
};

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new PetscEnvironment);

}  // namespace
}  // namespace gplvm
