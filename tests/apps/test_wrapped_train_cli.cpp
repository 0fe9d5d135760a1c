// gplvm generate + train with model.output_space end to end, per manifold: the synthetic data set
// (stored in its layout), the exact / SAS model trained on tangent coordinates at the data's
// Fréchet mean, and the run file's chart (/output_space: a basepoint on the manifold and an
// orthonormal tangent basis of the intrinsic dimension). Refusals exit 2 naming the key.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::read_fixture_matrix;
using testing::read_fixture_root_attribute;
using testing::read_fixture_vector;
using testing::run_gplvm;
using testing::ScratchDir;

struct Case {
  std::string kind, space;
  Index data_dim, intrinsic_dim;
};

TEST(WrappedTrainCli, EachManifoldTrainsAndStoresItsChart) {
  const ScratchDir dir;
  const std::vector<Case> cases{{"sphere_curve", "sphere", 3, 2},
                                {"shapes", "kendall", 16, 12},
                                {"spd_tensors", "spd_log_euclidean", 9, 6},
                                {"spd_tensors", "spd_affine", 9, 6},
                                {"spd_covariances", "spd_log_euclidean", 100, 55}};
  for (const Case& c : cases) {
    const std::string data = c.kind + ".h5", run = c.space + "_" + c.kind + ".h5";
    if (!std::filesystem::exists(dir / data)) {
      const CliResult g = run_gplvm("generate --kind " + c.kind + " --n 40 --output " + data +
                                        (c.kind == "shapes" ? " --landmarks 8" : ""),
                                    0, dir);
      ASSERT_EQ(g.exit_code, 0) << g.err;
    }
    const CliResult r = run_gplvm(
        "train --data.path=" + data + " --output.path=" + run + " --output.checkpoint_dir=ck_" + c.space +
            " --model.kind=exact --full_batch.max_iterations=30 --model.output_space=" + c.space,
        c.space == "sphere" ? 2 : 0, dir);  // one under mpirun, the others serial
    ASSERT_EQ(r.exit_code, 0) << c.space << ": " << r.err;
    EXPECT_EQ(read_fixture_root_attribute(dir / run, "output_space"), c.space);
    EXPECT_EQ(read_fixture_matrix(dir / run, "/latent/mean").rows(), 40);
    const std::vector<double> mu = read_fixture_vector(dir / run, "/output_space/basepoint");
    ASSERT_EQ(static_cast<Index>(mu.size()), c.data_dim);
    const Matrix basis = read_fixture_matrix(dir / run, "/output_space/tangent_basis");
    ASSERT_EQ(basis.rows(), c.data_dim);
    ASSERT_EQ(basis.cols(), c.intrinsic_dim);
    const Eigen::Map<const Vector> p(mu.data(), c.data_dim);
    if (c.space == "sphere") {
      EXPECT_NEAR(p.norm(), 1.0, 1e-14);
      EXPECT_LT((basis.transpose() * p).norm(), 1e-14);
    }
    if (c.space != "spd_affine") {  // Euclidean-metric charts: orthonormal columns
      EXPECT_LT((basis.transpose() * basis - Matrix::Identity(c.intrinsic_dim, c.intrinsic_dim)).norm(),
                1e-12);
    }
  }
}

TEST(WrappedTrainCli, SasTrainsOnTangentCoordinates) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind sphere_curve --n 60 --output s.h5", 0, dir).exit_code, 0);
  const CliResult r = run_gplvm(
      "train --data.path=s.h5 --output.path=run.h5 --model.output_space=sphere --model.kind=sas "
      "--sas.batch_size=30 --sas.active_size=10 --model.encoder_hidden=[8] --train.max_steps=5",
      0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_fixture_root_attribute(dir / "run.h5", "output_space"), "sphere");
  EXPECT_EQ(read_fixture_matrix(dir / "run.h5", "/latent/mean").rows(), 60);
}

TEST(WrappedTrainCli, RefusesOtherKindsAndOffManifoldData) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind sphere_curve --n 30 --output s.h5", 0, dir).exit_code, 0);
  CliResult r = run_gplvm(
      "train --data.path=s.h5 --output.path=run.h5 --model.output_space=sphere --model.kind=vae", 0, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("model.output_space"), std::string::npos) << r.err;
  r = run_gplvm("train --data.path=s.h5 --output.path=run.h5 --model.output_space=kendall --model.kind=exact",
                0, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("model.output_space"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "run.h5"));
}

TEST(WrappedTrainCli, LinearBasepointIsRefusedNamingTheKeyOutsideTheExactSphereModel) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind spd_tensors --n 20 --output p.h5", 0, dir).exit_code, 0);
  ASSERT_EQ(run_gplvm("generate --kind sphere_curve --n 20 --output s.h5", 0, dir).exit_code, 0);
  // Other output spaces have only the constant basepoint; on the sphere only `exact` trains the
  // linear one, on the points themselves (no centring or scaling of their coordinates). Each exits
  // 2 before any output, naming model.basepoint.
  for (const std::string args :
       {"--data.path=p.h5 --model.output_space=spd_log_euclidean --model.kind=exact",
        "--data.path=s.h5 --model.output_space=euclidean --model.kind=exact",
        "--data.path=s.h5 --model.output_space=sphere --model.kind=sas",
        "--data.path=s.h5 --model.output_space=sphere --model.kind=exact --data.center=true"}) {
    const CliResult r = run_gplvm("train " + args + " --output.path=run.h5 --model.basepoint=linear", 0, dir);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("model.basepoint"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "run.h5"));
  }
}

}  // namespace
}  // namespace gplvm
