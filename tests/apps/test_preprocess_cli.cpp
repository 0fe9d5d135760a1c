// data.center / data.standardize through the commands: train stores the per-column mean and scale
// (equal to NumPy's np.mean and np.std, computed here by /usr/bin/python3 from the data file),
// encode applies them again (encoding the training data reproduces the run's latents), and
// evaluate reports predictions and metrics in the data's original units. At 1 and 2 ranks.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <regex>
#include <sstream>

#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::read_fixture_matrix;
using testing::read_fixture_vector;
using testing::run_gplvm;
using testing::ScratchDir;

constexpr Index kTrain = 90, kTest = 30, kCols = 5;

// Output of a shell command (empty if it failed).
std::string shell_output(const std::string& command) {
  std::array<char, 4096> buffer{};
  std::string out;
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return out;
  while (fgets(buffer.data(), buffer.size(), pipe.get())) out += buffer.data();
  return out;
}

// NumPy's column means and population standard deviations of a dataset, one line each.
bool numpy_column_stats(const std::string& file, std::vector<double>& mean, std::vector<double>& std) {
  const std::string out =
      shell_output("/usr/bin/python3 -c \"import h5py, numpy as np; y = np.asarray(h5py.File('" + file +
                   "', 'r')['/Y'], dtype=np.float64); print(' '.join(repr(v) for v in y.mean(axis=0))); "
                   "print(' '.join(repr(v) for v in y.std(axis=0)))\" 2>/dev/null");
  std::istringstream lines(out);
  std::string line;
  for (std::vector<double>* v : {&mean, &std}) {
    if (!std::getline(lines, line)) return false;
    std::istringstream values(line);
    for (double x; values >> x;) v->push_back(x);
  }
  return mean.size() == kCols && std.size() == kCols;
}

double json_number(const std::string& json, const std::string& key) {
  const std::regex pattern("\"" + key + "\":(-?[0-9.eE+-]+)");
  std::smatch m;
  if (!std::regex_search(json, m, pattern)) ADD_FAILURE() << key << " not in " << json;
  return m.size() > 1 ? std::stod(m[1]) : NAN;
}

// GP data in units far from the defaults' (column d scaled by 10^(d-1), shifted by 50), plus a
// constant column 4, split into training and test files.
void write_data(const ScratchDir& dir) {
  const Matrix X = testing::random_normal(kTrain + kTest, 2, 5);
  RowMatrix Y = sample_gp_outputs(EqArdKernel(1.0, 1.0, 2), 0.01, X, kCols, CounterRng(6), 0);
  for (Index d = 0; d < kCols; ++d)
    Y.col(d) = Y.col(d) * std::pow(10.0, d - 1) + Vector::Constant(Y.rows(), 50.0);
  Y.col(4).setConstant(3.0);
  testing::write_fixture_matrix(dir / "train.h5", "/Y", Y.topRows(kTrain));
  testing::write_fixture_matrix(dir / "test.h5", "/Y", Y.bottomRows(kTest));
}

void write_config(const ScratchDir& dir) {
  testing::write_text(dir / "c.toml",
                      "[data]\npath = \"train.h5\"\ncenter = true\nstandardize = true\n"
                      "[model]\nencoder_hidden = [8]\nlengthscale = 1.0\n"
                      "[sas]\nbatch_size = 30\nactive_size = 10\n[train]\nepochs = 20\nlearning_rate = 0.01\n"
                      "progress_seconds = 1000\n[output]\npath = \"run.h5\"\n");
}

