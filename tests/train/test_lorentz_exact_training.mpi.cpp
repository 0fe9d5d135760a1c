// The point hGP-LVM (model.kind = "exact" on model.latent_space = "lorentz") under mpirun at 1-4
// ranks: its full-batch objective's Riemannian gradient against finite differences along
// exponential-map curves, and Riemannian full-batch training (Riemannian Adam and the paper's
// accept/reject gradient ascent) against the same run on one process, with the latents on the
// hyperboloid, the paper optimiser's objective never decreasing and kappa held fixed.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/models/exact_gplvm_model.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/synthetic/synthetic_binary_tree.hpp"
#include "gplvm/train/riemannian_full_batch_trainer.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::random_normal;

ExactGplvmConfig hgplvm_config(Index data_dim, double latent_scale, LatentInit init) {
  ExactGplvmConfig c;
  SasModelConfig& m = c.base;
  m.data_dim = data_dim;
  m.latent_dim = 2;
  m.latents = LatentKind::free;
  m.latent_space = "lorentz";
  m.decoder.kernel = "hyperboloid_exp";
  m.decoder.init.variance = 0.8;
  m.decoder.init.lengthscale = 2.0;  // kappa
  m.decoder.noise_variance = 0.3;
  m.init = init;
  m.free_latent_scale = latent_scale;
  m.seed = 5;
  c.gp.block_size = 4;  // several ScaLAPACK blocks per rank, not dividing N
  return c;
}

struct LocalModel {
  RowPartition partition;
  RowMatrix Y_local;
  std::unique_ptr<ExactGplvmModel> model;
};

LocalModel local_model(const Communicator& comm, const RowMatrix& Y, const ExactGplvmConfig& config) {
  const RowPartition part(static_cast<std::uint64_t>(Y.rows()), comm.size());
  LocalModel m{
      part,
      Y.middleRows(static_cast<Index>(part.begin(comm.rank())), static_cast<Index>(part.count(comm.rank()))),
      nullptr};
  m.model =
      std::make_unique<ExactGplvmModel>(config, Y.rows(), part.begin(comm.rank()), part.count(comm.rank()));
  return m;
}

// F along t -> (every latent row n moved to Exp_{x_n}(t xi_n)) against the Euclidean pairing of the
// ambient gradient with the tangent field xi: the derivative along the curve, which is the
// Riemannian gradient's Minkowski pairing with xi.
TEST(LorentzExactObjective, GradientMatchesFiniteDifferencesAlongExponentialMapCurves) {
  const Communicator comm;
  const Index n = 15, d = 4;
  const RowMatrix Y = random_normal(n, d, 61);
  LocalModel m = local_model(comm, Y, hgplvm_config(d, 0.8, LatentInit::random));
  const ExactGplvmModel& model = *m.model;
  const auto objective = model.make_full_batch_objective(comm, m.partition, DataRef(m.Y_local));
  const Vector params = model.initial_parameters();
  Vector gradient;
  objective->evaluate(params, gradient);
  const RowMatrix points = model.local_block_rows(params);
  ASSERT_EQ(points.cols(), 3);
  EXPECT_LT(lorentz::max_sheet_deviation(points), 1e-12);

  // One random tangent field per check: all rows at once, then one row of each rank at a time.
  const RowMatrix raw =
      random_normal(n, 3, 62).middleRows(static_cast<Index>(m.partition.begin(comm.rank())), points.rows());
  RowMatrix xi(points.rows(), 3);
  for (Index r = 0; r < points.rows(); ++r)
    xi.row(r) = lorentz::project_tangent(points.row(r).transpose(), raw.row(r).transpose()).transpose();
  const RowMatrix grad_rows = model.local_block_rows(gradient);
  const auto along = [&](double t, const RowMatrix& field) {
    Vector moved = params;
    RowMatrix rows = points;
    for (Index r = 0; r < rows.rows(); ++r)
      rows.row(r) = lorentz::exp_map(points.row(r).transpose(), t * field.row(r).transpose()).transpose();
    model.set_local_block_rows(moved, rows);
    Vector scratch;
    return objective->evaluate(moved, scratch);
  };
  const double h = 1e-5;
  for (Index owner_row = -1; owner_row < 2; ++owner_row) {
    RowMatrix field = xi;
    if (owner_row >= 0)  // only this rank-local row moves (on every rank)
      for (Index r = 0; r < field.rows(); ++r)
        if (r != owner_row) field.row(r).setZero();
    const double analytic = comm.allreduce_sum((grad_rows.array() * field.array()).sum());
    const double fd = (along(h, field) - along(-h, field)) / (2 * h);
    EXPECT_LT(std::abs(analytic - fd) / std::max(std::abs(fd), 1e-8), 1e-6)
        << "field " << owner_row << ": " << analytic << " vs " << fd;
  }
  // The shared log-hyperparameters (log sigma, log kappa, log noise): central differences.
  for (Index i = 0; i < 3; ++i) {
    Vector p = params, q = params, scratch;
    p[i] += h, q[i] -= h;
    const double fd = (objective->evaluate(p, scratch) - objective->evaluate(q, scratch)) / (2 * h);
    EXPECT_LT(std::abs(gradient[i] - fd) / std::abs(fd), 1e-6) << "shared " << i;
  }
}

