// Full-batch training of the sparse and Bayesian hGP-LVM (sparse.training = "full_batch" on
// model.latent_space = "lorentz") at 1-4 ranks: the full-batch objective's derivative along
// exp-map curves of every rank's points and of Z against central differences; Riemannian Adam and
// the paper's accept/reject ascent raise the bound, keep every point and Z on the sheet and equal
// the same run on one process (the same bits under train.reproducible, to 1e-9 relative with
// per-rank sums); the active set (sparse.active_set_refresh): Z is M distinct rows of the latents
// as they were at its last redraw, unchanged between redraws, the same at every rank count;
// fresh noise (model.psi_noise = "fresh"): a draw per iteration, the same at every rank count, the
// paper method's trial judged against the iterate evaluated under the trial's own draw, Riemannian
// Adam's iterate evaluated once under its iteration's draw; the exact KL's control variate likewise.
// N = 203 is not divisible by 2, 3 or 4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/models/active_set.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/train/riemannian_full_batch_trainer.hpp"
#include "support/lorentz_points.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 203, kDim = 5, kInducing = 15, kQ = 2, kA = kQ + 1;

SparseGplvmConfig lorentz_config(bool bayesian, bool reproducible, Index refresh = 0) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = kQ;
  c.bayesian = bayesian;
  c.latents = LatentKind::free;
  c.latent_space = "lorentz";
  c.decoder.kernel = "hyperboloid_exp";
  c.decoder.init.lengthscale = 2.0;
  c.decoder.noise_variance = 0.1;
  c.free_latent_scale = 0.5;
  c.num_inducing = kInducing;
  c.inducing_init = InducingInit::random;
  c.psi_samples = 3;
  c.training = SparseTraining::full_batch;
  c.active_set_refresh = refresh;
  c.seed = 9;
  c.reproducible_sums = reproducible;
  return c;
}

RowMatrix problem_data() {
  return testing::sample_gp_problem(EqArdKernel(1.0, (Vector(2) << 1.0, 0.6).finished()), 0.05, kRows, kDim,
                                    17)
      .Y;
}

// A model and its full-batch objective over this communicator's share of the rows.
struct FullBatchSetup {
  const Communicator& comm;
  RowPartition partition;
  RowMatrix local;
  SparseGplvmModel model;
  std::unique_ptr<FullBatchObjective> objective;
  FullBatchSetup(const Communicator& c, const RowMatrix& Y, const SparseGplvmConfig& config)
      : comm(c),
        partition(kRows, c.size()),
        local(Y.middleRows(static_cast<Index>(partition.begin(c.rank())),
                           static_cast<Index>(partition.count(c.rank())))),
        model(config, kRows, partition.begin(c.rank()), partition.count(c.rank())) {
    model.initialise_from_data(comm, partition, DataRef(local));
    objective = model.make_full_batch_objective(comm, partition, DataRef(local));
  }
  Matrix points(const Vector& p) const { return model.local_block_rows(p).leftCols(kA); }
  // Every row's point, in global row order, on every rank.
  Matrix all_points(const Vector& p) const { return comm.allgather_rows(ConstMatrixRef(points(p))); }
  Vector with_points(Vector p, const Matrix& X) const {
    RowMatrix rows = model.local_block_rows(p);
    rows.leftCols(kA) = X;
    model.set_local_block_rows(p, rows);
    return p;
  }
  // The gradient's pairing with random tangents Xi at the latents (seed + the rank's first row) against
  // the objective's derivative along their exp-map curves: the relative error, and the derivative.
  // h = 3e-6: a latent near an inducing input sits close to the Laplacian kernel's cusp, where the
  // third derivative is large; the central difference's truncation error falls as h^2 there
  // (measured: 1.7e-2, 1.9e-4, 1.9e-6 relative at h = 1e-3, 1e-4, 1e-5), while its rounding error
  // grows as 1/h (1.1e-6 at h = 1e-6 on 4 ranks); 3e-6 keeps both near 2e-7.
  std::pair<double, double> latent_derivative_error(const Vector& p, const Vector& gradient,
                                                    std::uint64_t seed) const {
    const Matrix X = points(p);
    const Matrix Xi = testing::random_tangents(X, seed + partition.begin(comm.rank()));
    const double along = testing::derivative_along(
        [&](const Matrix& W) {
          Vector g;
          return objective->evaluate(with_points(p, W), g);
        },
        X, Xi, 3e-6);
    const double pairing = comm.allreduce_sum(points(gradient).cwiseProduct(Xi).sum());
    return {testing::relative_error(pairing, along), along};
  }
  FullBatchResult train(RiemannianMethod method, int iterations) const {
    RiemannianFullBatchOptions o;
    o.method = method;
    o.adam.learning_rate = method == RiemannianMethod::adam ? 2e-2 : 1e-2;
    o.tolerance = 0;
    o.max_iterations = iterations;
    return train_full_batch_riemannian(model, *objective, comm, model.initial_parameters(), o);
  }
};

