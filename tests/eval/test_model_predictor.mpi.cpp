// The predictive `gplvm predict` writes (eval/model_predictor.hpp), with the latents split
// unevenly over 1-4 ranks (rank r holds r + 2 of them, so the exact GP's gathers carry uneven
// counts), against dense serial formulas written out here:
//   exact GP (SAS, the fallback): mean = k_x^T (K + s2 I)^{-1} Y, variance k_xx + s2 - k_x^T (K + s2 I)^{-1}
//   k_x,
//     with the EQ-ARD kernel evaluated by hand;
//   sparse GPLVM, minibatch: k_x^T K^{-1} m and k_xx - k_x^T K^{-1} k_x + k_x^T K^{-1} S K^{-1} k_x + s2
//     with explicit inverses;
//   sparse GPLVM, full batch: Titsias's collapsed predictive, Sigma = K + K_ZX K_XZ / s2:
//     mean = k_x^T Sigma^{-1} K_ZX Y / s2, variance = k_xx - k_x^T (K^{-1} - Sigma^{-1}) k_x + s2;
//   VAE: the decoder network and sigma^2.
// And free-latent inference (eval/latent_inference.hpp) at 1-4 ranks: data rows drawn from a GP at
// known latents get back latents close to those, whether the rows were conditioned on or held out.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/eval/latent_inference.hpp"
#include "gplvm/eval/model_predictor.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/models/vae_model.hpp"
#include "gplvm/objectives/inducing_jitter.hpp"
#include "support/lorentz_points.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kTrainRows = 40, kDim = 4, kLatentDim = 2;

DistributedDataset distributed(const RowMatrix& Y, const Communicator& comm) {
  DistributedDataset d;
  d.rows = static_cast<std::uint64_t>(Y.rows());
  d.cols = static_cast<std::uint64_t>(Y.cols());
  d.partition = RowPartition(d.rows, comm.size());
  d.local = Y.middleRows(static_cast<Index>(d.partition.begin(comm.rank())),
                         static_cast<Index>(d.partition.count(comm.rank())));
  return d;
}

// Every rank's test latents (rank r: r + 2 rows), and this rank's position among them.
struct TestLatents {
  Matrix all;
  Index begin = 0, count = 0;
};

TestLatents test_latents(const Communicator& comm) {
  TestLatents t;
  Index total = 0;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) t.begin = total;
    total += r + 2;
  }
  t.count = comm.rank() + 2;
  t.all = 1.5 * testing::random_normal(total, kLatentDim, 31);
  return t;
}

Matrix eq_ard(const Matrix& A, const Matrix& B, double variance, const Vector& lengthscale) {
  Matrix K(A.rows(), B.rows());
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < B.rows(); ++j)
      K(i, j) =
          variance *
          std::exp(-0.5 * ((A.row(i) - B.row(j)).transpose().array() / lengthscale.array()).square().sum());
  return K;
}

double relative(const Matrix& a, const Matrix& b) {
  return (a - b).norm() / b.norm();
}

void expect_rows(const Prediction& p, const Matrix& mean, const Vector& variance, const TestLatents& t) {
  ASSERT_EQ(p.mean.rows(), t.count);
  ASSERT_EQ(p.mean.cols(), mean.cols());
  ASSERT_EQ(p.variance.size(), t.count);
  EXPECT_LT(relative(p.mean, mean.middleRows(t.begin, t.count)), 1e-10);
  EXPECT_LT(relative(p.variance, variance.segment(t.begin, t.count)), 1e-10);
}

