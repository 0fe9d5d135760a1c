// A manifold run's evaluate and predict at 1, 2, 3 and 4 ranks against one process without MPI:
// the same metrics, held-out latents, points and samples (the held-out latents are inferred by an
// ascent whose accept/reject decisions see the conditioning set's rounding: latents agree to about
// 1e-9 and predictions through them to about 1e-8, hence a bound of 1e-7, not bits);
// and gplvm info naming the run's output space and the chart's basepoint.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::read_fixture_matrix;
using testing::read_fixture_vector;
using testing::run_gplvm;
using testing::ScratchDir;

double json_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  EXPECT_NE(at, std::string::npos) << key << " in " << json;
  return at == std::string::npos ? 0.0 : std::stod(json.substr(at + key.size() + 3));
}

double max_difference(const RowMatrix& a, const RowMatrix& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  return a.rows() == b.rows() && a.cols() == b.cols() ? (a - b).cwiseAbs().maxCoeff() : 1.0;
}

class WrappedRanksCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir;
    ASSERT_EQ(run_gplvm("generate --kind sphere_curve --n 40 --seed 1 --output train.h5", 0, *dir_).exit_code,
              0);
    ASSERT_EQ(run_gplvm("generate --kind sphere_curve --n 13 --seed 2 --output test.h5", 0, *dir_).exit_code,
              0);
    const CliResult r = run_gplvm(
        "train --data.path=train.h5 --output.path=run.h5 --output.checkpoint_dir=ck --model.kind=exact "
        "--model.output_space=sphere --model.latent_dim=1",
        0, *dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static ScratchDir* dir_;
};

ScratchDir* WrappedRanksCli::dir_ = nullptr;

TEST_F(WrappedRanksCli, EvaluateGivesTheSerialNumbersAtOneToFourRanks) {
  const ScratchDir& dir = *dir_;
  const CliResult serial = run_gplvm("evaluate --run run.h5 --test test.h5 --output ev0.h5 --json", 0, dir);
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  for (int ranks = 1; ranks <= 4; ++ranks) {
    const std::string out = "ev" + std::to_string(ranks) + ".h5";
    const CliResult r =
        run_gplvm("evaluate --run run.h5 --test test.h5 --output " + out + " --json", ranks, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const std::string key : {"rmse", "nlpd", "intrinsic_rmse", "euclidean_rmse"}) {
      const double expected = json_number(serial.out, key);
      EXPECT_NEAR(json_number(r.out, key), expected, 1e-7 * std::max(1.0, std::fabs(expected)))
          << key << ranks;
    }
    for (const std::string dataset : {"/latent/mean", "/predictive/manifold_mean", "/predictive/variance"})
      EXPECT_LT(max_difference(read_fixture_matrix(dir / out, dataset),
                               read_fixture_matrix(dir / "ev0.h5", dataset)),
                1e-7)
          << dataset << " at " << ranks << " ranks";
  }
}

TEST_F(WrappedRanksCli, PredictGivesTheSerialPointsAndSamplesAtOneToFourRanks) {
  const ScratchDir& dir = *dir_;
  ASSERT_EQ(run_gplvm("evaluate --run run.h5 --test test.h5 --output lat.h5", 0, dir).exit_code, 0);
  const std::string args = "predict --run run.h5 --latents lat.h5 --samples 7 --seed 5 --output ";
  ASSERT_EQ(run_gplvm(args + "p0.h5", 0, dir).exit_code, 0);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    const std::string out = "p" + std::to_string(ranks) + ".h5";
    const CliResult r = run_gplvm(args + out, ranks, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const std::string dataset :
         {"/predictive/mean", "/predictive/tangent_mean", "/predictive/variance", "/predictive/samples"})
      EXPECT_LT(max_difference(read_fixture_matrix(dir / out, dataset),
                               read_fixture_matrix(dir / "p0.h5", dataset)),
                1e-12)
          << dataset << " at " << ranks << " ranks";
  }
}

TEST_F(WrappedRanksCli, InfoNamesTheOutputSpaceAndTheBasepoint) {
  const ScratchDir& dir = *dir_;
  CliResult r = run_gplvm("info run.h5", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("output space sphere, constant basepoint"), std::string::npos) << r.out;
  r = run_gplvm("info run.h5 --json", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"output_space\":\"sphere\""), std::string::npos) << r.out;
  EXPECT_EQ(json_number(r.out, "tangent_dim"), 2.0);
  const std::vector<double> mu = read_fixture_vector(dir / "run.h5", "/output_space/basepoint");
  const auto at = r.out.find("\"basepoint\":[");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string rest = r.out.substr(at + 13);
  for (const double expected : mu) {
    EXPECT_DOUBLE_EQ(std::stod(rest), expected);
    rest = rest.substr(rest.find_first_of(",]") + 1);
  }
  // A Euclidean run says so.
  ASSERT_EQ(
      run_gplvm(
          "train --data.path=train.h5 --output.path=euc.h5 --output.checkpoint_dir=ck2 --model.kind=exact "
          "--exact.max_iterations=5",
          0, dir)
          .exit_code,
      0);
  r = run_gplvm("info euc.h5 --json", 0, dir);
  EXPECT_NE(r.out.find("\"output_space\":\"euclidean\""), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gplvm