double relative_difference(const ConstMatrixRef& a, const ConstMatrixRef& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

class LorentzSparseFullBatch : public ::testing::TestWithParam<bool> {};  // bayesian?

TEST_P(LorentzSparseFullBatch, ObjectiveDifferentiatesAlongExpMapCurvesOfPointsAndZ) {
  const Communicator comm;
  const RowMatrix Y = problem_data();
  for (const bool reproducible : {false, true}) {
    SCOPED_TRACE(reproducible ? "reproducible" : "per-rank sums");
    const FullBatchSetup s(comm, Y, lorentz_config(GetParam(), reproducible));
    Vector p = s.model.initial_parameters();
    // Z off the latents: the kernel has a cusp at coincident points.
    Eigen::Map<Matrix>(p.data(), kInducing, kA) = testing::random_lorentz_points(kInducing, kQ, 31, 0.5);
    Vector gradient;
    s.objective->evaluate(p, gradient);
    const auto [error_x, along_x] = s.latent_derivative_error(p, gradient, 41);
    EXPECT_LT(error_x, 1e-6) << along_x;
    const Matrix Z = Eigen::Map<const Matrix>(p.data(), kInducing, kA);
    const Matrix Zeta = testing::random_tangents(Z, 43);
    const double along_z = testing::derivative_along(
        [&](const Matrix& W) {
          Vector q = p, g;
          Eigen::Map<Matrix>(q.data(), kInducing, kA) = W;
          return s.objective->evaluate(q, g);
        },
        Z, Zeta);
    const Matrix dZ = Eigen::Map<const Matrix>(gradient.data(), kInducing, kA);
    EXPECT_LT(testing::relative_error(dZ.cwiseProduct(Zeta).sum(), along_z), 1e-6) << along_z;
  }
}

TEST_P(LorentzSparseFullBatch, BothMethodsRaiseTheBoundOnTheSheetAndEqualOneProcess) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  for (const bool reproducible : {false, true})
    for (const RiemannianMethod method : {RiemannianMethod::adam, RiemannianMethod::paper_gd}) {
      SCOPED_TRACE(std::string(reproducible ? "reproducible " : "per-rank sums ") +
                   (method == RiemannianMethod::adam ? "adam" : "paper"));
      const SparseGplvmConfig c = lorentz_config(GetParam(), reproducible);
      const FullBatchSetup s(comm, Y, c), serial(self, Y, c);
      const FullBatchResult r = s.train(method, 12), one = serial.train(method, 12);
      EXPECT_EQ(r.iterations, 12);
      EXPECT_GT(r.objective, r.curve.front() + 1.0);
      if (method == RiemannianMethod::paper_gd) {  // accepted trials only: never down
        for (std::size_t i = 1; i < r.curve.size(); ++i) EXPECT_GE(r.curve[i], r.curve[i - 1]) << i;
      }
      const Matrix X = s.points(r.params), X0 = s.points(s.model.initial_parameters());
      const Matrix Z = s.model.inducing_inputs(r.params),
                   Z0 = s.model.inducing_inputs(s.model.initial_parameters());
      EXPECT_GT(comm.allreduce_sum((X - X0).squaredNorm()), 0.0);
      EXPECT_GT((Z - Z0).norm(), 0.0);  // Z is a parameter here
      EXPECT_EQ(lorentz::first_row_off_sheet(X, 1e-12), -1);
      EXPECT_EQ(lorentz::first_row_off_sheet(Z, 1e-12), -1);
      const Index shared = s.model.num_shared_parameters();
      const RowMatrix mine = s.model.local_block_rows(r.params);
      const RowMatrix reference =
          serial.model.local_block_rows(one.params)
              .middleRows(static_cast<Index>(s.partition.begin(comm.rank())), mine.rows());
      if (reproducible) {
        EXPECT_TRUE(r.params.head(shared) == one.params.head(shared));
        EXPECT_TRUE(mine == reference);
        EXPECT_EQ(r.objective, one.objective);
      } else {
        EXPECT_LT(relative_difference(r.params.head(shared), one.params.head(shared)), 1e-9);
        EXPECT_LT(relative_difference(mine, reference), 1e-9);
        EXPECT_NEAR(r.objective, one.objective, 1e-9 * std::abs(one.objective));
      }
    }
}