TEST(ModelPredictor, SasRunsGetTheExactGpPredictiveOnEveryTrainingRow) {
  const Communicator comm;
  SasModelConfig c = testing::training_test_config(kDim, false, LatentKind::free, Precision::float64, {}, 0);
  c.latent_dim = kLatentDim;
  c.decoder.init.lengthscale = 0.8;
  c.decoder.init.variance = 1.3;
  c.decoder.noise_variance = 0.05;
  const RowMatrix Y = testing::random_normal(kTrainRows, kDim, 32);
  const Matrix X = testing::random_normal(kTrainRows, kLatentDim, 33);
  const DistributedDataset train = distributed(Y, comm);
  const SasModel model(c, kTrainRows, train.partition.begin(comm.rank()), train.local.rows());
  const TestLatents t = test_latents(comm);
  ExactPredictorOptions options;
  options.conditioning_size = 0;
  options.block_size = 8;
  const std::unique_ptr<Predictor> predictor =
      model_predictor(model, model.initial_parameters(), {train, X}, options, comm);
  const Prediction p = predictor->predict(t.all.middleRows(t.begin, t.count));

  const Vector lengthscale = Vector::Constant(kLatentDim, 0.8);
  Matrix K = eq_ard(X, X, 1.3, lengthscale);
  K.diagonal().array() += 0.05;
  const Matrix Ks = eq_ard(t.all, X, 1.3, lengthscale);
  const Eigen::LLT<Matrix> llt(K);
  const Matrix mean = Ks * llt.solve(Matrix(Y));
  const Vector variance =
      (1.3 + 0.05 - (Ks.array() * llt.solve(Matrix(Ks.transpose())).transpose().array()).rowwise().sum())
          .matrix();
  expect_rows(p, mean, variance, t);
}

SparseGplvmConfig sparse_config(SparseTraining training) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = kLatentDim;
  c.num_inducing = 7;
  c.decoder.noise_variance = 0.1;
  c.training = training;
  c.seed = 5;
  return c;
}

TEST(ModelPredictor, MinibatchSparseGplvmUsesItsInducingPosterior) {
  const Communicator comm;
  const RowMatrix Y = testing::random_normal(kTrainRows, kDim, 34);
  const Matrix X = testing::random_normal(kTrainRows, kLatentDim, 35);
  const DistributedDataset train = distributed(Y, comm);
  const SparseGplvmModel model(sparse_config(SparseTraining::minibatch), kTrainRows,
                               train.partition.begin(comm.rank()), train.local.rows());
  Vector params = model.initial_parameters();
  // A q(u) away from any optimum: random means and a random lower-triangular factor.
  InducingPosterior q{testing::random_normal(7, kDim, 36), testing::random_normal(7, 7, 37)};
  q.scale.diagonal() = q.scale.diagonal().cwiseAbs().array() + 0.5;
  q.scale = q.scale.triangularView<Eigen::Lower>();
  q.pack(params.data() + model.posterior_offset());
  const TestLatents t = test_latents(comm);
  const Prediction p =
      model_predictor(model, params, {train, X}, {}, comm)->predict(t.all.middleRows(t.begin, t.count));

  const std::unique_ptr<Kernel> k = model.kernel(params);
  const Matrix Z = model.inducing_inputs(params);
  Matrix K, Kxz;
  Vector diag;
  k->cross(Z, Z, K);
  K.diagonal().array() += kInducingRelativeJitter * K.trace() / K.rows();  // the bounds' K_ZZ
  k->cross(t.all, Z, Kxz);
  k->diagonal(t.all, diag);
  const Matrix A = Kxz * K.inverse();
  const Matrix S = q.scale * q.scale.transpose();
  const Matrix mean = A * q.mean;
  const Vector variance = (diag.array() - (A.array() * Kxz.array()).rowwise().sum() +
                           ((A * S).array() * A.array()).rowwise().sum() + model.noise_variance(params))
                              .matrix();
  expect_rows(p, mean, variance, t);
}

