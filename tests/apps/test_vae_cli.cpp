// `gplvm train --model.kind=vae` end to end: data-parallel training at 1 and 2 ranks gives the same
// run, the ELBO improves, the run file holds the decoder, encoders and latents, `gplvm encode`
// reproduces the run's latents, a checkpoint resumes onto the uninterrupted trajectory (at the same
// and at another rank count), and the commands that need a GP decoder refuse a VAE run.
#include <gtest/gtest.h>

#include <filesystem>

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

constexpr Index kRows = 150, kDim = 8;

const char* kConfig = R"([data]
path = "data.h5"
[model]
kind = "vae"
encoder_hidden = [16, 8]
[sas]
batch_size = 32
[train]
epochs = 1000
max_steps = 60
learning_rate = 0.01
checkpoint_every = 10
progress_seconds = 1000
[output]
path = "out/run.h5"
)";

// Rows on a curve (a smooth function of one latent) plus noise: something a VAE can learn.
struct Sandbox {
  ScratchDir dir;
  Sandbox() {
    const Matrix t = testing::random_normal(kRows, 1, 3);
    const Matrix mixing = testing::random_normal(1, kDim, 4);
    const RowMatrix Y = (t * mixing).array().sin().matrix() + 0.05 * testing::random_normal(kRows, kDim, 5);
    testing::write_fixture_matrix(dir / "data.h5", "/Y", Y, true);
    testing::write_text(dir / "config.toml", kConfig);
    fs::create_directories(dir.path() / "out");
  }
};

double relative_difference(const RowMatrix& a, const RowMatrix& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

void expect_error(const CliResult& result, const std::string& needle) {
  EXPECT_NE(result.exit_code, 0) << result.err;
  EXPECT_TRUE(testing::contains(result.err, needle)) << "stderr: " << result.err;
}

TEST(VaeCli, TrainsTheSameRunAtOneAndTwoRanksAndTheElboImproves) {
  Sandbox r;
  const CliResult one = run_gplvm("train --config config.toml --output.path=out/p1.h5", 1, r.dir);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const CliResult two = run_gplvm("train --config config.toml --output.path=out/p2.h5", 2, r.dir);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  for (const char* path : {"/params/shared", "/latent/mean", "/latent/var"})
    EXPECT_LT(relative_difference(read_fixture_matrix(r.dir / "out/p2.h5", path),
                                  read_fixture_matrix(r.dir / "out/p1.h5", path)),
              1e-9)
        << path;

  // The batch ELBO (curve column 2) over the last ten steps beats the first ten by a wide margin.
  const RowMatrix curve = read_fixture_matrix(r.dir / "out/p2.h5", "/train/curve");
  ASSERT_EQ(curve.rows(), 60);
  const double first = curve.col(2).head(10).mean(), last = curve.col(2).tail(10).mean();
  EXPECT_GT(last, first + 0.1 * std::abs(first)) << "first " << first << ", last " << last;

  // The decoder mirrors the encoder: Q -> 8 -> 16 -> D; the encoders D -> 16 -> 8 -> Q.
  const std::string run = r.dir / "out/p2.h5";
  EXPECT_EQ(read_fixture_matrix(run, "/params/decoder/layer0/weight").size(), 2 * 8);
  EXPECT_EQ(read_fixture_matrix(run, "/params/decoder/layer2/weight").size(), 16 * kDim);
  EXPECT_EQ(read_fixture_matrix(run, "/params/decoder/layer2/bias").size(), kDim);
  EXPECT_EQ(read_fixture_matrix(run, "/params/encoder/mean/layer0/weight").size(), kDim * 16);
  EXPECT_EQ(read_fixture_matrix(run, "/params/encoder/variance/layer2/bias").size(), 2);
  const RowMatrix variance = read_fixture_matrix(run, "/latent/var");
  EXPECT_EQ(variance.rows(), kRows);
  EXPECT_EQ(variance.cols(), 2);
  EXPECT_GT(variance.minCoeff(), 0.0);
  const CliResult info = run_gplvm("info out/p2.h5 --json", 0, r.dir);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_TRUE(testing::contains(info.out, "\"model\":\"vae\"")) << info.out;
  EXPECT_TRUE(testing::contains(info.out, "\"noise_variance\":")) << info.out;
}

TEST(VaeCli, EncodeReproducesTheRunLatentsAndGpCommandsRefuseTheRun) {
  Sandbox r;
  ASSERT_EQ(run_gplvm("train --config config.toml --train.max_steps=20", 2, r.dir).exit_code, 0);
  const CliResult encoded = run_gplvm("encode --run out/run.h5 --data data.h5 --output out/enc.h5", 3, r.dir);
  ASSERT_EQ(encoded.exit_code, 0) << encoded.err;
  for (const char* path : {"/latent/mean", "/latent/var"})
    EXPECT_LT(relative_difference(read_fixture_matrix(r.dir / "out/enc.h5", path),
                                  read_fixture_matrix(r.dir / "out/run.h5", path)),
              1e-12)
        << path;
  expect_error(run_gplvm("exact --run out/run.h5", 1, r.dir), "model.kind");
  expect_error(run_gplvm("evaluate --run out/run.h5 --test data.h5", 1, r.dir), "model.kind");
}

TEST(VaeCli, ResumedCheckpointFollowsTheUninterruptedRun) {
  Sandbox r;
  const CliResult full = run_gplvm("train --config config.toml --output.path=out/full.h5", 2, r.dir);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  const CliResult half = run_gplvm(
      "train --config config.toml --train.max_steps=30 --output.path=out/half.h5 --output.checkpoint_dir=ck",
      2, r.dir);
  ASSERT_EQ(half.exit_code, 0) << half.err;
  // Each resumed run checkpoints into its own directory: pruning in ck would delete step 30.
  const std::string resume = " --resume ck/checkpoint-000000000030.h5 --output.checkpoint_dir=ck";
  // At the checkpoint's rank count the trajectory is the same to the bit pattern's rounding; at
  // another, the gradient sums' order differs and Adam carries that at the 1e-10 level.
  for (const auto& [ranks, tolerance] : {std::pair{2, 1e-12}, std::pair{3, 1e-8}}) {
    const std::string output = "out/resumed" + std::to_string(ranks) + ".h5";
    const CliResult resumed = run_gplvm(
        "train --config config.toml --output.path=" + output + resume + std::to_string(ranks), ranks, r.dir);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_TRUE(testing::contains(resumed.err, "resuming from ck/checkpoint-000000000030.h5")) << resumed.err;
    for (const char* path : {"/params/shared", "/latent/mean"})
      EXPECT_LE(relative_difference(read_fixture_matrix(r.dir / output, path),
                                    read_fixture_matrix(r.dir / "out/full.h5", path)),
                tolerance)
          << ranks << " ranks, " << path;
    EXPECT_EQ(read_fixture_matrix(r.dir / output, "/train/curve").rows(), 60);
  }
}

TEST(VaeCli, UnsupportedSettingsAreNamed) {
  Sandbox r;
  expect_error(run_gplvm("train --config config.toml --model.latents=free", 1, r.dir), "model.latents");
  expect_error(run_gplvm("train --config config.toml --model.precision=float32", 1, r.dir),
               "model.precision");
  expect_error(run_gplvm("train --config config.toml --vae.decoder_hidden=0,4", 1, r.dir),
               "vae.decoder_hidden");
  expect_error(run_gplvm("train --config config.toml --vae.decoder_activation=gelu", 1, r.dir),
               "vae.decoder_activation");
  EXPECT_FALSE(fs::exists(r.dir.path() / "out/run.h5"));
}

}  // namespace
}  // namespace gplvm
