// Free latents on the sphere S^Q for SAS in the minibatch trainer (model.latents = "free",
// model.latent_space = "sphere", model.kernel = "sphere_eq"): the batch objective's derivative along
// exponential-map curves of the free points against finite differences, and the trainer's
// Riemannian Adam run at 1-4 ranks against the same run on one process (equal to rounding; the same
// bits with reproducible sums), the points staying on the sphere; and on the circle S^1, images of a
// rotating pattern trained from the start the space gives their first two principal components
// (LatentSpace::from_start_components) keep the rotation's cyclic order at every rank count.
// N = 61 is not divisible by 2, 3 or 4, so ranks hold uneven shares.
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <vector>

#include "gplvm/manifold/sphere_geometry.hpp"
#include "gplvm/synthetic/synthetic.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "gplvm/train/trainer.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr std::uint64_t kBatch = 12;
constexpr Index kRows = 61;
constexpr Index kDim = 7, kActive = 4, kPointCols = 3;  // Q = 2: unit vectors in R^3

SasModelConfig sphere_free_config(bool reproducible) {
  SasModelConfig c = testing::training_test_config(kDim, false, LatentKind::free, Precision::float64, {}, 11);
  c.latent_space = "sphere";
  c.decoder.kernel = "sphere_eq";
  c.decoder.init.lengthscale = 0.7;
  c.active_size = kActive;
  c.reproducible_sums = reproducible;
  return c;
}

RowMatrix batch_of(const RowMatrix& Y, const std::vector<std::uint64_t>& rows) {
  RowMatrix batch(rows.size(), Y.cols());
  for (size_t i = 0; i < rows.size(); ++i) batch.row(i) = Y.row(rows[i]);
  return batch;
}

// params with each point row n moved to Exp_{x_n}(t xi_n).
Vector moved(const SasModel& model, const Vector& params, const Matrix& xi, double t) {
  RowMatrix rows = model.local_block_rows(params);
  for (Index n = 0; n < rows.rows(); ++n) {
    const Vector x = rows.row(n).head(kPointCols).transpose();
    rows.row(n).head(kPointCols) = sphere::exp_map(x, t * xi.row(n).transpose()).transpose();
  }
  Vector out = params;
  model.set_local_block_rows(out, rows);
  return out;
}

double max_norm_deviation(const Matrix& X) {
  return X.rows() == 0 ? 0.0 : (X.rowwise().norm().array() - 1.0).abs().maxCoeff();
}

// The free rows' ambient adjoint, paired with tangent directions, is the derivative along
// t -> Exp_x(t xi): for all rows at once (non-batch rows contribute nothing) and for one batch row.
TEST(SphereFreeLatents, GradientAlongExponentialMapMatchesFiniteDifferences) {
  const RowMatrix Y = testing::random_normal(kRows, kDim, 5);
  const SasModel model(sphere_free_config(false), kRows, 0, kRows);
  ASSERT_NE(model.curved_point_space(), nullptr);
  EXPECT_EQ(model.curved_point_space()->name(), "sphere");
  const Vector params = model.initial_parameters();
  const RowMatrix rows = model.local_block_rows(params);
  EXPECT_LT(max_norm_deviation(rows.leftCols(kPointCols)), 1e-15);

  const BatchSchedule schedule(kRows, kBatch, 11);
  const std::vector<std::uint64_t> batch = schedule.batch_rows(0, 2);
  const RowMatrix batch_data = batch_of(Y, batch);
  const Batch b{batch, DataRef(batch_data), kActive};
  Vector gradient;
  model.evaluate(params, b, {0, 2}, gradient);
  const RowMatrix g = model.local_block_rows(gradient);
  const RowMatrix noise = testing::random_normal(kRows, kPointCols, 9);
  for (const bool one_row : {false, true}) {
    Matrix xi = Matrix::Zero(kRows, kPointCols);
    for (Index n = 0; n < kRows; ++n) {
      if (one_row && static_cast<std::uint64_t>(n) != batch[1]) continue;
      const Vector x = rows.row(n).head(kPointCols).transpose(), r = noise.row(n).transpose();
      xi.row(n) = (r - r.dot(x) * x).transpose();
    }
    double analytic = 0.0;
    for (Index n = 0; n < kRows; ++n) analytic += g.row(n).head(kPointCols).dot(xi.row(n));
    const double h = 1e-5;
    Vector unused;
    const double up = model.evaluate(moved(model, params, xi, h), b, {0, 2}, unused).objective;
    const double down = model.evaluate(moved(model, params, xi, -h), b, {0, 2}, unused).objective;
    const double numeric = (up - down) / (2 * h);
    ASSERT_GT(std::abs(analytic), 1e-3);
    EXPECT_LT(std::abs(numeric - analytic) / std::abs(analytic), 1e-6)
        << "one_row " << one_row << ": " << numeric << " vs " << analytic;
  }
}

