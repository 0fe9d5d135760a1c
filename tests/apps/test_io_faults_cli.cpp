// I/O faults through the gplvm executable at 1 and 2 ranks: a full file system, outputs that
// would overwrite inputs, truncated input files, invalid checkpoints, stale temporary files and
// overflowing data. Each case checks the documented exit code, a message naming the file, that no
// output or temporary file is left, and (through `timeout`) that no rank hangs.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::run_gplvm;
using testing::ScratchDir;
using testing::write_text;

// A hang fails the case (exit 124) instead of blocking the suite.
const std::string kBounded = "timeout -k 5 120";
constexpr int kTimedOut = 124;

const char* kConfig = R"([data]
path = "data.h5"
[model]
encoder_hidden = [8]
lengthscale = 1.0
[sas]
batch_size = 16
active_size = 5
[train]
max_steps = 6
learning_rate = 0.01
checkpoint_every = 2
progress_seconds = 1000
[output]
path = "run.h5"
checkpoint_dir = "ckpt"
)";

void make_data(const std::string& file, Index rows, Index cols, double scale = 1.0) {
  const RowMatrix Y = scale * testing::random_normal(rows, cols, 5);
  testing::write_fixture_matrix(file, "/Y", Y);
  std::vector<std::int64_t> labels(rows);
  for (Index i = 0; i < rows; ++i) labels[i] = i % 2;
  testing::write_fixture_labels(file, "/labels", labels);
}

