// `gplvm embed` and `gplvm train --model.kind=probdr` end to end: the closed-form (spectral) fit and
// the gradient (L-BFGS) fit reach the same optimum (equal Gram matrices X X^T: the objective does
// not see a rotation of X); the fit is the same at 1, 2 and 3 ranks; the run file is one that info,
// export and embedding-metrics read; and bad input (k >= n, a disconnected graph, NaN data, an
// unknown method, a minibatch optimiser) is refused with exit 2 and no run file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_fixture_matrix;
using testing::run_gplvm;
using testing::ScratchDir;

constexpr Index kRows = 120;

// A noisy helix in R^3: one intrinsic dimension, a connected 8-NN graph.
RowMatrix helix(Index rows, std::uint64_t seed) {
  const Matrix noise = testing::random_normal(rows, 3, seed);
  RowMatrix y(rows, 3);
  for (Index i = 0; i < rows; ++i) {
    const double t = 4.0 * M_PI * static_cast<double>(i) / static_cast<double>(rows);
    y.row(i) << std::cos(t), std::sin(t), 0.3 * t;
  }
  return y + 0.02 * noise;
}

struct Sandbox {
  ScratchDir dir;
  Sandbox() {
    testing::write_fixture_matrix(dir / "data.h5", "/Y", helix(kRows, 7));
    fs::create_directories(dir.path() / "out");
  }
};

double relative_gram_difference(const RowMatrix& a, const RowMatrix& b) {
  const RowMatrix ga = a * a.transpose(), gb = b * b.transpose();
  return (ga - gb).norm() / gb.norm();
}

// A gently curved 2-D sheet in R^3: two well-separated directions for LLE and Isomap, whose
// objectives on the helix (one intrinsic dimension, the second eigenvalue near the rest) are too
// flat for L-BFGS to reach 1e-8 in a test's time. Isomap's geodesic Gram matrix of the sheet has
// negative discarded eigenvalues, so its noise is fixed there.
RowMatrix sheet(Index rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const Matrix noise = testing::random_normal(rows, 3, seed + 1);
  RowMatrix y(rows, 3);
  for (Index i = 0; i < rows; ++i) {
    const double u = uniform(rng), v = 0.6 * uniform(rng);
    y.row(i) << u, v, 0.3 * std::sin(2.0 * u);
  }
  return y + 0.01 * noise;
}

struct MethodCase {
  const char* method;
  const char* data;   // data.h5 (the helix) or sheet.h5
  const char* extra;  // the method's settings
};

// Tight L-BFGS tolerances: the gradient fit must converge far enough to be compared at 1e-8.
const char* kTight =
    " --full_batch.gatol=1e-11 --full_batch.grtol=0 --full_batch.frtol=0 --full_batch.max_iterations=20000";

class ProbdrFits : public ::testing::TestWithParam<MethodCase> {};

// The closed form at 1 and 3 ranks, and L-BFGS from the PCA start at 2 ranks.
TEST_P(ProbdrFits, TheSpectralFitIsRankInvariantAndTheGradientFitReachesIt) {
  Sandbox r;
  testing::write_fixture_matrix(r.dir / "sheet.h5", "/Y", sheet(kRows, 21));
  const MethodCase c = GetParam();
  const std::string common =
      std::string("embed --method ") + c.method + " --data " + c.data + " --graph.k=8 " + c.extra;
  for (int ranks : {1, 3}) {
    const CliResult spectral =
        run_gplvm(common + " --output out/spectral" + std::to_string(ranks) + ".h5", ranks, r.dir);
    ASSERT_EQ(spectral.exit_code, 0) << spectral.err;
  }
  const CliResult gradient =
      run_gplvm(common + " --output out/gradient.h5 --probdr.fit=gradient" + kTight, 2, r.dir);
  ASSERT_EQ(gradient.exit_code, 0) << gradient.err;

  const RowMatrix xs = read_fixture_matrix(r.dir / "out/spectral1.h5", "/latent/mean");
  ASSERT_EQ(xs.rows(), kRows);
  ASSERT_EQ(xs.cols(), 2);
  // Eigenvector signs follow a rank-count-independent convention: the latents themselves agree.
  const RowMatrix x3 = read_fixture_matrix(r.dir / "out/spectral3.h5", "/latent/mean");
  EXPECT_LT((x3 - xs).norm() / xs.norm(), 1e-9) << c.method << " at 3 ranks";

  const RowMatrix xg = read_fixture_matrix(r.dir / "out/gradient.h5", "/latent/mean");
  const double difference = relative_gram_difference(xg, xs);
  EXPECT_LT(difference, 1e-8) << c.method;
  // The same noise; a fixed one (probdr.fixed_noise) is held at its value bit for bit by L-BFGS.
  const std::vector<double> ns =
      testing::read_fixture_vector(r.dir / "out/spectral1.h5", "/params/noise_variance");
  const std::vector<double> ng =
      testing::read_fixture_vector(r.dir / "out/gradient.h5", "/params/noise_variance");
  ASSERT_EQ(ns.size(), 1u);
  ASSERT_EQ(ng.size(), 1u);
  EXPECT_NEAR(ng[0], ns[0], 1e-7 * ns[0]) << c.method;
  if (std::string(c.extra).find("fixed_noise=0.01") != std::string::npos) {
    EXPECT_NEAR(ns[0], 0.01, 1e-15) << c.method;  // exp(log 0.01): the parameter is the log
    EXPECT_EQ(ng[0], ns[0]) << c.method;
  }
  // Both maximise -KL: the gradient fit ends at the closed form's value.
  const RowMatrix cs = read_fixture_matrix(r.dir / "out/spectral1.h5", "/train/curve");
  const RowMatrix cg = read_fixture_matrix(r.dir / "out/gradient.h5", "/train/curve");
  EXPECT_NEAR(cg(cg.rows() - 1, 2), cs(0, 2), 1e-9 * std::abs(cs(0, 2))) << c.method;
  std::printf("[ measured ] %s: Gram difference spectral vs gradient %.2e after %d L-BFGS iterations\n",
              c.method, difference, static_cast<int>(cg.rows()) - 1);
}