TrainerOptions options(std::uint64_t max_steps) {
  TrainerOptions o;
  o.batch_size = kBatch;
  o.epochs = 1000;
  o.max_steps = max_steps;
  o.adam.learning_rate = 2e-2;
  o.seed = 11;
  o.progress_seconds = 1e9;
  return o;
}

double relative_difference(const ConstVectorRef& a, const ConstVectorRef& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// The trainer at this rank count against the trainer on one process over all rows: shared
// parameters (kernel, noise), this rank's points and the objectives of the training curve. Reproducible sums
// give the same bits.
TEST(SphereFreeLatents, TrainerEqualsSerialAtEveryRankCountAndPointsStayOnTheSphere) {
  const Communicator comm;
  static const Communicator self(MPI_COMM_SELF);
  const RowMatrix Y = testing::random_normal(kRows, kDim, 5);
  for (const bool reproducible : {false, true}) {
    const SasModelConfig c = sphere_free_config(reproducible);
    const RowPartition partition(kRows, comm.size());
    const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
    const RowMatrix local = Y.middleRows(begin, count);
    const SasModel model(c, kRows, begin, count), serial_model(c, kRows, 0, kRows);
    const Trainer trainer(model, comm, partition, DataRef(local), options(40));
    const Trainer serial_trainer(serial_model, self, RowPartition(kRows, 1), DataRef(Y), options(40));
    TrainingState state = trainer.initial_state(), serial = serial_trainer.initial_state();
    const TrainRunStats stats = trainer.run(state);
    serial_trainer.run(serial);
    EXPECT_EQ(stats.steps, 40u) << stats.divergence;
    // The training curves: the objective of every epoch.
    ASSERT_FALSE(serial.curve.empty());
    ASSERT_EQ(state.curve.size(), serial.curve.size());
    const Index shared = model.num_shared_parameters();
    const RowMatrix mine = model.local_block_rows(state.params);
    const RowMatrix reference = serial_model.local_block_rows(serial.params).middleRows(begin, count);
    const RowMatrix start = model.local_block_rows(model.initial_parameters());
    EXPECT_GT(comm.allreduce_sum((mine - start).squaredNorm()), 1e-4 * kRows);  // the points moved
    if (reproducible) {
      EXPECT_TRUE(state.params.head(shared) == serial.params.head(shared));
      EXPECT_TRUE(mine == reference);
      for (size_t i = 0; i < serial.curve.size(); ++i)
        EXPECT_EQ(state.curve[i].objective, serial.curve[i].objective);
    } else {
      EXPECT_LT(relative_difference(state.params.head(shared), serial.params.head(shared)), 1e-8);
      if (count > 0) {
        EXPECT_LT((mine - reference).norm() / reference.norm(), 1e-8);
      }
      for (size_t i = 0; i < serial.curve.size(); ++i)
        EXPECT_NEAR(state.curve[i].objective, serial.curve[i].objective,
                    1e-8 * std::abs(serial.curve[i].objective));
    }
    const Matrix points = mine.leftCols(kPointCols);
    EXPECT_LT(max_norm_deviation(points), 1e-14);
    EXPECT_EQ(model.curved_point_space()->manifold().first_row_outside(points, 1e-14), -1);
  }
}

// Fisher and Lee's circular rank correlation of two samples of angles: max over a rotation and a
// reflection of |mean exp(i (alpha -+ beta))|^2 of their uniform scores (1: the same cyclic order).
double circular_rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const auto scores = [](const std::vector<double>& x) {
    std::vector<std::size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return x[i] < x[j]; });
    std::vector<double> s(x.size());
    for (std::size_t r = 0; r < order.size(); ++r)
      s[order[r]] = 2.0 * std::numbers::pi * static_cast<double>(r + 1) / static_cast<double>(x.size());
    return s;
  };
  const std::vector<double> alpha = scores(a), beta = scores(b);
  double cm = 0, sm = 0, cp = 0, sp = 0;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    cm += std::cos(alpha[i] - beta[i]);
    sm += std::sin(alpha[i] - beta[i]);
    cp += std::cos(alpha[i] + beta[i]);
    sp += std::sin(alpha[i] + beta[i]);
  }
  const double n2 = static_cast<double>(alpha.size() * alpha.size());
  return std::max((cm * cm + sm * sm) / n2, (cp * cp + sp * sp) / n2);
}