// Z's rows are rows of the latents: which rows active_set_rows says, as the latents were when the
// active set was last drawn (here the end of a shorter run of the same iterations), and unchanged
// by the iterations since.
TEST_P(LorentzSparseFullBatch, ActiveSetIsTheDrawnRowsOfTheLatentsAtItsLastRedraw) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  constexpr Index kEvery = 3;
  for (const bool reproducible : {false, true})
    for (const RiemannianMethod method : {RiemannianMethod::adam, RiemannianMethod::paper_gd}) {
      SCOPED_TRACE(std::string(reproducible ? "reproducible " : "per-rank sums ") +
                   (method == RiemannianMethod::adam ? "adam" : "paper"));
      const SparseGplvmConfig c = lorentz_config(GetParam(), reproducible, kEvery);
      const FullBatchSetup s(comm, Y, c), serial(self, Y, c);
      ASSERT_EQ(s.model.curved_shared_points().rows, 0);  // Z is not moved as points
      // The start: refresh 0 of the initial latents (a run of 2 iterations has not redrawn it).
      const std::vector<std::uint64_t> first = active_set_rows(kRows, kInducing, c.seed, 0);
      const FullBatchResult start = s.train(method, 2);
      const Matrix X0 = s.all_points(s.model.initial_parameters());
      const Matrix Z_start = s.model.inducing_inputs(start.params);
      for (Index k = 0; k < kInducing; ++k) EXPECT_TRUE(Z_start.row(k) == X0.row(first[k])) << k;
      // Redrawn after iteration 6 (refresh 2), then held through iterations 7 and 8.
      const FullBatchResult at_six = s.train(method, 6), at_eight = s.train(method, 8);
      const Matrix X6 = s.all_points(at_six.params);
      const Matrix Z8 = s.model.inducing_inputs(at_eight.params);
      const std::vector<std::uint64_t> third = active_set_rows(kRows, kInducing, c.seed, 2);
      EXPECT_NE(third, first);
      for (Index k = 0; k < kInducing; ++k) EXPECT_TRUE(Z8.row(k) == X6.row(third[k])) << k;
      EXPECT_EQ(std::set<std::uint64_t>(third.begin(), third.end()).size(),
                static_cast<std::size_t>(kInducing));
      EXPECT_EQ(lorentz::first_row_off_sheet(Z8, 1e-12), -1);
      EXPECT_GT(at_eight.objective, at_eight.curve.front());
      // The latents moved after the redraw: Z is a copy, not the points themselves.
      EXPECT_GT((s.all_points(at_eight.params) - X6).norm(), 0.0);
      // The same Z at every rank count: the same bits under train.reproducible.
      const Matrix Z_one = serial.model.inducing_inputs(serial.train(method, 8).params);
      if (reproducible)
        EXPECT_TRUE(Z8 == Z_one);
      else
        EXPECT_LT(relative_difference(Z8, Z_one), 1e-9);
    }
}

// With the active set on, no gradient reaches Z.
TEST_P(LorentzSparseFullBatch, ActiveSetHasNoGradient) {
  const Communicator comm;
  const FullBatchSetup s(comm, problem_data(), lorentz_config(GetParam(), false, 5));
  Vector gradient;
  s.objective->evaluate(s.model.initial_parameters(), gradient);
  EXPECT_TRUE(gradient.head(kInducing * kA).isZero(0.0));
  EXPECT_GT(comm.allreduce_sum(s.points(gradient).squaredNorm()), 0.0);
}

