// gplvm exact and gplvm evaluate against computations written here with the serial library:
// the exact predictive of test points is the SAS predictive with every training point active.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <regex>

#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/objectives/gp_marginal.hpp"
#include "gplvm/objectives/sas.hpp"
#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::read_fixture_matrix;
using testing::run_gplvm;
using testing::ScratchDir;

double json_number(const std::string& json, const std::string& key) {
  const std::regex pattern("\"" + key + "\":(-?[0-9.eE+-]+)");
  std::smatch m;
  if (!std::regex_search(json, m, pattern)) ADD_FAILURE() << key << " not in " << json;
  return m.size() > 1 ? std::stod(m[1]) : NAN;
}

struct Trained {
  ScratchDir dir;
  EqArdKernel kernel{1.0, 1.0, 2};
  double noise = 0;
  Trained() {
    const Matrix X = testing::random_normal(160, 2, 1);
    const RowMatrix Y = sample_gp_outputs(EqArdKernel(1.0, 1.0, 2), 0.02, X, 6, CounterRng(2), 0);
    std::vector<std::int64_t> labels(160);
    for (Index i = 0; i < 160; ++i) labels[i] = X(i, 0) > 0 ? 1 : 0;
    testing::write_fixture_matrix(dir / "train.h5", "/Y", Y.topRows(120));
    testing::write_fixture_labels(dir / "train.h5", "/labels", {labels.begin(), labels.begin() + 120});
    testing::write_fixture_matrix(dir / "test.h5", "/Y", Y.bottomRows(40));
    testing::write_fixture_labels(dir / "test.h5", "/labels", {labels.begin() + 120, labels.end()});
    testing::write_text(
        dir / "c.toml",
        "[data]\npath = \"train.h5\"\n[model]\nencoder_hidden = [16]\nlengthscale = 1.0\n"
        "[sas]\nbatch_size = 40\nactive_size = 10\n[train]\nepochs = 100\nlearning_rate = 0.01\n"
        "progress_seconds = 1000\n[output]\npath = \"run.h5\"\n");
    const auto r = run_gplvm("train --config c.toml", 2, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::vector<double> theta = testing::read_fixture_vector(dir / "run.h5", "/params/kernel/variance");
    const std::vector<double> ell =
        testing::read_fixture_vector(dir / "run.h5", "/params/kernel/lengthscales");
    kernel = EqArdKernel(theta[0], Eigen::Map<const Vector>(ell.data(), 2));
    noise = testing::read_fixture_vector(dir / "run.h5", "/params/noise_variance")[0];
  }
};

TEST(ExactCli, EqualsTheSerialExactLmlOfTheRunAtEveryGrid) {
  Trained t;
  const Matrix X = read_fixture_matrix(t.dir / "run.h5", "/latent/mean");
  const RowMatrix Y = read_fixture_matrix(t.dir / "train.h5", "/Y");
  const double serial = exact_log_marginal_likelihood(t.kernel, t.noise, X, Y, false).value;
  for (const std::string grid : {"1x1", "1x3", "3x1"}) {
    const auto r = run_gplvm("exact --run run.h5 --block 16 --json --grid " + grid, 3, t.dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NEAR(json_number(r.out, "log_marginal_likelihood"), serial, 1e-10 * std::abs(serial)) << grid;
  }
  // Bad input: a grid larger than the rank count, latents of a different N.
  EXPECT_NE(run_gplvm("exact --run run.h5 --grid 2x2", 3, t.dir).exit_code, 0);
  testing::write_fixture_matrix(t.dir / "short.h5", "/latent/mean", RowMatrix::Zero(100, 2));
  const auto bad = run_gplvm("exact --run run.h5 --latents short.h5", 2, t.dir);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("different N"), std::string::npos) << bad.err;
}

TEST(EvaluateCli, MetricsAndKnnEqualAnIndependentComputation) {
  Trained t;
  ASSERT_EQ(run_gplvm("encode --run run.h5 --data test.h5 --output test_latents.h5", 2, t.dir).exit_code, 0);
  const auto r =
      run_gplvm("evaluate --run run.h5 --test test.h5 --condition 0 --k 3 --json --output eval.h5", 3, t.dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(testing::read_fixture_vector(t.dir / "eval.h5", "/metrics/rmse")[0], json_number(r.out, "rmse"),
              1e-15);

  const Matrix X = read_fixture_matrix(t.dir / "run.h5", "/latent/mean");
  const RowMatrix Y = read_fixture_matrix(t.dir / "train.h5", "/Y");
  const Matrix Xs = read_fixture_matrix(t.dir / "test_latents.h5", "/latent/mean");
  const RowMatrix Ys = read_fixture_matrix(t.dir / "test.h5", "/Y");
  const SasActiveSet all = sas_active_set(t.kernel, t.noise, X, Y);
  const SasPredictive p = sas_predict(t.kernel, t.noise, all, X, Xs);
  double se = 0, ae = 0, nlpd = 0;
  for (Index n = 0; n < Ys.rows(); ++n)
    for (Index d = 0; d < Ys.cols(); ++d) {
      const double e = Ys(n, d) - p.mean(n, d);
      se += e * e;
      ae += std::abs(e);
      nlpd += 0.5 * std::log(2 * std::numbers::pi * p.variance[n]) + 0.5 * e * e / p.variance[n];
    }
  const double entries = static_cast<double>(Ys.size());
  EXPECT_NEAR(json_number(r.out, "rmse"), std::sqrt(se / entries), 1e-9);
  EXPECT_NEAR(json_number(r.out, "mae"), ae / entries, 1e-9);
  EXPECT_NEAR(json_number(r.out, "nlpd"), nlpd / entries, 1e-9);
  const RowMatrix written_mean = read_fixture_matrix(t.dir / "eval.h5", "/predictive/mean");
  EXPECT_LT((written_mean - RowMatrix(p.mean)).norm() / p.mean.norm(), 1e-10);

  // 3-NN by brute force here.
  const std::vector<double> train_labels = testing::read_fixture_vector(t.dir / "train.h5", "/labels");
  const std::vector<double> test_labels = testing::read_fixture_vector(t.dir / "test.h5", "/labels");
  int correct = 0;
  for (Index i = 0; i < Xs.rows(); ++i) {
    std::vector<std::pair<double, Index>> d;
    for (Index j = 0; j < X.rows(); ++j) d.push_back({(X.row(j) - Xs.row(i)).squaredNorm(), j});
    std::sort(d.begin(), d.end());
    int ones = 0;
    for (int k = 0; k < 3; ++k) ones += train_labels[d[k].second] == 1;
    correct += (ones >= 2 ? 1 : 0) == test_labels[i];
  }
  EXPECT_NEAR(json_number(r.out, "knn_accuracy"), correct / 40.0, 1e-12);
}

}  // namespace
}  // namespace gplvm
