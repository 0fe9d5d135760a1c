// The linear basepoint through the commands: gplvm train (model.kind = exact, model.output_space =
// sphere, model.basepoint = linear) writes A and mu0; predict's mean and samples are recomputed here
// from the run file alone (the GP posterior of the training points' coordinates at m(x) in the data's
// own frame, pushed by Exp_{m(x*)}), lie on the sphere to 1e-12, and evaluate's intrinsic RMSE is the
// one of predict at evaluate's held-out latents; info names the basepoint and its map.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gplvm/linalg/cholesky.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/sphere_linear_basepoint.hpp"
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

class LinearBasepointCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir;
    ASSERT_EQ(run_gplvm("generate --kind sphere_curve --n 40 --seed 1 --output train.h5", 0, *dir_).exit_code,
              0);
    ASSERT_EQ(run_gplvm("generate --kind sphere_curve --n 12 --seed 2 --output test.h5", 0, *dir_).exit_code,
              0);
    const CliResult r = run_gplvm(
        "train --data.path=train.h5 --output.path=run.h5 --output.checkpoint_dir=ck --model.kind=exact "
        "--model.output_space=sphere --model.basepoint=linear --model.latent_dim=1 "
        "--exact.max_iterations=200",
        0, *dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static ScratchDir* dir_;
};

ScratchDir* LinearBasepointCli::dir_ = nullptr;

TEST_F(LinearBasepointCli, RunFileHoldsTheLearntMapAndInfoNamesIt) {
  const ScratchDir& dir = *dir_;
  const RowMatrix A = read_fixture_matrix(dir / "run.h5", "/params/basepoint_map");
  ASSERT_EQ(A.rows(), 2);  // S^2: 2 tangent coordinates, Q = 1
  ASSERT_EQ(A.cols(), 1);
  EXPECT_GT(A.norm(), 1e-3);  // learnt from 0
  // The same numbers end the replicated parameters that predict reads back.
  const std::vector<double> shared = read_fixture_vector(dir / "run.h5", "/params/shared");
  EXPECT_EQ(shared[shared.size() - 2], A(0, 0));
  EXPECT_EQ(shared[shared.size() - 1], A(1, 0));
  CliResult r = run_gplvm("info run.h5", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("linear basepoint"), std::string::npos) << r.out;
  r = run_gplvm("info run.h5 --json", 0, dir);
  EXPECT_NE(r.out.find("\"basepoint_kind\":\"linear\""), std::string::npos) << r.out;
  const auto at = r.out.find("\"basepoint_map\":[[");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_DOUBLE_EQ(std::stod(r.out.substr(at + 18)), A(0, 0));
}