// S^1 (Q = 1, latents (cos a, sin a)) from the principal circle: 200 images of a pattern rotated
// through a full turn, SAS on the circle for 600 steps at this rank count; the learnt angles keep
// the rotation's cyclic order (up to rotation and reflection).
TEST(SphereFreeLatents, CircleLearnsTheCyclicOrderOfARotationFromThePrincipalCircle) {
  const Communicator comm;
  constexpr Index n = 200;
  const SyntheticData data = rotating_pattern_cycle(n, 64, 3, 0.05);
  SasModelConfig c = testing::training_test_config(64, false, LatentKind::free, Precision::float64, {}, 0);
  c.latent_dim = 1;
  c.latent_space = "sphere";
  c.decoder.kernel = "sphere_eq";
  c.decoder.init.variance = 0.5;
  c.decoder.noise_variance = 0.5;
  c.decoder.init.lengthscale = 1.0;
  c.active_size = 25;
  const RowPartition partition(n, comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const SasModel model(c, n, begin, count);
  const LatentSpace& circle = *model.curved_point_space();
  // The start: scores on the first start_components() principal directions of the centred data.
  const Matrix centred = data.Y.rowwise() - data.Y.colwise().mean();
  const Eigen::JacobiSVD<Matrix> svd(centred, Eigen::ComputeThinU);
  const Index k = circle.start_components();
  ASSERT_EQ(k, 2);
  const Matrix scores = svd.matrixU().leftCols(k) * svd.singularValues().head(k).asDiagonal();
  Matrix start;
  circle.from_start_components(scores.middleRows(begin, count), start);

  TrainerOptions o = options(600);
  o.batch_size = 50;
  o.seed = 0;
  const RowMatrix local = data.Y.middleRows(begin, count);
  const Trainer trainer(model, comm, partition, DataRef(local), o);
  TrainingState state = trainer.initial_state();
  RowMatrix rows = model.local_block_rows(state.params);
  rows.leftCols(2) = start;
  model.set_local_block_rows(state.params, rows);
  EXPECT_EQ(trainer.run(state).steps, 600u);

  Matrix all = Matrix::Zero(n, 2);  // every rank's points, summed into place
  all.middleRows(begin, count) = model.local_block_rows(state.params).leftCols(2);
  comm.allreduce_sum(all);
  EXPECT_LT(max_norm_deviation(all), 1e-14);
  std::vector<double> truth(n), learnt(n);
  for (Index i = 0; i < n; ++i) {
    truth[i] = std::atan2(data.latent_true(i, 1), data.latent_true(i, 0));
    learnt[i] = std::atan2(all(i, 1), all(i, 0));
  }
  EXPECT_GT(circular_rank_correlation(truth, learnt), 0.99);
}

}  // namespace
}  // namespace gplvm
