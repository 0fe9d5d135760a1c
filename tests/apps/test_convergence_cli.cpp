// `gplvm train`'s convergence interface end to end: the stopping rule's summary and /best, a
// diverging run's exit code and message, and the keys in --help.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_fixture_matrix;
using testing::read_fixture_vector;
using testing::run_gplvm;
using testing::ScratchDir;
using testing::write_text;

constexpr Index kRows = 64, kDim = 5;

const char* kConfig = R"([data]
path = "data.h5"
[model]
encoder_hidden = [8, 4]
lengthscale = 1.0
[sas]
batch_size = 16
active_size = 5
[train]
epochs = 1000
learning_rate = 0.01
progress_seconds = 1000
[output]
path = "out/run.h5"
)";

struct Sandbox {
  ScratchDir dir;
  Sandbox() {
    testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(kRows, kDim, 3), true);
    write_text(dir / "config.toml", kConfig);
    fs::create_directories(dir.path() / "out");
  }
};

TEST(ConvergenceCli, StoppingRuleEndsTheRunConvergedWithBestParameters) {
  Sandbox r;
  // 4 batches per epoch: windows of 12 steps; the plateau of this small model arrives within 1000 epochs.
  const CliResult res = run_gplvm(
      "train --config config.toml --json --train.tolerance=0.01 --train.patience=2 "
      "--train.min_window_steps=10",
      2, r.dir);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  EXPECT_NE(res.out.find("\"converged\":true"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("\"reason\":\"tolerance\""), std::string::npos) << res.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(res.out, m, std::regex("\"steps\":([0-9]+)"))) << res.out;
  const long steps = std::stol(m[1]);
  EXPECT_LT(steps, 4000);
  EXPECT_EQ(steps % 12, 0) << "the rule fires at window ends";
  EXPECT_NE(res.out.find("\"converged_step\":" + std::to_string(steps)), std::string::npos) << res.out;
  EXPECT_EQ(read_fixture_matrix(r.dir / "out/run.h5", "/train/curve").rows(), steps);
  EXPECT_EQ(read_fixture_matrix(r.dir / "out/run.h5", "/best/latent/mean").rows(), kRows);
  EXPECT_EQ(read_fixture_vector(r.dir / "out/run.h5", "/best/shared").size(),
            read_fixture_vector(r.dir / "out/run.h5", "/params/shared").size());
  // Progress lines carry the decoder's numbers and the gradient norm.
  EXPECT_NE(res.err.find("noise "), std::string::npos) << res.err;
  EXPECT_NE(res.err.find("lengthscales "), std::string::npos) << res.err;
  EXPECT_NE(res.err.find("|grad| "), std::string::npos) << res.err;
}

TEST(ConvergenceCli, DivergingRunStopsWithExitOneNamingTheStep) {
  Sandbox r;
  const CliResult res = run_gplvm(
      "train --config config.toml --json --train.learning_rate=1000 --train.on_divergence=stop", 2, r.dir);
  EXPECT_EQ(res.exit_code, 1) << res.err;
  EXPECT_TRUE(std::regex_search(res.err, std::regex("training diverged at step [0-9]+"))) << res.err;
  EXPECT_NE(res.out.find("\"reason\":\"diverged\""), std::string::npos) << res.out;
  EXPECT_FALSE(fs::exists(r.dir / "out/run.h5")) << "no run file from a diverged run";
}

TEST(ConvergenceCli, HelpListsTheConvergenceKeys) {
  Sandbox r;
  const CliResult res = run_gplvm("train --help", 1, r.dir);
  ASSERT_EQ(res.exit_code, 0);
  for (const char* key :
       {"train.tolerance", "train.patience", "train.min_window_steps", "train.lr_schedule",
        "train.lr_warmup_steps", "train.lr_step_every", "train.lr_step_factor", "train.clip_norm",
        "train.divergence_drop", "train.on_divergence", "train.rollback_lr_factor", "train.max_rollbacks"})
    EXPECT_NE(res.out.find(key), std::string::npos) << key;
}

}  // namespace
}  // namespace gplvm