// Forwards to an objective and records each evaluation's noise draw and value.
class RecordingObjective final : public FullBatchObjective {
 public:
  explicit RecordingObjective(const FullBatchObjective& inner) : inner_(inner) {}
  double evaluate(const Vector& params, Vector& gradient) const override {
    const double value = inner_.evaluate(params, gradient);
    draws.push_back(draw_);
    values.push_back(value);
    points.push_back(params);
    return value;
  }
  bool redraws_noise() const override { return inner_.redraws_noise(); }
  void set_noise_draw(std::uint64_t draw) const override {
    draw_ = draw;
    inner_.set_noise_draw(draw);
  }
  mutable std::vector<std::uint64_t> draws;
  mutable std::vector<double> values;
  mutable std::vector<Vector> points;  // the parameters of each evaluation

 private:
  const FullBatchObjective& inner_;
  mutable std::uint64_t draw_ = 0;
};

// The Bayesian kind's fresh noise: the draw changes the bound and nothing else does (the same bits
// for the same draw, the same value at every rank count); the paper method evaluates each
// iteration's iterate and trial under that iteration's draw and keeps the trial only if it beats the
// iterate there, and the run equals one process.
TEST(LorentzBayesianFullBatch, FreshNoiseGivesEachIterationOneDrawForBothSidesOfTheAcceptTest) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  SparseGplvmConfig c = lorentz_config(true, true);
  c.psi_noise = PsiNoise::fresh;
  const FullBatchSetup s(comm, Y, c), serial(self, Y, c);
  ASSERT_TRUE(s.objective->redraws_noise());
  const Vector p = s.model.initial_parameters();
  Vector g;
  s.objective->set_noise_draw(3);
  const double three = s.objective->evaluate(p, g), again = s.objective->evaluate(p, g);
  serial.objective->set_noise_draw(3);
  EXPECT_EQ(three, serial.objective->evaluate(serial.model.initial_parameters(), g));
  s.objective->set_noise_draw(4);
  const double four = s.objective->evaluate(p, g);
  EXPECT_EQ(three, again);
  EXPECT_NE(three, four);

  constexpr int kIterations = 8;
  const RecordingObjective recorded(*s.objective);
  RiemannianFullBatchOptions o;
  o.method = RiemannianMethod::paper_gd;
  o.adam.learning_rate = 1e-2;
  o.tolerance = 0;
  o.max_iterations = kIterations;
  const FullBatchResult r = train_full_batch_riemannian(s.model, recorded, comm, p, o);
  // The start under draw 0, then per iteration i: the iterate and the trial under draw i.
  ASSERT_EQ(recorded.draws.size(), static_cast<std::size_t>(1 + 2 * kIterations));
  EXPECT_EQ(recorded.draws[0], 0u);
  for (int i = 1; i <= kIterations; ++i) {
    const std::size_t now = 2 * i - 1, trial = 2 * i;
    EXPECT_EQ(recorded.draws[now], static_cast<std::uint64_t>(i));
    EXPECT_EQ(recorded.draws[trial], static_cast<std::uint64_t>(i));
    const double kept = std::max(recorded.values[now], recorded.values[trial]);
    EXPECT_EQ(r.curve[i], kept) << i;
  }
  const FullBatchResult one = train_full_batch_riemannian(serial.model, *serial.objective, self,
                                                          serial.model.initial_parameters(), o);
  const Index shared = s.model.num_shared_parameters();
  EXPECT_TRUE(r.params.head(shared) == one.params.head(shared));
  EXPECT_TRUE(
      s.model.local_block_rows(r.params) ==
      serial.model.local_block_rows(one.params)
          .middleRows(static_cast<Index>(s.partition.begin(comm.rank())), s.partition.count(comm.rank())));
  EXPECT_EQ(r.objective, one.objective);
}