TEST(LorentzExactObjective, FixedKappaHasZeroGradientAndUnknownNamesAreRefused) {
  const Communicator comm;
  const RowMatrix Y = random_normal(9, 3, 71);
  ExactGplvmConfig config = hgplvm_config(3, 0.5, LatentInit::random);
  config.base.decoder.fixed_hyperparameters = {"kappa"};
  LocalModel m = local_model(comm, Y, config);
  ASSERT_EQ(m.model->fixed_parameters(), std::vector<Index>{1});
  Vector gradient;
  m.model->make_full_batch_objective(comm, m.partition, DataRef(m.Y_local))
      ->evaluate(m.model->initial_parameters(), gradient);
  EXPECT_EQ(gradient[1], 0.0);
  EXPECT_NE(gradient[0], 0.0);
  config.base.decoder.fixed_hyperparameters = {"lengthscale"};
  EXPECT_THROW(local_model(comm, Y, config), InputError);
}

struct Trained {
  FullBatchResult result;
  RowMatrix latents;  // all N rows
};

Trained train(const Communicator& comm, const RowMatrix& Y, RiemannianMethod method, int iterations) {
  ExactGplvmConfig config = hgplvm_config(Y.cols(), 1.0, LatentInit::paper_uniform);
  config.base.decoder.init.lengthscale = 10.0;
  config.base.decoder.fixed_hyperparameters = {"kappa"};
  // A noise floor that keeps K + s2 I well conditioned, so that rounding is not amplified.
  config.min_noise_variance = 1e-2;
  LocalModel m = local_model(comm, Y, config);
  RiemannianFullBatchOptions options;
  options.method = method;
  options.adam.learning_rate = method == RiemannianMethod::adam ? 0.02 : 0.01;
  options.tolerance = 0;  // a fixed number of iterations, for the comparison between rank counts
  options.max_iterations = iterations;
  const auto objective = m.model->make_full_batch_objective(comm, m.partition, DataRef(m.Y_local));
  Trained t{train_full_batch_riemannian(*m.model, *objective, comm, m.model->initial_parameters(), options),
            {}};
  t.latents = comm.allgather_rows(ConstMatrixRef(Matrix(m.model->local_block_rows(t.result.params))));
  return t;
}

// Rank 0 trains alone on MPI_COMM_SELF; the distributed run must follow the same path (the
// reductions' rounding is all that differs).
void expect_matches_one_rank_run(RiemannianMethod method, int iterations) {
  const Communicator comm;
  const RowMatrix Y = synthetic_binary_tree(3, 7, 6).data.Y;  // N = 42, D = 7
  const Trained run = train(comm, Y, method, iterations);
  RowMatrix serial_latents(Y.rows(), 3);
  double serial[3] = {0, 0, 0};
  if (comm.is_root()) {
    const Trained one = train(Communicator(MPI_COMM_SELF), Y, method, iterations);
    serial_latents = one.latents;
    serial[0] = one.result.objective;
    serial[1] = one.result.params[0];
    serial[2] = one.result.params[2];
  }
  comm.broadcast(serial, 3, 0);
  comm.broadcast(serial_latents.data(), serial_latents.size(), 0);

  const std::vector<double>& curve = run.result.curve;
  ASSERT_EQ(curve.size(), static_cast<size_t>(iterations) + 1);
  EXPECT_GT(curve.back(), curve.front() + 1.0);
  if (method == RiemannianMethod::paper_gd) {
    for (size_t k = 1; k < curve.size(); ++k) EXPECT_GE(curve[k], curve[k - 1]) << "iteration " << k;
  }
  EXPECT_LT(lorentz::max_sheet_deviation(run.latents), 1e-10);
  EXPECT_EQ(run.result.params[1], std::log(10.0));  // kappa never moves
  EXPECT_LT(std::abs(run.result.objective - serial[0]) / std::abs(serial[0]), 1e-8);
  EXPECT_LT(std::abs(run.result.params[0] - serial[1]), 1e-8);
  EXPECT_LT(std::abs(run.result.params[2] - serial[2]), 1e-8);
  EXPECT_LT((run.latents - serial_latents).cwiseAbs().maxCoeff(), 1e-8);
  if (comm.is_root())
    std::printf("%s, %d ranks: LML %.6f -> %.6f, |dLML| vs one rank %.2e\n",
                method == RiemannianMethod::adam ? "riemannian_adam" : "riemannian_gd_paper", comm.size(),
                curve.front(), curve.back(), std::abs(run.result.objective - serial[0]));
}

TEST(LorentzExactTraining, RiemannianAdamMatchesTheOneRankRun) {
  expect_matches_one_rank_run(RiemannianMethod::adam, 40);
}

TEST(LorentzExactTraining, PaperGradientAscentMatchesTheOneRankRunAndNeverDecreases) {
  expect_matches_one_rank_run(RiemannianMethod::paper_gd, 40);
}

TEST(LorentzExactTraining, StopsOnTheObjectiveChange) {
  const Communicator comm;
  const RowMatrix Y = synthetic_binary_tree(2, 3, 5).data.Y;  // N = 15, D = 3
  ExactGplvmConfig config = hgplvm_config(Y.cols(), 1.0, LatentInit::paper_uniform);
  LocalModel m = local_model(comm, Y, config);
  RiemannianFullBatchOptions options;
  options.method = RiemannianMethod::paper_gd;
  options.adam.learning_rate = 0.01;
  options.tolerance = 1e-5;
  options.max_iterations = 5000;
  const auto objective = m.model->make_full_batch_objective(comm, m.partition, DataRef(m.Y_local));
  const FullBatchResult r =
      train_full_batch_riemannian(*m.model, *objective, comm, m.model->initial_parameters(), options);
  EXPECT_TRUE(r.converged) << r.reason_text;
  EXPECT_EQ(r.reason_text, "objective_change");
  EXPECT_LT(r.iterations, options.max_iterations);
}

}  // namespace
}  // namespace gplvm
