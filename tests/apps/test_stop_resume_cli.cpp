// Preemption without a scheduler: SIGUSR1 to mpirun (which forwards it to every rank) stops a
// run after a step that all ranks agree on, with a checkpoint and exit code 3; `--resume auto`
// picks the newest valid checkpoint (skipping a corrupt newer one) and finishes with the same
// parameters as a run that was never interrupted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using testing::run_gplvm;
using testing::ScratchDir;

const char* kConfig = R"([data]
path = "data.h5"
[model]
encoder_hidden = [16, 8]
lengthscale = 1.0
[sas]
batch_size = 32
active_size = 8
[train]
epochs = 1000000
tolerance = 0.0  # the stopping rule off: the run must last until the signal
learning_rate = 0.01
progress_seconds = 1000
[output]
path = "out/run.h5"
checkpoint_dir = "ck"
)";

// The step of the only checkpoint in dir, or -1.
long checkpoint_step(const fs::path& dir) {
  static const std::regex pattern("checkpoint-([0-9]{12})\\.h5");
  long step = -1;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, m, pattern)) step = std::max(step, std::stol(m[1]));
  }
  return step;
}

TEST(StopResumeCli, SignalCheckpointsAndResumeAutoMatchesAnUninterruptedRun) {
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(400, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  fs::create_directories(dir.path() / "out");

  const std::string flags = std::string(GPLVM_MPI_FLAGS);
  const std::string command = "cd '" + dir.path().string() + "' && (" + GPLVM_MPIEXEC + " -n 2 " + flags +
                              " " + GPLVM_CLI +
                              " train --config config.toml > stop.out 2> stop.err & pid=$!; sleep 3; " +
                              "kill -USR1 $pid; wait $pid; echo $? > stop.code)";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream code_file(dir / "stop.code");
  int code = -1;
  code_file >> code;
  ASSERT_EQ(code, 3) << "expected the stopped-with-checkpoint exit code";
  const long stopped = checkpoint_step(dir.path() / "ck");
  ASSERT_GT(stopped, 0);
  EXPECT_FALSE(fs::exists(dir.path() / "out/run.h5")) << "a stopped run writes no final result";

  // A corrupt checkpoint newer than the real one must be skipped with a warning.
  char corrupt[64];
  std::snprintf(corrupt, sizeof corrupt, "ck/checkpoint-%012ld.h5", stopped + 5);
  testing::write_text(dir / corrupt, "not an HDF5 file");

  const std::string total = " --train.max_steps=" + std::to_string(stopped + 40);
  const auto resumed =
      run_gplvm("train --config config.toml --resume auto --output.path=out/resumed.h5" + total, 2, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("skipping"), std::string::npos) << resumed.err;
  // output.checkpoint_dir is relative to the config file's folder, and reported absolute.
  EXPECT_NE(resumed.err.find("resuming from " + (dir / "ck/checkpoint-")), std::string::npos) << resumed.err;

  const auto full = run_gplvm(
      "train --config config.toml --output.path=out/full.h5 --output.checkpoint_dir=ck_full" + total, 2, dir);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  const RowMatrix a = testing::read_fixture_matrix(dir / "out/full.h5", "/params/shared");
  const RowMatrix b = testing::read_fixture_matrix(dir / "out/resumed.h5", "/params/shared");
  EXPECT_LE((a - b).norm() / a.norm(), 1e-12);
}

TEST(StopResumeCli, ResumeAutoWithoutCheckpointsStartsFresh) {
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(100, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  const auto res = run_gplvm("train --config config.toml --resume auto --train.max_steps=5", 1, dir);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  EXPECT_EQ(res.err.find("resuming"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir.path() / "out/run.h5"));
}

TEST(StopResumeCli, ResumeAutoRefusesCheckpointsOfAChangedRunAndKeepsThem) {
  // A checkpoint of this directory written with another learning rate is not damaged, it belongs to
  // another run: `--resume auto` must stop naming the key, not start afresh and prune it away.
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(100, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  ASSERT_EQ(run_gplvm("train --config config.toml --train.max_steps=6 --train.checkpoint_every=3 "
                      "--train.keep_checkpoints=1",
                      1, dir)
                .exit_code,
            0);
  const long step = checkpoint_step(dir.path() / "ck");
  ASSERT_EQ(step, 6);
  const auto res = run_gplvm(
      "train --config config.toml --force --resume auto --train.max_steps=12 --train.learning_rate=0.02 "
      "--train.checkpoint_every=3 --train.keep_checkpoints=1",
      2, dir);
  EXPECT_EQ(res.exit_code, 2) << res.err;
  EXPECT_NE(res.err.find("train.learning_rate"), std::string::npos) << res.err;
  EXPECT_EQ(checkpoint_step(dir.path() / "ck"), step) << "the other run's checkpoint must stay";
}

}  // namespace
}  // namespace gplvm