// A data set, its config, and a run trained from it (run.h5, checkpoints in ckpt/).
struct Workspace {
  ScratchDir dir;
  Workspace() {
    make_data(dir / "data.h5", 48, 4);
    make_data(dir / "test.h5", 16, 4);
    write_text(dir / "config.toml", kConfig);
    const CliResult r = run_gplvm("train --config config.toml", 0, dir, kBounded);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
};

void expect_failure(const CliResult& r, int exit_code, const std::vector<std::string>& needles) {
  EXPECT_NE(r.exit_code, kTimedOut) << "timed out (a rank hung): " << r.err;
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  for (const std::string& needle : needles) EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  // Input errors and failed writes are agreed on every rank: a clean exit, never the job's abort.
  EXPECT_EQ(r.err.find("MPI_ABORT"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Segmentation"), std::string::npos) << r.err;
  // A failed system call is named with its reason, not HDF5's buffer addresses and byte counts.
  EXPECT_EQ(r.err.find("bytes actually written"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("buf = 0x"), std::string::npos) << r.err;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  return names;
}

void truncate_to_half(const std::string& file) {
  fs::resize_file(file, fs::file_size(file) / 2);
}

// A tmpfs of a few pages mounted at <dir>/full: an empty file fits, an HDF5 output does not.
class FullDisk {
 public:
  explicit FullDisk(const ScratchDir& dir) : path_(dir / "full") {
    fs::create_directories(path_);
    mounted_ = ::geteuid() == 0 && ::mount("tmpfs", path_.c_str(), "tmpfs", 0, "size=8k") == 0;
  }
  ~FullDisk() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool mounted_ = false;
};

#define REQUIRE_FULL_DISK(disk) \
  if (!(disk).mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs (mount -t tmpfs -o size=8k)"

class FullDiskFaults : public ::testing::TestWithParam<int> {};

// The issue's hang: the rank whose write fails unwound into a collective close while the other
// waited in an agreement. Now every rank fails together, exit 1, naming the output.
TEST_P(FullDiskFaults, TrainFailsNamingTheRunFile) {
  Workspace w;
  FullDisk disk(w.dir);
  REQUIRE_FULL_DISK(disk);
  const CliResult r =
      run_gplvm("train --config config.toml --output.path=full/run.h5 --output.checkpoint_dir=ckpt2",
                GetParam(), w.dir, kBounded);
  expect_failure(r, 1, {"full/run.h5"});
  EXPECT_TRUE(files_in(disk.path()).empty());
}

TEST_P(FullDiskFaults, EncodeFailsNamingTheOutput) {
  Workspace w;
  FullDisk disk(w.dir);
  REQUIRE_FULL_DISK(disk);
  const CliResult r =
      run_gplvm("encode --run run.h5 --data data.h5 --output full/latents.h5", GetParam(), w.dir, kBounded);
  expect_failure(r, 1, {"full/latents.h5"});
  EXPECT_TRUE(files_in(disk.path()).empty());
}

TEST_P(FullDiskFaults, EvaluateFailsNamingTheOutput) {
  Workspace w;
  FullDisk disk(w.dir);
  REQUIRE_FULL_DISK(disk);
  const CliResult r =
      run_gplvm("evaluate --run run.h5 --test test.h5 --output full/eval.h5", GetParam(), w.dir, kBounded);
  expect_failure(r, 1, {"full/eval.h5"});
  EXPECT_TRUE(files_in(disk.path()).empty());
}

TEST_P(FullDiskFaults, GenerateFailsNamingTheOutput) {
  ScratchDir dir;
  FullDisk disk(dir);
  REQUIRE_FULL_DISK(disk);
  const CliResult r =
      run_gplvm("generate --kind gp_rff --n 200 --d 8 --output full/gen.h5", GetParam(), dir, kBounded);
  expect_failure(r, 1, {"full/gen.h5"});
  EXPECT_TRUE(files_in(disk.path()).empty());
}

TEST_P(FullDiskFaults, ImportFailsNamingTheOutput) {
  ScratchDir dir;
  FullDisk disk(dir);
  REQUIRE_FULL_DISK(disk);
  std::ofstream csv(dir / "in.csv");
  for (int i = 0; i < 400; ++i) csv << i << "," << 0.5 * i << "," << -i << "\n";
  csv.close();
  const CliResult r = run_gplvm("import --input in.csv --output full/in.h5", GetParam(), dir, kBounded);
  expect_failure(r, 1, {"full/in.h5"});
  EXPECT_TRUE(files_in(disk.path()).empty());
}

// exact writes no file: with its inputs on the full file system it only reads, and succeeds.
TEST_P(FullDiskFaults, ExactOnlyReads) {
  Workspace w;
  FullDisk disk(w.dir);
  REQUIRE_FULL_DISK(disk);
  const CliResult r = run_gplvm("exact --run run.h5", GetParam(), w.dir, kBounded);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Ranks, FullDiskFaults, ::testing::Values(1, 2));

TEST(OverwriteRefusal, TrainOutputEqualToData) {
  Workspace w;
  const auto before = fs::file_size(w.dir / "data.h5");
  const CliResult r =
      run_gplvm("train --config config.toml --output.path=./data.h5 --force", 2, w.dir, kBounded);
  expect_failure(r, 2, {"data.h5", "refusing to overwrite an input"});
  EXPECT_EQ(fs::file_size(w.dir / "data.h5"), before);
}

TEST(OverwriteRefusal, TrainExistingRunNeedsForce) {
  Workspace w;
  const auto written = fs::last_write_time(w.dir / "run.h5");
  const CliResult r = run_gplvm("train --config config.toml", 2, w.dir, kBounded);
  expect_failure(r, 2, {"run.h5", "--force"});
  EXPECT_EQ(fs::last_write_time(w.dir / "run.h5"), written);
  const CliResult forced = run_gplvm("train --config config.toml --force", 2, w.dir, kBounded);
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
}

TEST(OverwriteRefusal, EncodeOutputThroughASymlinkToTheRun) {
  Workspace w;
  fs::create_symlink(w.dir / "run.h5", w.dir / "alias.h5");
  const CliResult r = run_gplvm("encode --run run.h5 --data data.h5 --output alias.h5", 2, w.dir, kBounded);
  expect_failure(r, 2, {"alias.h5", "run.h5", "refusing to overwrite an input"});
}

TEST(OverwriteRefusal, EvaluateOutputEqualToTheTestFile) {
  Workspace w;
  const CliResult r = run_gplvm(
      "evaluate --run run.h5 --test test.h5 --output ../" + w.dir.path().filename().string() + "/test.h5", 2,
      w.dir, kBounded);
  expect_failure(r, 2, {"test.h5", "--test", "refusing to overwrite an input"});
}

TEST(OverwriteRefusal, ImportOutputEqualToTheInput) {
  ScratchDir dir;
  write_text(dir / "in.csv", "1,2\n3,4\n");
  const CliResult r = run_gplvm("import --input in.csv --output in.csv", 0, dir, kBounded);
  expect_failure(r, 2, {"in.csv", "--input", "refusing to overwrite an input"});
  std::ifstream in(dir / "in.csv");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "1,2\n3,4\n");
}

class TruncatedInputs : public ::testing::TestWithParam<int> {};

TEST_P(TruncatedInputs, DataFile) {
  Workspace w;
  truncate_to_half(w.dir / "data.h5");
  const CliResult r =
      run_gplvm("train --config config.toml --output.path=run2.h5", GetParam(), w.dir, kBounded);
  expect_failure(r, 2, {"data.h5"});
  EXPECT_FALSE(fs::exists(w.dir / "run2.h5"));
}

TEST_P(TruncatedInputs, RunFile) {
  Workspace w;
  truncate_to_half(w.dir / "run.h5");
  const CliResult r =
      run_gplvm("encode --run run.h5 --data data.h5 --output latents.h5", GetParam(), w.dir, kBounded);
  expect_failure(r, 2, {"run.h5"});
  EXPECT_FALSE(fs::exists(w.dir / "latents.h5"));
}

TEST_P(TruncatedInputs, TestFile) {
  Workspace w;
  truncate_to_half(w.dir / "test.h5");
  const CliResult r = run_gplvm("evaluate --run run.h5 --test test.h5", GetParam(), w.dir, kBounded);
  expect_failure(r, 2, {"test.h5"});
}

TEST_P(TruncatedInputs, ExplicitCheckpoint) {
  Workspace w;
  const std::string checkpoint = "ckpt/checkpoint-000000000004.h5";
  truncate_to_half(w.dir / checkpoint);
  const CliResult r = run_gplvm("train --config config.toml --output.path=run2.h5 --resume " + checkpoint,
                                GetParam(), w.dir, kBounded);
  expect_failure(r, 2, {checkpoint});
}

INSTANTIATE_TEST_SUITE_P(Ranks, TruncatedInputs, ::testing::Values(1, 2));

// Sets the first shared parameter of a checkpoint to NaN (h5py: an independent writer).
void poison_checkpoint(const std::string& file) {
  const std::string command = "/usr/bin/python3 -c \"import h5py, numpy; f = h5py.File('" + file +
                              "', 'r+'); f['/state/shared'][0] = numpy.nan; f.close()\"";
  ASSERT_EQ(std::system(command.c_str()), 0);
}

TEST(CheckpointValidation, NanCheckpointIsSkippedByResumeAuto) {
  Workspace w;
  poison_checkpoint(w.dir / "ckpt/checkpoint-000000000006.h5");
  const CliResult r =
      run_gplvm("train --config config.toml --output.path=run2.h5 --train.max_steps=8 --resume auto", 2,
                w.dir, kBounded);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("checkpoint-000000000006.h5"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("non-finite"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checkpoint-000000000004.h5 at step 4"), std::string::npos)
      << r.err;
}

TEST(CheckpointValidation, ExplicitNanCheckpointIsAnInputError) {
  Workspace w;
  const std::string checkpoint = "ckpt/checkpoint-000000000006.h5";
  poison_checkpoint(w.dir / checkpoint);
  const CliResult r = run_gplvm("train --config config.toml --output.path=run2.h5 --resume " + checkpoint, 2,
                                w.dir, kBounded);
  expect_failure(r, 2, {checkpoint, "non-finite"});
  EXPECT_FALSE(fs::exists(w.dir / "run2.h5"));
}

TEST(StaleTemporaries, OldOnesOfDeadWritersAreRemovedAtStart) {
  Workspace w;
  // Process ids above the kernel's pid_max limit (4194304) belong to no live process.
  const std::string stale_run = w.dir / "run3.h5.tmp-99999999-0123abcd",
                    stale_checkpoint = w.dir / "ckpt/checkpoint-000000000002.h5.tmp-99999998-ff",
                    foreign = w.dir / "notes.tmp-keep",
                    live = w.dir / ("x.h5.tmp-" + std::to_string(::getpid()) + "-1");
  for (const std::string& f : {stale_run, stale_checkpoint, foreign, live}) {
    write_text(f, "partial");
    fs::last_write_time(f, fs::file_time_type::clock::now() - std::chrono::hours(1));
  }
  const CliResult r = run_gplvm("train --config config.toml --output.path=run3.h5", 2, w.dir, kBounded);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale_run));
  EXPECT_FALSE(fs::exists(stale_checkpoint));
  EXPECT_TRUE(fs::exists(foreign));  // not the project's naming pattern
  EXPECT_TRUE(fs::exists(live));     // its writer (this test process) is alive
  EXPECT_NE(r.err.find(stale_run.substr(stale_run.rfind('/') + 1)), std::string::npos) << r.err;
}

TEST(InputChecks, ExactRefusesDataOfAnotherDimension) {
  Workspace w;
  make_data(w.dir / "wide.h5", 48, 5);
  const CliResult r = run_gplvm("exact --run run.h5 --data wide.h5", 2, w.dir, kBounded);
  expect_failure(r, 2, {"wide.h5", "trained on D = 4"});
}

TEST(InputChecks, DataThatOverflowTheKernelAreNamedAtLoad) {
  ScratchDir dir;
  make_data(dir / "data.h5", 48, 4, 1e150);
  write_text(dir / "config.toml", kConfig);
  const CliResult r = run_gplvm("train --config config.toml", 2, dir, kBounded);
  expect_failure(r, 1, {"data.h5", "overflow the kernel"});
  EXPECT_FALSE(fs::exists(dir / "run.h5"));
}

}  // namespace
}  // namespace gplvm