// Riemannian Adam under fresh noise: one evaluation per iteration, under that iteration's draw (the
// start under draw 0); each value on the curve is the bound at its iterate under its own draw, which
// the next draw changes; the run equals one process bit for bit.
TEST(LorentzBayesianFullBatch, FreshNoiseGivesEachRiemannianAdamIterationOneDrawKeyedByTheIteration) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  SparseGplvmConfig c = lorentz_config(true, true);
  c.psi_noise = PsiNoise::fresh;
  const FullBatchSetup s(comm, Y, c), serial(self, Y, c);
  ASSERT_TRUE(s.objective->redraws_noise());
  constexpr int kIterations = 6;
  const RecordingObjective recorded(*s.objective);
  RiemannianFullBatchOptions o;
  o.method = RiemannianMethod::adam;
  o.adam.learning_rate = 2e-2;
  o.tolerance = 0;
  o.max_iterations = kIterations;
  const FullBatchResult r =
      train_full_batch_riemannian(s.model, recorded, comm, s.model.initial_parameters(), o);
  ASSERT_EQ(recorded.draws.size(), static_cast<std::size_t>(1 + kIterations));
  ASSERT_EQ(r.curve.size(), recorded.values.size());
  Vector g;
  for (int i = 0; i <= kIterations; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    EXPECT_EQ(recorded.draws[i], static_cast<std::uint64_t>(i));
    EXPECT_EQ(r.curve[i], recorded.values[i]);
    s.objective->set_noise_draw(static_cast<std::uint64_t>(i));
    EXPECT_EQ(s.objective->evaluate(recorded.points[i], g), recorded.values[i]);
    s.objective->set_noise_draw(static_cast<std::uint64_t>(i + 1));
    EXPECT_NE(s.objective->evaluate(recorded.points[i], g), recorded.values[i]);
  }
  EXPECT_TRUE(recorded.points.back() == r.params);  // the last evaluation is the result
  const FullBatchResult one = train_full_batch_riemannian(serial.model, *serial.objective, self,
                                                          serial.model.initial_parameters(), o);
  EXPECT_EQ(r.curve, one.curve);
  const Index shared = s.model.num_shared_parameters();
  EXPECT_TRUE(r.params.head(shared) == one.params.head(shared));
  EXPECT_TRUE(
      s.model.local_block_rows(r.params) ==
      serial.model.local_block_rows(one.params)
          .middleRows(static_cast<Index>(s.partition.begin(comm.rank())), s.partition.count(comm.rank())));
}

// The exact KL with its control variate (model.kl_estimator = "control_variate") at 1-4 ranks: the
// full-batch objective's derivative along exp-map curves of every rank's means by central
// differences, and the paper method's run under fresh noise the same bits as one process.
TEST(LorentzBayesianFullBatch, ControlVariateKlDifferentiatesAlongExpMapCurvesAndEqualsOneProcess) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = problem_data();
  SparseGplvmConfig c = lorentz_config(true, true);
  c.kl_mode = KlMode::exact_control_variate;
  c.psi_noise = PsiNoise::fresh;
  const FullBatchSetup s(comm, Y, c), serial(self, Y, c);
  s.objective->set_noise_draw(2);
  const Vector p = s.model.initial_parameters();
  Vector gradient;
  s.objective->evaluate(p, gradient);
  const auto [error, along] = s.latent_derivative_error(p, gradient, 47);
  EXPECT_LT(error, 1e-6) << along;
  const FullBatchResult r = s.train(RiemannianMethod::paper_gd, 6),
                        one = serial.train(RiemannianMethod::paper_gd, 6);
  EXPECT_GT(r.objective, r.curve.front());
  EXPECT_EQ(r.curve, one.curve);
  const Index shared = s.model.num_shared_parameters();
  EXPECT_TRUE(r.params.head(shared) == one.params.head(shared));
  EXPECT_TRUE(
      s.model.local_block_rows(r.params) ==
      serial.model.local_block_rows(one.params)
          .middleRows(static_cast<Index>(s.partition.begin(comm.rank())), s.partition.count(comm.rank())));
}

INSTANTIATE_TEST_SUITE_P(Kinds, LorentzSparseFullBatch, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "bayesian_gplvm" : "sparse_gplvm"; });

}  // namespace
}  // namespace gplvm