TEST(ModelPredictor, FullBatchSparseGplvmIsTitsiasCollapsedPredictive) {
  const Communicator comm;
  const RowMatrix Y = testing::random_normal(kTrainRows, kDim, 38);
  const Matrix X = testing::random_normal(kTrainRows, kLatentDim, 39);
  const DistributedDataset train = distributed(Y, comm);
  const SparseGplvmModel model(sparse_config(SparseTraining::full_batch), kTrainRows,
                               train.partition.begin(comm.rank()), train.local.rows());
  const Vector params = model.initial_parameters();
  const TestLatents t = test_latents(comm);
  const Prediction p =
      model_predictor(model, params, {train, X}, {}, comm)->predict(t.all.middleRows(t.begin, t.count));

  const std::unique_ptr<Kernel> k = model.kernel(params);
  const double s2 = model.noise_variance(params);
  const Matrix Z = model.inducing_inputs(params);
  Matrix K, Kzx, Kxz;
  Vector diag;
  k->cross(Z, Z, K);
  K.diagonal().array() += kInducingRelativeJitter * K.trace() / K.rows();  // the bounds' K_ZZ
  k->cross(Z, X, Kzx);
  k->cross(t.all, Z, Kxz);
  k->diagonal(t.all, diag);
  const Matrix sigma_inverse = (K + Kzx * Kzx.transpose() / s2).inverse();
  const Matrix mean = Kxz * sigma_inverse * Kzx * Matrix(Y) / s2;
  const Matrix reduction = K.inverse() - sigma_inverse;
  const Vector variance =
      (diag.array() - ((Kxz * reduction).array() * Kxz.array()).rowwise().sum() + s2).matrix();
  expect_rows(p, mean, variance, t);
}

TEST(ModelPredictor, VaeUsesItsDecoderAndNoise) {
  const Communicator comm;
  VaeConfig c;
  c.data_dim = kDim;
  c.latent_dim = kLatentDim;
  c.encoder_hidden = {6};
  c.decoder_hidden = {5};
  c.decoder_activation = Activation::tanh;
  c.noise_variance = 0.3;
  const RowMatrix Y = testing::random_normal(kTrainRows, kDim, 40);
  const DistributedDataset train = distributed(Y, comm);
  const VaeModel model(c, 7, kTrainRows, train.partition.begin(comm.rank()), train.local.rows());
  const Vector params = model.initial_parameters();
  const Matrix X = testing::random_normal(kTrainRows, kLatentDim, 41);
  const TestLatents t = test_latents(comm);
  const Prediction p =
      model_predictor(model, params, {train, X}, {}, comm)->predict(t.all.middleRows(t.begin, t.count));

  // The decoder by hand: tanh(X W1 + b1) W2 + b2, W column-major in the Mlp's flat layout.
  const Mlp& net = model.elbo().decoder().network();
  const double* w = params.data() + model.elbo().decoder_offset();
  const auto W1 = Eigen::Map<const Matrix>(w + net.weight_offset(0), kLatentDim, 5);
  const auto b1 = Eigen::Map<const Eigen::RowVectorXd>(w + net.bias_offset(0), 5);
  const auto W2 = Eigen::Map<const Matrix>(w + net.weight_offset(1), 5, kDim);
  const auto b2 = Eigen::Map<const Eigen::RowVectorXd>(w + net.bias_offset(1), kDim);
  const Matrix hidden = ((t.all * W1).rowwise() + b1).array().tanh().matrix();
  const Matrix mean = (hidden * W2).rowwise() + b2;
  expect_rows(p, mean, Vector::Constant(t.all.rows(), 0.3), t);
}

