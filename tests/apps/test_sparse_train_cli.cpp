// `gplvm train` with model.kind = sparse_gplvm and bayesian_gplvm end to end: free and amortised
// latents, minibatch (Adam) and full-batch (L-BFGS) training on a small generated data set; the
// run file's inducing inputs, kernel and latents; the bound improves; `gplvm info` reads the run;
// a minibatch run stopped and resumed from its checkpoint equals the uninterrupted one.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

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
using testing::write_text;

constexpr Index kRows = 90, kDim = 6, kInducing = 12;

const char* kConfig = R"([data]
path = "data.h5"
[model]
encoder_hidden = [8]
encoder_activation = "tanh"
lengthscale = 1.0
kernel_variance = 1.0
noise_variance = 0.1
[sparse]
inducing = 12
[sas]
batch_size = 30
[train]
epochs = 100
max_steps = 40
learning_rate = 0.01
progress_seconds = 1000
[full_batch]
max_iterations = 30
[output]
path = "out/run.h5"
)";

struct Sandbox {
  ScratchDir dir;
  Sandbox() {
    // Outputs drawn from a GP over 2-d latents: structure the bound can find.
    const RowMatrix Y =
        testing::sample_gp_problem(EqArdKernel(1.0, (Vector(2) << 1.0, 0.8).finished()), 0.02, kRows, kDim, 5)
            .Y;
    testing::write_fixture_matrix(dir / "data.h5", "/Y", Y, false);
    write_text(dir / "config.toml", kConfig);
    fs::create_directories(dir.path() / "out");
  }
};

struct Case {
  std::string kind, latents, training;
};

class SparseTrainCli : public ::testing::TestWithParam<Case> {};

TEST_P(SparseTrainCli, TrainsWritesRunFileAndImproves) {
  const Case& c = GetParam();
  Sandbox r;
  const std::string args = "train --config config.toml --model.kind=" + c.kind +
                           " --model.latents=" + c.latents + " --sparse.training=" + c.training;
  const CliResult res = run_gplvm(args, 2, r.dir);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  const std::string run = r.dir / "out/run.h5";
  const RowMatrix Z = read_fixture_matrix(run, "/params/inducing");
  EXPECT_EQ(Z.rows(), kInducing);
  EXPECT_EQ(Z.cols(), 2);
  EXPECT_TRUE(Z.allFinite());
  EXPECT_EQ(testing::read_fixture_vector(run, "/params/kernel/lengthscales").size(), 2u);
  const RowMatrix mean = read_fixture_matrix(run, "/latent/mean");
  EXPECT_EQ(mean.rows(), kRows);
  EXPECT_EQ(mean.cols(), 2);
  if (c.kind == "bayesian_gplvm") {
    const RowMatrix variance = read_fixture_matrix(run, "/latent/var");
    EXPECT_EQ(variance.rows(), kRows);
    EXPECT_GT(variance.minCoeff(), 0.0);
  }
  if (c.latents == "amortised") {
    EXPECT_GT(read_fixture_matrix(run, "/params/encoder/mean/layer0/weight").size(), 0);
  }
  // The bound improves: minibatch objectives are noisy, so compare the means of the first and
  // last fifths of the curve; full batch (L-BFGS, monotone) its first and last points.
  const RowMatrix curve = read_fixture_matrix(run, "/train/curve");
  ASSERT_GE(curve.rows(), 5);
  const Index fifth = curve.rows() / 5;
  const double first = curve.col(2).head(fifth).mean(), last = curve.col(2).tail(fifth).mean();
  EXPECT_GT(last, first) << "objective " << first << " -> " << last;
  if (c.training == "full_batch") {
    EXPECT_GT(curve(curve.rows() - 1, 2), curve(0, 2));
  }

  const CliResult info = run_gplvm("info out/run.h5 --json", 0, r.dir);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("\"model\":\"" + c.kind + "\""), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("\"latents\":\"" + c.latents + "\""), std::string::npos) << info.out;
  // The kernel and its hyperparameters under the kernel's own names, as the run file holds them.
  EXPECT_NE(info.out.find("\"kernel\":\"eq_ard\""), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("\"lengthscales\":["), std::string::npos) << info.out;
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (const char* kind : {"sparse_gplvm", "bayesian_gplvm"})
    for (const char* latents : {"free", "amortised"})
      for (const char* training : {"minibatch", "full_batch"}) out.push_back({kind, latents, training});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Kinds, SparseTrainCli, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  return info.param.kind + "_" + info.param.latents + "_" + info.param.training;
});

class SparseResumeCli : public ::testing::TestWithParam<std::string> {};

// Under train.reproducible the step's sums do not depend on the rank count, so a run stopped at 2
// ranks and resumed at 3 must give the uninterrupted run's bits: any state the checkpoint lost or
// restored in another order would show.
TEST_P(SparseResumeCli, StopAt20Of40AndResumeEqualsUninterrupted) {
  Sandbox r;
  const std::string base = "train --config config.toml --train.reproducible=true " + GetParam();
  const CliResult full = run_gplvm(base + " --train.max_steps=40 --output.path=out/full.h5", 2, r.dir);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  const CliResult half = run_gplvm(base +
                                       " --train.max_steps=20 --train.checkpoint_every=10 "
                                       "--output.path=out/half.h5 --output.checkpoint_dir=ck",
                                   2, r.dir);
  ASSERT_EQ(half.exit_code, 0) << half.err;
  // Resumed at another rank count: checkpoints keep the local block in global row order.
  const CliResult resumed = run_gplvm(
      base + " --train.max_steps=40 --output.path=out/resumed.h5 --output.checkpoint_dir=ck --resume auto", 3,
      r.dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming from"), std::string::npos) << resumed.err;
  for (const char* path : {"/params/shared", "/params/inducing", "/latent/mean"}) {
    const RowMatrix a = read_fixture_matrix(r.dir / "out/full.h5", path);
    const RowMatrix b = read_fixture_matrix(r.dir / "out/resumed.h5", path);
    EXPECT_EQ((a - b).cwiseAbs().maxCoeff(), 0.0) << path;
  }
  EXPECT_EQ(read_fixture_matrix(r.dir / "out/resumed.h5", "/train/curve").rows(), 40);
}

INSTANTIATE_TEST_SUITE_P(Models, SparseResumeCli,
                         ::testing::Values("--model.kind=sparse_gplvm --model.latents=free",
                                           "--model.kind=bayesian_gplvm --model.latents=amortised"),
                         [](const auto& info) {
                           return info.param.find("bayesian") != std::string::npos
                                      ? std::string("bayesian_amortised")
                                      : std::string("sparse_free");
                         });

TEST(SparseTrainCli, Float32IsRefused) {
  Sandbox r;
  const CliResult res =
      run_gplvm("train --config config.toml --model.kind=sparse_gplvm --model.precision=float32", 0, r.dir);
  EXPECT_NE(res.exit_code, 0);
  EXPECT_NE(res.err.find("model.precision"), std::string::npos) << res.err;
}

}  // namespace
}  // namespace gplvm
