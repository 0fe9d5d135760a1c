// Preemption without a scheduler: SIGUSR1 to mpirun (which forwards it to every rank) stops a
// run after a step that all ranks agree on, with a checkpoint and exit code 3; `--resume auto`
// picks the newest valid checkpoint (skipping a corrupt newer one) and finishes with the same
// parameters as a run that was never interrupted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

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

// A shell loop that waits (at most 60 s) until the run in the background has printed the progress
// line of full-batch iteration `iteration` to stop.err (one line per iteration: the runs below set
// train.progress_seconds tiny). The signal then falls inside the optimisation on any machine; a
// fixed sleep lets a fast one finish every iteration first.
std::string wait_for_iteration(int iteration) {
  return "for i in $(seq 1200); do grep -q '^iteration " + std::to_string(iteration) +
         " ' stop.err && break; sleep 0.05; done; ";
}

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

TEST(StopResumeCli, RanksDieWithAnMpirunKilledBySigkill) {
  // mpirun killed with SIGKILL forwards nothing; its ranks must not go on training and writing
  // checkpoints. Its children (the ranks) are read from /proc before the kill; half a second after
  // it, none may be running (a zombie, or no process at all, is dead).
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(400, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  fs::create_directories(dir.path() / "out");
  const std::string command =
      "cd '" + dir.path().string() + "' && (" + GPLVM_MPIEXEC + " -n 2 " + std::string(GPLVM_MPI_FLAGS) +
      " " + GPLVM_CLI + " train --config config.toml > a.out 2> a.err & pid=$!; " +
      "for i in $(seq 600); do [ -e out/run.h5.lock ] && break; sleep 0.1; done; "
      "ranks=$(cat /proc/$pid/task/*/children); echo $ranks > ranks.txt; kill -9 $pid; sleep 0.5; "
      "alive=0; for r in $ranks; do state=$(sed 's/^.*) //' /proc/$r/stat 2>/dev/null | cut -c1); "
      "[ -n \"$state\" ] && [ \"$state\" != Z ] && alive=$((alive+1)); done; echo $alive > alive.txt; "
      "kill -9 $ranks 2>/dev/null; wait $pid 2>/dev/null; true)";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::istringstream ranks(testing::read_text(dir / "ranks.txt"));
  int count = 0;
  for (std::string pid; ranks >> pid;) ++count;
  ASSERT_EQ(count, 2) << "mpirun's children: " << testing::read_text(dir / "ranks.txt");
  EXPECT_EQ(testing::read_text(dir / "alive.txt"), "0\n") << testing::read_text(dir / "a.err");
}

TEST(StopResumeCli, ASecondTrainingOfTheSameOutputIsRefusedWhileTheFirstRuns) {
  // Both would succeed and the later one would silently replace the earlier one's run file.
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(400, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  fs::create_directories(dir.path() / "out");
  const std::string train = std::string(GPLVM_CLI) + " train --config config.toml";
  // The second starts once the first holds the output (its lock file exists), at most 60 s later.
  const std::string command =
      "cd '" + dir.path().string() + "' && (" + train + " > a.out 2> a.err & pid=$!; " +
      "for i in $(seq 600); do [ -e out/run.h5.lock ] && break; sleep 0.1; done; " + train +
      " > b.out 2> b.err; echo $? > b.code; kill -USR1 $pid; wait $pid; echo $? > a.code)";
  ASSERT_EQ(std::system(command.c_str()), 0);
  int a = -1, b = -1;
  std::ifstream(dir / "a.code") >> a;
  std::ifstream(dir / "b.code") >> b;
  EXPECT_EQ(b, 2) << testing::read_text(dir / "b.err");
  const std::string b_err = testing::read_text(dir / "b.err");
  EXPECT_NE(b_err.find("another process is writing this output"), std::string::npos) << b_err;
  EXPECT_NE(b_err.find("out/run.h5"), std::string::npos) << b_err;
  EXPECT_EQ(a, 3) << "the first is stopped by the signal, with a checkpoint";
  EXPECT_FALSE(fs::exists(dir.path() / "out/run.h5.lock")) << "the lock goes with its writer";
}

TEST(StopResumeCli, FullBatchTrainingStopsWithACheckpointAndResumesFromIt) {
  // The exact GPLVM (L-BFGS) signalled while it starts or iterates: a checkpoint and exit 3, no run
  // file, so that a requeued job's `--resume auto` continues instead of finding "run file exists".
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(300, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  fs::create_directories(dir.path() / "out");
  const std::string exact =
      " train --config config.toml --model.kind=exact --exact.gatol=0 --exact.grtol=0 --exact.frtol=0 "
      "--exact.max_iterations=150 --train.progress_seconds=1e-9";
  const std::string command = "cd '" + dir.path().string() + "' && (" + GPLVM_MPIEXEC + " -n 2 " +
                              std::string(GPLVM_MPI_FLAGS) + " " + GPLVM_CLI + exact +
                              " > stop.out 2> stop.err & pid=$!; " + wait_for_iteration(1) +
                              "kill -USR1 $pid; wait $pid; echo $? > stop.code)";
  ASSERT_EQ(std::system(command.c_str()), 0);
  int code = -1;
  std::ifstream(dir / "stop.code") >> code;
  ASSERT_EQ(code, 3) << testing::read_text(dir / "stop.err");
  const long stopped = checkpoint_step(dir.path() / "ck");
  ASSERT_GE(stopped, 0) << testing::read_text(dir / "stop.err");
  EXPECT_FALSE(fs::exists(dir.path() / "out/run.h5")) << "a stopped run writes no final result";
  char name[64];
  std::snprintf(name, sizeof name, "ck/checkpoint-%012ld.h5", stopped);
  const RowMatrix before = testing::read_fixture_matrix(dir / name, "/train/curve");

  const auto resumed = run_gplvm(exact.substr(1) + " --resume auto", 2, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming from"), std::string::npos) << resumed.err;
  const RowMatrix after = testing::read_fixture_matrix(dir / "out/run.h5", "/train/curve");
  ASSERT_GE(after.rows(), before.rows());
  // The resumed curve continues the checkpoint's: its rows first, iterations counting on, the
  // likelihood no lower than where it stopped, and the limit counting every iteration.
  EXPECT_TRUE(after.topRows(before.rows()) == before);
  for (Index i = 1; i < after.rows(); ++i) EXPECT_GT(after(i, 0), after(i - 1, 0)) << "row " << i;
  if (before.rows() > 0) {
    EXPECT_GE(after(after.rows() - 1, 2), before(before.rows() - 1, 2) - 1e-9);
  }
  EXPECT_LE(after(after.rows() - 1, 0), 150);
}

TEST(StopResumeCli, FullBatchResumedAfterASignalIsBitwiseTheUninterruptedRun) {
  // The checkpoint keeps L-BFGS's memory: wherever the signal stops the exact GPLVM, the resumed
  // run continues as the uninterrupted one and ends with the same bits (same rank count).
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(300, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  fs::create_directories(dir.path() / "out");
  const std::string exact =
      " train --config config.toml --model.kind=exact --exact.gatol=0 --exact.grtol=0 --exact.frtol=0 "
      "--exact.max_iterations=150 --train.progress_seconds=1e-9";
  const std::string command = "cd '" + dir.path().string() + "' && (" + GPLVM_MPIEXEC + " -n 2 " +
                              std::string(GPLVM_MPI_FLAGS) + " " + GPLVM_CLI + exact +
                              " > stop.out 2> stop.err & pid=$!; " + wait_for_iteration(3) +
                              "kill -USR1 $pid; wait $pid; echo $? > stop.code)";
  ASSERT_EQ(std::system(command.c_str()), 0);
  int code = -1;
  std::ifstream(dir / "stop.code") >> code;
  ASSERT_EQ(code, 3) << testing::read_text(dir / "stop.err");
  const std::string stop_err = testing::read_text(dir / "stop.err");
  EXPECT_EQ(stop_err.find("holds none"), std::string::npos) << stop_err;

  const auto resumed = run_gplvm(exact.substr(1) + " --resume auto", 2, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming from"), std::string::npos) << resumed.err;
  EXPECT_EQ(resumed.err.find("no L-BFGS memory"), std::string::npos) << resumed.err;
  const auto full =
      run_gplvm(exact.substr(1) + " --output.path=out/full.h5 --output.checkpoint_dir=ck_full", 2, dir);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  for (const char* dataset : {"/params/shared", "/latent/mean"}) {
    const RowMatrix a = testing::read_fixture_matrix(dir / "out/full.h5", dataset);
    const RowMatrix b = testing::read_fixture_matrix(dir / "out/run.h5", dataset);
    EXPECT_TRUE(a == b) << dataset << " differs by " << (a - b).cwiseAbs().maxCoeff();
  }
  const RowMatrix a = testing::read_fixture_matrix(dir / "out/full.h5", "/train/curve");
  const RowMatrix b = testing::read_fixture_matrix(dir / "out/run.h5", "/train/curve");
  ASSERT_EQ(a.rows(), b.rows());
  EXPECT_TRUE(a.leftCols(3) == b.leftCols(3)) << "the curve's steps and objectives";
}

TEST(StopResumeCli, RiemannianFullBatchResumedAfterASignalIsBitwiseTheUninterruptedRun) {
  // The Bayesian hGP-LVM trained full batch by Riemannian Adam under fresh Monte Carlo noise: the
  // checkpoint keeps the moments, and the resumed run numbers its iterations (its noise draws) on.
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(300, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  fs::create_directories(dir.path() / "out");
  const std::string riemannian =
      " train --config config.toml --model.kind=bayesian_gplvm --model.latents=free "
      "--model.latent_space=lorentz --model.kernel=hyperboloid_exp --model.psi_noise=fresh "
      "--model.psi_samples=3 --sparse.training=full_batch --sparse.inducing=30 --sparse.inducing_init=random "
      "--optim.method=riemannian_adam --optim.tolerance=0 --full_batch.max_iterations=1200 "
      "--train.reproducible=true --train.progress_seconds=1e-9";
  const std::string command = "cd '" + dir.path().string() + "' && (" + GPLVM_MPIEXEC + " -n 2 " +
                              std::string(GPLVM_MPI_FLAGS) + " " + GPLVM_CLI + riemannian +
                              " > stop.out 2> stop.err & pid=$!; " + wait_for_iteration(10) +
                              "kill -USR1 $pid; wait $pid; echo $? > stop.code)";
  ASSERT_EQ(std::system(command.c_str()), 0);
  int code = -1;
  std::ifstream(dir / "stop.code") >> code;
  ASSERT_EQ(code, 3) << testing::read_text(dir / "stop.err");

  const auto resumed = run_gplvm(riemannian.substr(1) + " --resume auto", 2, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming from"), std::string::npos) << resumed.err;
  EXPECT_EQ(resumed.err.find("starts afresh"), std::string::npos) << resumed.err;
  const auto full =
      run_gplvm(riemannian.substr(1) + " --output.path=out/full.h5 --output.checkpoint_dir=ck_full", 2, dir);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  for (const char* dataset : {"/params/shared", "/latent/mean", "/latent/var"}) {
    const RowMatrix a = testing::read_fixture_matrix(dir / "out/full.h5", dataset);
    const RowMatrix b = testing::read_fixture_matrix(dir / "out/run.h5", dataset);
    EXPECT_TRUE(a == b) << dataset << " differs by " << (a - b).cwiseAbs().maxCoeff();
  }
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

TEST(StopResumeCli, ResumeAutoSkipsACheckpointWithADamagedObjectHeader) {
  // A self-requeueing job must get past a checkpoint that opens but cannot be read: `--resume auto`
  // skips it (with a warning) and resumes from the next newest one, at every rank count.
  ScratchDir dir;
  testing::write_fixture_matrix(dir / "data.h5", "/Y", testing::random_normal(100, 6, 8));
  testing::write_text(dir / "config.toml", kConfig);
  ASSERT_EQ(run_gplvm("train --config config.toml --train.max_steps=6 --train.checkpoint_every=3", 1, dir)
                .exit_code,
            0);
  ASSERT_EQ(checkpoint_step(dir.path() / "ck"), 6);
  testing::damage_fixture_object_header(dir / "ck/checkpoint-000000000006.h5", "/state/shared");
  // Each run writes its own checkpoints into ck and prunes old ones: each starts from this copy.
  fs::copy(dir.path() / "ck", dir.path() / "ck_start", fs::copy_options::recursive);
  for (const int ranks : {1, 2}) {
    fs::remove_all(dir.path() / "ck");
    fs::copy(dir.path() / "ck_start", dir.path() / "ck", fs::copy_options::recursive);
    const auto res = run_gplvm(
        "train --config config.toml --force --resume auto --train.max_steps=9 --output.path=out/resumed.h5",
        ranks, dir);
    ASSERT_EQ(res.exit_code, 0) << res.err;
    EXPECT_NE(res.err.find("skipping"), std::string::npos) << res.err;
    EXPECT_NE(res.err.find("checkpoint-000000000003.h5 at step 3"), std::string::npos) << res.err;
  }
}

}  // namespace
}  // namespace gplvm