TEST(LatentInference, RecoversTheLatentsOfTrainingAndHeldOutRows) {
  const Communicator comm;
  constexpr Index kRows = 70, kConditioned = 50;
  const testing::GpProblem gp =
      testing::sample_gp_problem(EqArdKernel(1.0, Vector::Constant(kLatentDim, 1.0)), 1e-3, kRows, 12, 61);
  const DistributedDataset train = distributed(gp.Y.topRows(kConditioned), comm);
  const Matrix train_latents = gp.X.topRows(kConditioned);
  // Queries: 5 conditioned rows, then every held-out one; this rank's share of them.
  RowMatrix queries(5 + kRows - kConditioned, gp.Y.cols());
  Matrix truth(queries.rows(), kLatentDim);
  queries << gp.Y.topRows(5), gp.Y.bottomRows(kRows - kConditioned);
  truth << gp.X.topRows(5), gp.X.bottomRows(kRows - kConditioned);
  const RowPartition part(queries.rows(), comm.size());
  const Index begin = static_cast<Index>(part.begin(comm.rank())),
              count = static_cast<Index>(part.count(comm.rank()));
  LatentInferenceOptions options;
  options.conditioning_size = 0;
  const std::unique_ptr<LatentSpace> space = make_latent_space("euclidean", kLatentDim);
  const RowMatrix inferred = infer_latents(gp.kernel, gp.noise, *space, {train, train_latents},
                                           queries.middleRows(begin, count), options, comm);
  ASSERT_EQ(inferred.rows(), count);
  // Within the noise's reach of the truth (0.003-0.056 measured), and for held-out rows much closer
  // than their start, the latent of the nearest conditioned row in data space. The ascent stays in
  // the conditioned latents' bounding box, so for a held-out row whose latent lies outside it (2 of
  // 20) the error may exceed 0.1 by the truth's distance from the box, no more.
  const Vector lower = train_latents.colwise().minCoeff().transpose(),
               upper = train_latents.colwise().maxCoeff().transpose();
  double inferred_error = 0, start_error = 0;
  for (Index i = 0; i < count; ++i) {
    const Vector row_truth = truth.row(begin + i).transpose();
    const double outside = (row_truth - row_truth.cwiseMax(lower).cwiseMin(upper)).norm();
    const Vector row = inferred.row(i).transpose();
    EXPECT_LT((row - row_truth).norm(), 0.1 + outside) << "query " << begin + i;
    EXPECT_TRUE(((row.array() >= lower.array()) && (row.array() <= upper.array())).all())
        << "query " << begin + i;
    const double error = (inferred.row(i) - truth.row(begin + i)).norm();
    if (begin + i < 5) continue;
    Index nearest = 0;
    (gp.Y.topRows(kConditioned).rowwise() - queries.row(begin + i))
        .rowwise()
        .squaredNorm()
        .minCoeff(&nearest);
    inferred_error += error;
    start_error += (train_latents.row(nearest) - truth.row(begin + i)).norm();
  }
  inferred_error = comm.allreduce_sum(inferred_error);
  start_error = comm.allreduce_sum(start_error);
  EXPECT_LT(inferred_error, 0.25 * start_error);
}

// A 1-D latent that folds a circle of radius 0.5 (rows alternate between the upper and the lower
// half at angle +-arccos(0.98 x), the shape an eq_ard GPLVM started from PCA gives a closed curve):
// a row at angle -0.61 is nearest to a conditioning row on the other branch (latent 0.85), whose
// density falls towards the row's own branch and rises, without a dip, out of the data to the
// prior (mean 0, variance 0.125). An ascent left free ends there (measured: x = 1.66, the
// reconstruction the prior mean, 0.5 away); inside the conditioning latents' box the row's
// reconstruction (the dense formula) is within half that. A conditioning row keeps its own latent.
TEST(LatentInference, KeepsAFoldedCurvesRowInsideTheConditioningLatentsBox) {
  const Communicator comm;
  constexpr Index kConditioned = 41;
  constexpr double kVariance = 0.125, kNoise = 1e-4, kRadius = 0.5;
  const Vector lengthscale = Vector::Constant(1, 0.08);
  const EqArdKernel kernel(kVariance, lengthscale);
  const Matrix latents = Vector::LinSpaced(kConditioned, -1.0, 1.0);
  RowMatrix Y(kConditioned, 2);
  for (Index j = 0; j < kConditioned; ++j) {
    const double angle = (j % 2 == 0 ? 1.0 : -1.0) * std::acos(0.98 * latents(j, 0));
    Y.row(j) << kRadius * std::cos(angle), kRadius * std::sin(angle);
  }
  RowMatrix queries(2, 2);
  queries.row(0) << kRadius * std::cos(-0.61), kRadius * std::sin(-0.61);
  queries.row(1) = Y.row(20);
  LatentInferenceOptions options;
  options.conditioning_size = 0;
  const std::unique_ptr<LatentSpace> space = make_latent_space("euclidean", 1);
  const DistributedDataset train = distributed(Y, comm);
  const RowMatrix inferred = infer_latents(kernel, kNoise, *space, {train, latents}, queries, options, comm);
  ASSERT_EQ(inferred.rows(), 2);

  EXPECT_GE(inferred(0, 0), -1.0);
  EXPECT_LE(inferred(0, 0), 1.0);
  Matrix K = eq_ard(latents, latents, kVariance, lengthscale);
  K.diagonal().array() += kNoise;
  const Matrix mean = eq_ard(inferred, latents, kVariance, lengthscale) * K.ldlt().solve(Matrix(Y));
  EXPECT_LT((mean.row(0) - queries.row(0)).norm(), 0.5 * kRadius) << "latent " << inferred(0, 0);
  EXPECT_NEAR(inferred(1, 0), latents(20, 0), 0.01);
}