TEST(PreprocessCli, StoredTransformEqualsNumpysAndEncodeAndEvaluateApplyIt) {
  for (const int ranks : {1, 2}) {
    ScratchDir dir;
    write_data(dir);
    write_config(dir);
    const auto r = run_gplvm("train --config c.toml", ranks, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("column(s) 4 are constant"), std::string::npos) << r.err;

    std::vector<double> mean, std;
    if (!numpy_column_stats(dir / "train.h5", mean, std))
      GTEST_SKIP() << "needs /usr/bin/python3 with numpy, h5py";
    const std::vector<double> stored_mean = read_fixture_vector(dir / "run.h5", "/preprocess/mean");
    const std::vector<double> stored_scale = read_fixture_vector(dir / "run.h5", "/preprocess/scale");
    ASSERT_EQ(stored_mean.size(), kCols);
    for (Index d = 0; d < kCols; ++d) {
      EXPECT_NEAR(stored_mean[d], mean[d], 1e-12 * std::abs(mean[d])) << d;
      const double want = d == 4 ? 1.0 : std[d];  // the constant column stays unscaled
      EXPECT_NEAR(stored_scale[d], want, 1e-10 * want) << d;
    }

    // Encoding the training data again gives the run's latents only if the transform is applied.
    ASSERT_EQ(run_gplvm("encode --run run.h5 --data train.h5 --output enc.h5", ranks, dir).exit_code, 0);
    const RowMatrix run_latents = read_fixture_matrix(dir / "run.h5", "/latent/mean");
    const RowMatrix encoded = read_fixture_matrix(dir / "enc.h5", "/latent/mean");
    EXPECT_LT((run_latents - encoded).cwiseAbs().maxCoeff(), 1e-10) << ranks;

    // Evaluate: predictions in the data's units, and the metrics it reports are those of them.
    const auto e =
        run_gplvm("evaluate --run run.h5 --test test.h5 --condition 0 --json --output eval.h5", ranks, dir);
    ASSERT_EQ(e.exit_code, 0) << e.err;
    const RowMatrix Y = read_fixture_matrix(dir / "test.h5", "/Y");
    const RowMatrix mu = read_fixture_matrix(dir / "eval.h5", "/predictive/mean");
    const RowMatrix var = read_fixture_matrix(dir / "eval.h5", "/predictive/variance");
    ASSERT_EQ(var.rows(), kTest);
    ASSERT_EQ(var.cols(), kCols);  // per entry: each column has its own scale
    const Matrix error = Y - mu;
    EXPECT_NEAR(json_number(e.out, "rmse"), std::sqrt(error.squaredNorm() / error.size()), 1e-9);
    const double nlpd = 0.5 * std::log(2 * std::numbers::pi) +
                        0.5 * (var.array().log() + error.array().square() / var.array()).mean();
    EXPECT_NEAR(json_number(e.out, "nlpd"), nlpd, 1e-9 * std::abs(nlpd));
    EXPECT_LT((mu.col(4).array() - 3.0).abs().maxCoeff(), 1e-9);  // the constant column is predicted exactly
    EXPECT_LT(std::sqrt(error.col(3).squaredNorm() / kTest),
              100.0);  // its spread is ~100: better than nothing
  }
}

// Where the variances cannot follow the data (the user set one; tests/apps/test_automatic_budget_cli.cpp
// has the case where they do), the scale is warned about.
TEST(PreprocessCli, WarnsWhenTheDataScaleDefeatsTheDefaults) {
  ScratchDir dir;
  write_data(dir);
  write_config(dir);
  const auto r = run_gplvm(
      "train --config c.toml --data.standardize=false --data.center=false --train.epochs=1 "
      "--model.kernel_variance=0.5",
      0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("data.standardize = true"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("model.noise_variance"), std::string::npos) << r.err;
  const std::vector<double> scale = read_fixture_vector(dir / "run.h5", "/preprocess/scale");
  EXPECT_EQ(scale, std::vector<double>(kCols, 1.0));  // stored as the identity
  const auto quiet = run_gplvm("train --config c.toml --train.epochs=1", 0, dir);
  EXPECT_EQ(quiet.err.find("data.standardize = true"), std::string::npos) << quiet.err;
}

}  // namespace
}  // namespace gplvm
