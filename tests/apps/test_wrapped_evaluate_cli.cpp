// gplvm evaluate and predict on manifold data: reconstruction RMSE by the intrinsic and the
// Euclidean distance against NumPy/SciPy (Exp_mu of the tangent mean, or the projection of a
// Euclidean run's mean, then arccos / chord on the sphere, |log P - log Q|_F / |P - Q|_F on SPD),
// and predictive samples that lie on the manifold, do not depend on the rank count and scatter
// like the predictive variance.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gplvm/manifold/manifold.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/python_reference.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::python_reference;
using testing::read_fixture_matrix;
using testing::read_fixture_vector;
using testing::run_gplvm;
using testing::ScratchDir;

double json_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  EXPECT_NE(at, std::string::npos) << key << " in " << json;
  return at == std::string::npos ? 0.0 : std::stod(json.substr(at + key.size() + 3));
}

Matrix as_row(const std::vector<double>& v) {
  return Eigen::Map<const Matrix>(v.data(), 1, static_cast<Index>(v.size()));
}

// Generates train (seed 1) and test (seed 2) data of a kind and trains an exact run on them.
void train_run(const ScratchDir& dir, const std::string& kind, const std::string& space) {
  ASSERT_EQ(run_gplvm("generate --kind " + kind + " --n 30 --seed 1 --output train.h5", 0, dir).exit_code, 0);
  ASSERT_EQ(run_gplvm("generate --kind " + kind + " --n 12 --seed 2 --output test.h5", 0, dir).exit_code, 0);
  const CliResult r = run_gplvm(
      "train --data.path=train.h5 --output.path=run.h5 --output.checkpoint_dir=ck "
      "--model.kind=exact --model.output_space=" +
          space,
      0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// Python printing the intrinsic and the Euclidean RMSE of the predicted points P against the data Y.
const char* kSphereRmse =
    "d = np.arccos(np.clip(np.sum(P * Y, axis=1), -1, 1))\n"
    "print(np.sqrt(np.mean(d**2))); print(np.sqrt(np.mean(np.sum((P - Y)**2, axis=1))))\n";
const char* kSpdRmse =
    "from scipy.linalg import logm\n"
    "n = int(round(np.sqrt(Y.shape[1])))\n"
    "L = lambda r: np.real(logm(r.reshape(n, n)))\n"
    "d = [np.linalg.norm(L(p) - L(y)) for p, y in zip(P, Y)]\n"
    "print(np.sqrt(np.mean(np.square(d)))); print(np.sqrt(np.mean(np.sum((P - Y)**2, axis=1))))\n";

TEST(WrappedEvaluateCli, ReconstructionRmseByIntrinsicAndEuclideanDistanceMatchesNumPy) {
  struct Case {
    std::string kind, space, push, rmse;
  };
  const std::string sphere_exp =
      "Y, mu, B, T = M\nV = T @ B.T; t = np.linalg.norm(V, axis=1)[:, None]\n"
      "P = np.cos(t) * mu + np.sin(t) * V / t\n";
  const std::string spd_exp =
      "from scipy.linalg import expm, logm\nY, mu, B, T = M\nn = int(round(np.sqrt(Y.shape[1])))\n"
      "lm = np.real(logm(mu.reshape(n, n)))\n"
      "P = np.array([expm(lm + v.reshape(n, n)).ravel() for v in T @ B.T])\n";
  for (const Case& c : {Case{"sphere_curve", "sphere", sphere_exp, kSphereRmse},
                        Case{"spd_tensors", "spd_log_euclidean", spd_exp, kSpdRmse}}) {
    const ScratchDir dir;
    train_run(dir, c.kind, c.space);
    const CliResult r = run_gplvm("evaluate --run run.h5 --test test.h5 --output ev.h5 --json", 2, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<double> ref = python_reference(
        c.push + c.rmse, {read_fixture_matrix(dir / "test.h5", "/Y"),
                          as_row(read_fixture_vector(dir / "run.h5", "/output_space/basepoint")),
                          read_fixture_matrix(dir / "run.h5", "/output_space/tangent_basis"),
                          read_fixture_matrix(dir / "ev.h5", "/predictive/mean")});
    if (ref.size() != 2) GTEST_SKIP() << "python3 with numpy and scipy is not available";
    EXPECT_NEAR(json_number(r.out, "intrinsic_rmse"), ref[0], 1e-9 * ref[0]) << c.space;
    EXPECT_NEAR(json_number(r.out, "euclidean_rmse"), ref[1], 1e-9 * ref[1]) << c.space;
    EXPECT_NEAR(read_fixture_vector(dir / "ev.h5", "/metrics/intrinsic_rmse")[0], ref[0], 1e-9 * ref[0]);
    // The model explains held-out data better than the basepoint alone.
    EXPECT_GT(ref[0], 0.0);
  }
}

TEST(WrappedEvaluateCli, EuclideanRunsProjectTheirPredictionsOntoTheManifold) {
  const ScratchDir dir;
  train_run(dir, "sphere_curve", "euclidean");
  const CliResult r =
      run_gplvm("evaluate --run run.h5 --test test.h5 --output ev.h5 --project-to sphere --json", 3, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<double> ref = python_reference(
      std::string("Y, G = M\nP = G / np.linalg.norm(G, axis=1)[:, None]\n") + kSphereRmse +
          "print(np.sqrt(np.mean(np.sum((G - Y)**2, axis=1))))\n",
      {read_fixture_matrix(dir / "test.h5", "/Y"), read_fixture_matrix(dir / "ev.h5", "/predictive/mean")});
  if (ref.size() != 3) GTEST_SKIP() << "python3 with numpy is not available";
  EXPECT_NEAR(json_number(r.out, "intrinsic_rmse"), ref[0], 1e-9 * ref[0]);
  EXPECT_NEAR(json_number(r.out, "euclidean_rmse"), ref[1], 1e-9 * ref[1]);
  EXPECT_NEAR(json_number(r.out, "unprojected_euclidean_rmse"), ref[2], 1e-9 * ref[2]);
  // Bad input: an unknown output space, and a projection for a run that already has one.
  EXPECT_EQ(run_gplvm("evaluate --run run.h5 --test test.h5 --project-to torus", 0, dir).exit_code, 2);
}

TEST(WrappedPredictCli, SamplesLieOnTheManifoldAndDoNotDependOnTheRankCount) {
  const ScratchDir dir;
  train_run(dir, "spd_tensors", "spd_log_euclidean");
  CliResult r =
      run_gplvm("predict --run run.h5 --latents run.h5 --samples 40 --seed 7 --output p1.h5", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_gplvm("predict --run run.h5 --latents run.h5 --samples 40 --seed 7 --output p3.h5", 3, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RowMatrix s1 = read_fixture_matrix(dir / "p1.h5", "/predictive/samples");  // N x (S * 9)
  const RowMatrix s3 = read_fixture_matrix(dir / "p3.h5", "/predictive/samples");
  ASSERT_EQ(s1.rows(), 30);
  ASSERT_EQ(s1.cols(), 40 * 9);
  EXPECT_EQ((s1 - s3).cwiseAbs().maxCoeff(), 0.0);
  const std::unique_ptr<Manifold> m = make_output_manifold("spd_log_euclidean", 9);
  const RowMatrix mean = read_fixture_matrix(dir / "p1.h5", "/predictive/mean");
  const std::vector<double> variance = read_fixture_vector(dir / "p1.h5", "/predictive/variance");
  // Log-Euclidean: the squared distance to the mean is s^2 times a chi-square with 6 degrees of
  // freedom; its average over 30 x 40 draws is 6 s^2 within a few standard errors.
  double ratio = 0;
  for (Index i = 0; i < s1.rows(); ++i)
    for (Index s = 0; s < 40; ++s) {
      const Vector p = s1.row(i).segment(9 * s, 9).transpose();
      EXPECT_EQ(m->off_manifold_reason(p, 1e-12), "") << i << " " << s;
      EXPECT_LT((p - m->canonical(p)).norm(), 1e-12 * p.norm());  // exactly symmetric
      ratio += std::pow(m->distance(mean.row(i).transpose(), p), 2) / (6.0 * variance[i]);
    }
  ratio /= 30.0 * 40.0;
  EXPECT_NEAR(ratio, 1.0, 4.0 * std::sqrt(2.0 / 6.0 / 1200.0));
  // Another seed draws other samples.
  r = run_gplvm("predict --run run.h5 --latents run.h5 --samples 40 --seed 8 --output p8.h5", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT((read_fixture_matrix(dir / "p8.h5", "/predictive/samples") - s1).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(WrappedPredictCli, SphereSamplesHaveUnitNormAndProjectedSamplesToo) {
  const ScratchDir dir;
  train_run(dir, "sphere_curve", "sphere");
  CliResult r = run_gplvm("predict --run run.h5 --latents run.h5 --samples 25 --output p.h5", 2, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RowMatrix s = read_fixture_matrix(dir / "p.h5", "/predictive/samples");
  for (Index i = 0; i < s.rows(); ++i)
    for (Index k = 0; k < 25; ++k) EXPECT_NEAR(s.row(i).segment(3 * k, 3).norm(), 1.0, 1e-12);
  // A Euclidean run's samples leave the sphere; projected, they lie on it.
  ASSERT_EQ(run_gplvm("train --data.path=train.h5 --output.path=euc.h5 --output.checkpoint_dir=ck2 "
                      "--model.kind=exact",
                      0, dir)
                .exit_code,
            0);
  r = run_gplvm("predict --run euc.h5 --latents euc.h5 --samples 25 --project-to sphere --output q.h5", 0,
                dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  s = read_fixture_matrix(dir / "q.h5", "/predictive/samples");
  const RowMatrix mean = read_fixture_matrix(dir / "q.h5", "/predictive/mean"),
                  projected = read_fixture_matrix(dir / "q.h5", "/predictive/projected_mean");
  for (Index i = 0; i < s.rows(); ++i) {
    EXPECT_LT((projected.row(i) - mean.row(i) / mean.row(i).norm()).norm(), 1e-14);
    for (Index k = 0; k < 25; ++k) EXPECT_NEAR(s.row(i).segment(3 * k, 3).norm(), 1.0, 1e-12);
  }
  EXPECT_EQ(
      run_gplvm("predict --run run.h5 --latents run.h5 --project-to sphere --output x.h5", 0, dir).exit_code,
      2);
}

}  // namespace
}  // namespace gplvm