// On a Lorentz run the rows' latents are points of H^2: each rank's rows against the serial ascent
// over the same conditioning set from the same start (the nearest conditioned row in data space),
// inside the same box (the conditioning latents' ambient bounding box),
// on the sheet, and the conditioned rows back at their own latents (the kernel's cusp makes those
// the maxima of their densities).
TEST(LatentInference, LorentzRowsMatchTheSerialAscentOnTheSheet) {
  const Communicator comm;
  constexpr Index kConditioned = 30, kQueries = 14;
  const std::unique_ptr<Kernel> kernel = make_kernel("hyperboloid_exp", kLatentDim + 1, {1.0, 1.0, 1.0});
  const std::unique_ptr<LatentSpace> space = make_latent_space("lorentz", kLatentDim);
  const Matrix latents = testing::random_lorentz_points(kConditioned, kLatentDim, 62);
  const RowMatrix Y = sample_gp_outputs(*kernel, 1e-2, latents, 8, CounterRng(63), 0);
  RowMatrix queries(kQueries, Y.cols());
  queries << Y.topRows(6), testing::random_normal(kQueries - 6, Y.cols(), 64);
  const RowPartition part(kQueries, comm.size());
  const Index begin = static_cast<Index>(part.begin(comm.rank())),
              count = static_cast<Index>(part.count(comm.rank()));
  LatentInferenceOptions options;
  options.conditioning_size = 0;
  const RowMatrix inferred = infer_latents(*kernel, 1e-2, *space, {distributed(Y, comm), latents},
                                           queries.middleRows(begin, count), options, comm);
  ASSERT_EQ(inferred.rows(), count);
  ASSERT_EQ(inferred.cols(), kLatentDim + 1);

  const GpPredictiveDensity density(*kernel, 1e-2, latents, Matrix(Y));
  Matrix start(kQueries, kLatentDim + 1);
  for (Index n = 0; n < kQueries; ++n) {
    Index nearest = 0;
    (Y.rowwise() - queries.row(n)).rowwise().squaredNorm().minCoeff(&nearest);
    start.row(n) = latents.row(nearest);
  }
  const Matrix serial =
      maximise_log_density(density, *space, queries, start, options, LatentBox::around(latents));
  for (Index i = 0; i < count; ++i) {
    const Index n = begin + i;
    // Not bit for bit: the products' rounding depends on how many rows a rank evaluates together, and
    // a step whose density change is at rounding level can be accepted in one and not the other
    // (5.5e-9 measured at 2 ranks, for a row the conditioning set barely explains).
    EXPECT_LT((inferred.row(i) - serial.row(n)).cwiseAbs().maxCoeff(), 1e-7) << "query " << n;
    const double minkowski =
        -inferred(i, 0) * inferred(i, 0) + inferred.row(i).tail(kLatentDim).squaredNorm();
    EXPECT_NEAR(minkowski, -1.0, 1e-12 * inferred(i, 0) * inferred(i, 0)) << "query " << n;
    if (n < 6) {
      EXPECT_LT(lorentz::distance(inferred.row(i), latents.row(n)), 1e-12) << "query " << n;
    }
  }
}

}  // namespace
}  // namespace gplvm