TEST_F(LinearBasepointCli, PredictIsTheWrappedPosteriorAtTheMovingBasepoint) {
  const ScratchDir& dir = *dir_;
  ASSERT_EQ(run_gplvm("evaluate --run run.h5 --test test.h5 --output ev.h5", 0, dir).exit_code, 0);
  const CliResult r =
      run_gplvm("predict --run run.h5 --latents ev.h5 --samples 6 --seed 4 --output p.h5", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Everything from the run file: mu0, B0, A, the kernel, the noise and the training latents.
  const std::string run = dir / "run.h5";
  const std::vector<double> mu = read_fixture_vector(run, "/output_space/basepoint");
  const Vector mu0 = Eigen::Map<const Vector>(mu.data(), 3);
  const SphereLinearBasepoint basepoint(mu0, read_fixture_matrix(run, "/output_space/tangent_basis"),
                                        read_fixture_matrix(run, "/params/basepoint_map"));
  const EqArdKernel kernel(read_fixture_vector(run, "/params/kernel/variance")[0],
                           Vector::Constant(1, read_fixture_vector(run, "/params/kernel/lengthscales")[0]));
  const double noise = read_fixture_vector(run, "/params/noise_variance")[0];
  const Matrix X = read_fixture_matrix(run, "/latent/mean");
  const RowMatrix points = read_fixture_matrix(dir / "train.h5", "/Y");
  RowMatrix V(X.rows(), 2);
  for (Index j = 0; j < X.rows(); ++j)
    V.row(j) = basepoint.coordinates(X.row(j).transpose(), points.row(j).transpose(), nullptr).transpose();
  Matrix K;
  kernel.cross(X, X, K);
  K.diagonal().array() += noise;
  const Matrix alpha = K.llt().solve(Matrix(V));
  const Matrix Xs = read_fixture_matrix(dir / "ev.h5", "/latent/mean");
  Matrix Ks;
  kernel.cross(Xs, X, Ks);
  const Matrix c = Ks * alpha;
  const RowMatrix mean = read_fixture_matrix(dir / "p.h5", "/predictive/mean");
  const RowMatrix samples = read_fixture_matrix(dir / "p.h5", "/predictive/samples");
  ASSERT_EQ(mean.rows(), Xs.rows());
  ASSERT_EQ(samples.cols(), 6 * 3);
  double worst = 0.0, off_sphere = 0.0;
  for (Index i = 0; i < Xs.rows(); ++i) {
    const Vector expected = basepoint.point(Xs.row(i).transpose(), c.row(i).transpose());
    worst = std::max(worst, (mean.row(i).transpose() - expected).norm());
    off_sphere = std::max(off_sphere, std::abs(mean.row(i).norm() - 1.0));
    for (Index s = 0; s < 6; ++s)
      off_sphere = std::max(off_sphere, std::abs(samples.row(i).segment(3 * s, 3).norm() - 1.0));
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(off_sphere, 1e-12);
  // evaluate's intrinsic RMSE is that of these mean predictions against the held-out points.
  const RowMatrix truth = read_fixture_matrix(dir / "test.h5", "/Y");
  double squares = 0.0;
  for (Index i = 0; i < truth.rows(); ++i)
    squares += std::pow(std::acos(std::clamp(mean.row(i).dot(truth.row(i)), -1.0, 1.0)), 2);
  const CliResult ev = run_gplvm("evaluate --run run.h5 --test test.h5 --json", 0, dir);
  ASSERT_EQ(ev.exit_code, 0) << ev.err;
  EXPECT_NEAR(json_number(ev.out, "intrinsic_rmse"), std::sqrt(squares / truth.rows()), 1e-9);
}

TEST_F(LinearBasepointCli, EvaluateAndPredictGiveTheSerialNumbersAtTwoAndThreeRanks) {
  const ScratchDir& dir = *dir_;
  const CliResult serial = run_gplvm("evaluate --run run.h5 --test test.h5 --output e0.h5 --json", 0, dir);
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  for (const int ranks : {2, 3}) {
    const CliResult r = run_gplvm(
        "evaluate --run run.h5 --test test.h5 --output e" + std::to_string(ranks) + ".h5 --json", ranks, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NEAR(json_number(r.out, "intrinsic_rmse"), json_number(serial.out, "intrinsic_rmse"), 1e-7);
    const CliResult p = run_gplvm("predict --run run.h5 --latents e0.h5 --samples 3 --seed 1 --output q" +
                                      std::to_string(ranks) + ".h5",
                                  ranks, dir);
    ASSERT_EQ(p.exit_code, 0) << p.err;
  }
  ASSERT_EQ(
      run_gplvm("predict --run run.h5 --latents e0.h5 --samples 3 --seed 1 --output q0.h5", 0, dir).exit_code,
      0);
  for (const int ranks : {2, 3})
    for (const std::string dataset : {"/predictive/mean", "/predictive/samples"})
      EXPECT_LT((read_fixture_matrix(dir / ("q" + std::to_string(ranks) + ".h5"), dataset) -
                 read_fixture_matrix(dir / "q0.h5", dataset))
                    .cwiseAbs()
                    .maxCoeff(),
                1e-12)
          << dataset << " at " << ranks;
}

}  // namespace
}  // namespace gplvm