INSTANTIATE_TEST_SUITE_P(
    Methods, ProbdrFits,
    ::testing::Values(MethodCase{"pca", "data.h5", ""}, MethodCase{"cmds", "data.h5", ""},
                      MethodCase{"isomap", "sheet.h5", "--probdr.fixed_noise=0.01"},
                      MethodCase{"kpca", "data.h5", ""}, MethodCase{"le", "data.h5", ""},
                      MethodCase{"lle", "sheet.h5", "--graph.k=12 --probdr.precision_regularisation=1e-2"},
                      MethodCase{"dmaps", "data.h5", ""}),
    [](const auto& info) { return std::string(info.param.method); });

TEST(ProbdrCli, TheRunFileIsReadByInfoExportAndEmbeddingMetrics) {
  Sandbox r;
  ASSERT_EQ(run_gplvm("embed --method le --data data.h5 --output out/le.h5 --graph.k=8", 2, r.dir).exit_code,
            0);
  const CliResult info = run_gplvm("info out/le.h5", 0, r.dir);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_TRUE(testing::contains(info.out, "ProbDR le, spectral fit")) << info.out;
  const CliResult exported =
      run_gplvm("export --run out/le.h5 --format csv --output out/le_export", 0, r.dir);
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  const CliResult metrics =
      run_gplvm("embedding-metrics --latents out/le.h5 --data data.h5 --k 5 --json", 0, r.dir);
  EXPECT_EQ(metrics.exit_code, 0) << metrics.err;
  // Data far from unit scale: the GP kinds' warning about their default hyperparameters does not apply.
  testing::write_fixture_matrix(r.dir / "wide.h5", "/Y", 50.0 * helix(kRows, 7));
  const CliResult wide = run_gplvm("embed --method pca --data wide.h5 --output out/wide.h5", 0, r.dir);
  EXPECT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_FALSE(testing::contains(wide.err, "default hyperparameters")) << wide.err;
  const RowMatrix classical = read_fixture_matrix(r.dir / "out/le.h5", "/probdr/classical");
  EXPECT_EQ(classical.rows(), kRows);
  EXPECT_EQ(classical.cols(), 2);
}

void expect_refused(const Sandbox& r, const std::string& args, const std::string& needle) {
  const CliResult c = run_gplvm(args + " --output out/refused.h5", 2, r.dir);
  EXPECT_EQ(c.exit_code, 2) << args << "\n" << c.err;
  EXPECT_TRUE(testing::contains(c.err, needle)) << args << "\nstderr: " << c.err;
  EXPECT_FALSE(fs::exists(r.dir.path() / "out/refused.h5")) << args;
}

TEST(ProbdrCli, BadInputIsRefusedWithExitTwoAndNoRunFile) {
  Sandbox r;
  expect_refused(r, "embed --method le --data data.h5 --graph.k=" + std::to_string(kRows), "graph.k");
  expect_refused(r, "embed --method nope --data data.h5", "probdr.method");
  expect_refused(r, "embed --method le --data data.h5 --optim.method=adam", "optim.method");
  expect_refused(r, "embed --method le --data data.h5 --probdr.precision_regularisation=0",
                 "probdr.precision_regularisation");
  // Three far-apart clusters: the k-NN graph falls apart.
  RowMatrix clusters = testing::random_normal(90, 3, 11);
  for (Index i = 0; i < 90; ++i) clusters(i, 0) += 100.0 * static_cast<double>(i / 30);
  testing::write_fixture_matrix(r.dir / "clusters.h5", "/Y", clusters);
  expect_refused(r, "embed --method le --data clusters.h5 --graph.k=5", "connected components");
  RowMatrix with_nan = helix(kRows, 3);
  with_nan(17, 1) = std::nan("");
  testing::write_fixture_matrix(r.dir / "nan.h5", "/Y", with_nan);
  expect_refused(r, "embed --method le --data nan.h5", "nan.h5");
}

}  // namespace
}  // namespace gplvm
