// Initialisation from data under mpirun at 1-4 ranks: free latents start as the data's principal
// components (model.init = "pca") and must equal a PCA computed here independently (Eigen's SVD of
// the whole centred matrix: Z = U_Q sqrt(N), unit variance per column) up to the sign of each
// column, for SAS, Bayesian SAS and the sparse GPLVM alike; an amortised encoder pre-trained to
// those latents must come out the same at every rank count as in one process.
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <cmath>

#include "gplvm/model/encoder_layout.hpp"
#include "gplvm/models/encoder_pretraining.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 37, kCols = 5, kLatent = 2;

// Columns of different spread, correlated through a mixing matrix, away from zero mean.
RowMatrix data() {
  const Matrix base = testing::random_normal(kRows, kCols, 11);
  Matrix mix = testing::random_normal(kCols, kCols, 12);
  mix.diagonal().array() += 3.0;
  RowMatrix Y = base * mix;
  for (Index j = 0; j < kCols; ++j) Y.col(j) = Y.col(j) * (1.0 + j) + Vector::Constant(kRows, 5.0 - j);
  return Y;
}

Matrix reference_pca(const RowMatrix& Y, Index q) {
  const Matrix centred = Y.rowwise() - Y.colwise().mean();
  const Eigen::JacobiSVD<Matrix> svd(centred, Eigen::ComputeThinU);
  return svd.matrixU().leftCols(q) * std::sqrt(static_cast<double>(Y.rows()));
}

// Largest |difference| after flipping each column of `got` to agree in sign with `want`.
double distance_up_to_sign(const Matrix& got, const Matrix& want) {
  double worst = 0.0;
  for (Index q = 0; q < got.cols(); ++q) {
    const double sign = got.col(q).dot(want.col(q)) < 0 ? -1.0 : 1.0;
    worst = std::max(worst, (sign * got.col(q) - want.col(q)).cwiseAbs().maxCoeff());
  }
  return worst;
}

struct Local {
  RowPartition partition;
  Index begin, count;
};
Local local_rows(const Communicator& comm) {
  const RowPartition p(kRows, comm.size());
  return {p, static_cast<Index>(p.begin(comm.rank())), static_cast<Index>(p.count(comm.rank()))};
}

SasModelConfig sas_config(bool bayesian, LatentKind latents) {
  SasModelConfig c;
  c.data_dim = kCols;
  c.latent_dim = kLatent;
  c.bayesian = bayesian;
  c.latents = latents;
  c.encoder_hidden = {8};
  c.active_size = 5;
  return c;
}

TEST(LatentInitialisation, FreeSasLatentsArePcaUpToSignAtAnyRankCount) {
  const Communicator comm;
  const RowMatrix Y = data();
  const Local l = local_rows(comm);
  const Matrix want = reference_pca(Y, kLatent).middleRows(l.begin, l.count);
  for (const bool bayesian : {false, true}) {
    SasModelConfig c = sas_config(bayesian, LatentKind::free);
    c.free_latent_scale = 0.5;
    SasModel model(c, kRows, l.begin, l.count);
    model.initialise_from_data(comm, l.partition, DataRef(Y.middleRows(l.begin, l.count)));
    const RowMatrix rows = model.local_block_rows(model.initial_parameters());
    EXPECT_LT(distance_up_to_sign(rows.leftCols(kLatent), 0.5 * want), 1e-10) << "bayesian " << bayesian;
    if (bayesian) {
      EXPECT_TRUE((rows.rightCols(kLatent).array() == std::log(c.free_latent_variance)).all());
    }
  }
}

TEST(LatentInitialisation, RandomInitIgnoresTheData) {
  const Communicator comm;
  const RowMatrix Y = data();
  const Local l = local_rows(comm);
  SasModelConfig c = sas_config(false, LatentKind::free);
  c.init = LatentInit::random;
  SasModel model(c, kRows, l.begin, l.count);
  const Vector before = model.initial_parameters();
  model.initialise_from_data(comm, l.partition, DataRef(Y.middleRows(l.begin, l.count)));
  EXPECT_EQ(model.initial_parameters(), before);
}

TEST(LatentInitialisation, SparseGplvmFreeLatentsArePcaUpToSign) {
  const Communicator comm;
  const RowMatrix Y = data();
  const Local l = local_rows(comm);
  SparseGplvmConfig c;
  c.data_dim = kCols;
  c.latent_dim = kLatent;
  c.num_inducing = 4;
  c.training = SparseTraining::full_batch;
  SparseGplvmModel model(c, kRows, l.begin, l.count);
  model.initialise_from_data(comm, l.partition, DataRef(Y.middleRows(l.begin, l.count)));
  const RowMatrix rows = model.local_block_rows(model.initial_parameters());
  EXPECT_LT(
      distance_up_to_sign(rows.leftCols(kLatent), reference_pca(Y, kLatent).middleRows(l.begin, l.count)),
      1e-10);
}

TEST(LatentInitialisation, EncoderPretrainingFitsPcaLatentsAsInOneProcess) {
  const Communicator comm, self(MPI_COMM_SELF);
  const RowMatrix Y = data();
  const Local l = local_rows(comm);
  const Matrix targets = reference_pca(Y, kLatent);
  const Mlp encoder(mean_encoder_layout({kCols, kLatent, {8}, Activation::tanh}));
  Vector start(encoder.num_parameters());
  encoder.initialize(start.data(), CounterRng(3), 0);
  EncoderPretraining options;
  options.steps = 60;
  options.batch_size = 10;
  options.adam.learning_rate = 0.02;
  options.seed = 4;

  Vector serial = start;
  const PretrainingLoss one =
      pretrain_encoder(encoder, serial.data(), self, RowPartition(kRows, 1), DataRef(Y), targets, options);
  EXPECT_LT(one.after, 0.2 * one.before);  // it learns the regression
  Vector distributed = start;
  const PretrainingLoss many = pretrain_encoder(encoder, distributed.data(), comm, l.partition,
                                                DataRef(Y.middleRows(l.begin, l.count)),
                                                targets.middleRows(l.begin, l.count), options);
  EXPECT_LT((distributed - serial).cwiseAbs().maxCoeff(), 1e-9 * serial.cwiseAbs().maxCoeff());
  EXPECT_NEAR(many.after, one.after, 1e-9 * one.before);
  // The loss it reports is the one defined: 1/(2N) sum ||f(y_n) - z_n||^2.
  Mlp::Workspace ws;
  Matrix out;
  encoder.forward<double>(serial.data(), DataRef(Y), ws, out);
  EXPECT_NEAR(one.after, (out - targets).squaredNorm() / (2.0 * kRows), 1e-12);
}

}  // namespace
}  // namespace gplvm
