// The gplvm executable end to end: training, resuming, rank-count invariance through the HDF5
// path, encoding, and the bad-input contract (clear error, non-zero exit, no output left behind).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>

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
epochs = 100
max_steps = 40
learning_rate = 0.01
checkpoint_every = 10
progress_seconds = 1000
[output]
path = "out/run.h5"
)";

void make_data(const ScratchDir& dir, Index rows = kRows) {
  const RowMatrix Y = testing::random_normal(rows, kDim, 3);
  testing::write_fixture_matrix(dir / "data.h5", "/Y", Y, true);
  std::vector<std::int64_t> labels(rows);
  for (Index i = 0; i < rows; ++i) labels[i] = i % 3;
  testing::write_fixture_labels(dir / "data.h5", "/labels", labels);
}

struct Sandbox {
  ScratchDir dir;
  Sandbox() {
    make_data(dir);
    write_text(dir / "config.toml", kConfig);
    fs::create_directories(dir.path() / "out");
  }
};

double relative_difference(const RowMatrix& a, const RowMatrix& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// No result and no temporary file may be left in out/ after a failure.
void expect_no_output(const Sandbox& r) {
  for (const auto& entry : fs::recursive_directory_iterator(r.dir.path() / "out"))
    ADD_FAILURE() << "left behind: " << entry.path();
}

void expect_error(const CliResult& result, const std::string& needle) {
  EXPECT_NE(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find(needle), std::string::npos) << "stderr: " << result.err;
}

TEST(TrainCli, WritesRunFileAndJsonSummary) {
  Sandbox r;
  const CliResult res = run_gplvm("train --config config.toml --json", 2, r.dir);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  EXPECT_EQ(res.out.find('{'), 0u) << res.out;  // stdout is only the JSON object
  EXPECT_NE(res.out.find("\"steps\":40"), std::string::npos) << res.out;
  EXPECT_NE(res.err.find("[sas]"), std::string::npos) << "resolved config printed at start";
  const RowMatrix latents = read_fixture_matrix(r.dir / "out/run.h5", "/latent/mean");
  EXPECT_EQ(latents.rows(), kRows);
  EXPECT_EQ(latents.cols(), 2);
  EXPECT_EQ(read_fixture_matrix(r.dir / "out/run.h5", "/train/curve").rows(), 40);
  EXPECT_EQ(read_fixture_matrix(r.dir / "out/run.h5", "/labels").rows(), kRows);
}

// The summary breaks the run's time into phases (docs/guide/training.md, "Where the time goes"):
// every phase as {min, median, max} over the ranks, each rank's phases adding up to its recorded wall
// time, and the final progress line ends in the leading phases' shares.
TEST(TrainCli, JsonSummaryBreaksTheRunIntoPhasesOverTheRanks) {
  Sandbox r;
  const CliResult res = run_gplvm("train --config config.toml --json", 2, r.dir);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  const nlohmann::json j = nlohmann::json::parse(res.out);
  const nlohmann::json& phases = j.at("phase_seconds");
  double sum_of_min = 0, sum_of_max = 0;
  for (const char* name : {"other", "batch_draw", "model", "encoder_forward", "active_gather",
                           "active_factor", "remainder", "partials_sum", "encoder_backward", "gradient_sum",
                           "adam", "adam_allgather", "stop_poll", "progress", "checkpoint"})
    EXPECT_TRUE(phases.contains(name)) << name;
  for (const auto& [name, spread] : phases.items()) {
    const double min = spread.at("min"), median = spread.at("median"), max = spread.at("max");
    EXPECT_LE(0.0, min) << name;
    EXPECT_LE(min, median) << name;
    EXPECT_LE(median, max) << name;
    sum_of_min += min, sum_of_max += max;
  }
  EXPECT_GT(phases.at("encoder_forward").at("min").get<double>(), 0.0);
  EXPECT_GT(phases.at("active_gather").at("max").get<double>(), 0.0);  // two ranks: a real gather
  EXPECT_GT(phases.at("checkpoint").at("max").get<double>(), 0.0);     // checkpoint_every = 10
  const nlohmann::json& wall = j.at("phase_wall_seconds");
  EXPECT_LE(sum_of_min, wall.at("max").get<double>() * (1 + 1e-12));
  EXPECT_GE(sum_of_max, wall.at("min").get<double>() * (1 - 1e-12));
  // The recorded loop holds the checkpoints that wall_seconds leaves out.
  EXPECT_GE(wall.at("max").get<double>(), j.at("wall_seconds").get<double>());
  const nlohmann::json& wait = j.at("waiting_for_slowest_rank_seconds");
  EXPECT_LE(0.0, wait.at("min").get<double>());
  EXPECT_LE(wait.at("max").get<double>(), wall.at("max").get<double>());
  EXPECT_TRUE(std::regex_search(res.err, std::regex(R"(step 40/40 .* \| [a-z_]+ [0-9]+%)"))) << res.err;
}

// model.likelihood is read by nothing: setting it trains as before, with one warning (from one rank)
// that says so; leaving it out warns of nothing.
TEST(TrainCli, TheDeprecatedLikelihoodKeyWarnsOnceAndChangesNothing) {
  Sandbox r;
  const std::string warning = "model.likelihood is deprecated and ignored";
  const CliResult with = run_gplvm(
      "train --config config.toml --train.max_steps=3 --model.likelihood=gaussian --output.path=out/l.h5", 2,
      r.dir);
  ASSERT_EQ(with.exit_code, 0) << with.err;
  const std::size_t first = with.err.find(warning);
  EXPECT_NE(first, std::string::npos) << with.err;
  EXPECT_EQ(with.err.find(warning, first + 1), std::string::npos) << "one warning, not one per rank";
  const CliResult without =
      run_gplvm("train --config config.toml --train.max_steps=3 --output.path=out/n.h5", 2, r.dir);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(without.err.find(warning), std::string::npos);
  EXPECT_TRUE(read_fixture_matrix(r.dir / "out/l.h5", "/latent/mean") ==
              read_fixture_matrix(r.dir / "out/n.h5", "/latent/mean"));
}

TEST(TrainCli, DefaultLengthscaleFollowsTheInitialLatentsScale) {
  // One step at a learning rate of 1e-12 (Adam moves each log-parameter by about that) of a config that
  // leaves model.lengthscale unset: PCA-started free latents (unit variance) take 1.0, everything else the
  // documented 0.1; a set value wins.
  Sandbox r;
  write_text(r.dir / "bare.toml",
             std::string(kConfig).replace(std::string(kConfig).find("lengthscale = 1.0\n"),
                                          std::string("lengthscale = 1.0\n").size(), ""));
  const std::vector<std::pair<std::string, double>> cases = {
      {"--model.latents=free", 1.0},
      {"--model.latents=free --model.init=random", 0.1},
      {"--model.latents=amortised", 0.1},
      {"--model.latents=free --model.lengthscale=0.3", 0.3},
      {"--model.kind=bayesian_sas --model.latents=free", 1.0}};
  for (const auto& [options, expected] : cases) {
    const CliResult res = run_gplvm(
        "train --config bare.toml --force --train.max_steps=1 --train.learning_rate=1e-12 " + options, 0,
        r.dir);
    ASSERT_EQ(res.exit_code, 0) << options << ": " << res.err;
    // The printed configuration is the one the model uses.
    EXPECT_NE(res.err.find("lengthscale = " + std::string(expected == 1.0   ? "1.0"
                                                          : expected == 0.3 ? "0.3"
                                                                            : "0.1")),
              std::string::npos)
        << options;
    const std::vector<double> lengthscales =
        testing::read_fixture_vector(r.dir / "out/run.h5", "/params/kernel/lengthscales");
    ASSERT_EQ(lengthscales.size(), 2u) << options;
    EXPECT_NEAR(lengthscales[0], expected, 1e-9 * expected) << options;
    EXPECT_NEAR(lengthscales[1], expected, 1e-9 * expected) << options;
  }
}

class ResumeCli : public ::testing::TestWithParam<std::string> {};

TEST_P(ResumeCli, StopAt30Of60AndResumeEqualsUninterrupted) {
  Sandbox r;
  const std::string model = GetParam();
  const CliResult full = run_gplvm(
      "train --config config.toml " + model + " --train.max_steps=60 --output.path=out/full.h5", 2, r.dir);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  const CliResult half =
      run_gplvm("train --config config.toml " + model +
                    " --train.max_steps=30 --output.path=out/half.h5 --output.checkpoint_dir=ck",
                2, r.dir);
  ASSERT_EQ(half.exit_code, 0) << half.err;
  const CliResult resumed =
      run_gplvm("train --config config.toml " + model +
                    " --train.max_steps=60 --output.path=out/resumed.h5 --output.checkpoint_dir=ck"
                    " --resume ck/checkpoint-000000000030.h5",
                2, r.dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  for (const char* path : {"/params/shared", "/latent/mean"}) {
    const RowMatrix a = read_fixture_matrix(r.dir / "out/full.h5", path);
    const RowMatrix b = read_fixture_matrix(r.dir / "out/resumed.h5", path);
    EXPECT_LE(relative_difference(b, a), 1e-12) << path;
  }
  EXPECT_EQ(read_fixture_matrix(r.dir / "out/resumed.h5", "/train/curve").rows(), 60);
}

INSTANTIATE_TEST_SUITE_P(Models, ResumeCli,
                         ::testing::Values("", "--model.kind=bayesian_sas --model.latents=free"),
                         [](const auto& info) {
                           return info.param.empty() ? std::string("sas_amortised")
                                                     : std::string("bayesian_free");
                         });

// Trains Bayesian SAS for 20 steps at 1 and at 3 ranks with `extra` options; returns the 1-rank
// run's stderr after checking that parameters and latents agree to `tolerance`.
std::string expect_same_run_at_one_and_three_ranks(const std::string& extra, double tolerance) {
  Sandbox r;
  const std::string common =
      "train --config config.toml --train.max_steps=20 --model.kind=bayesian_sas " + extra;
  const CliResult one = run_gplvm(common + " --output.path=out/p1.h5", 1, r.dir);
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(run_gplvm(common + " --output.path=out/p3.h5", 3, r.dir).exit_code, 0);
  for (const char* path : {"/params/shared", "/latent/mean", "/latent/var"})
    EXPECT_LT(relative_difference(read_fixture_matrix(r.dir / "out/p3.h5", path),
                                  read_fixture_matrix(r.dir / "out/p1.h5", path)),
              tolerance)
        << path;
  return one.err;
}

TEST(TrainCli, SameParametersAtOneAndThreeRanks) {
  expect_same_run_at_one_and_three_ranks("", 1e-9);
}

// fp32 through the CLI: Bayesian SAS (no flat directions; see
// tests/models/test_distributed_training.mpi.cpp) at 1 and 3 ranks agrees to fp32 accuracy, and the
// resolved configuration shows the precision.
TEST(TrainCli, Float32RunsAgreeAtOneAndThreeRanks) {
  const std::string err = expect_same_run_at_one_and_three_ranks("--model.precision=float32", 1e-5);
  EXPECT_NE(err.find("precision = \"float32\""), std::string::npos) << err;
}

// Threads per rank through the CLI: OMP_NUM_THREADS is read, reported in the JSON summary and the
// run file, and a 3-thread run writes the 1-thread run's parameters bit for bit (at sizes where the
// hidden layer's products, the element-wise passes and the kernel block are split).
TEST(TrainCli, ThreadsPerRankGiveTheOneThreadRunBitForBit) {
  ScratchDir dir;
  make_data(dir, 1200);
  write_text(dir / "config.toml", kConfig);
  fs::create_directories(dir.path() / "out");
  const std::string common =
      "train --config config.toml --json --train.max_steps=6 --sas.batch_size=512 --sas.active_size=100"
      " --model.encoder_hidden=128,64 --model.kind=bayesian_sas";
  const CliResult one = run_gplvm(common + " --output.path=out/t1.h5", 0, dir, "env OMP_NUM_THREADS=1");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const CliResult three = run_gplvm(common + " --output.path=out/t3.h5", 0, dir, "env OMP_NUM_THREADS=3");
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_NE(one.out.find("\"threads_per_rank\":1"), std::string::npos) << one.out;
  EXPECT_NE(three.out.find("\"threads_per_rank\":3"), std::string::npos) << three.out;
  EXPECT_NE(three.err.find("threads per rank: 3"), std::string::npos) << three.err;
  for (const char* path : {"/params/shared", "/latent/mean", "/latent/var"}) {
    const RowMatrix a = read_fixture_matrix(dir / "out/t1.h5", path);
    const RowMatrix b = read_fixture_matrix(dir / "out/t3.h5", path);
    EXPECT_TRUE(a == b) << path << ": max difference " << (a - b).cwiseAbs().maxCoeff();
  }
}

// The train command names the OpenBLAS kernels it runs on (they change every LAPACK call's speed
// by up to 2x), and says when OPENBLAS_CORETYPE forced them.
TEST(TrainCli, ReportsTheOpenBlasKernels) {
  Sandbox r;
  const std::string args = "train --config config.toml --train.max_steps=2";
  auto core_of = [](const std::string& err) {
    const auto at = err.find("OpenBLAS kernels: ");
    if (at == std::string::npos) return std::string("(none reported)");
    const auto begin = at + std::string("OpenBLAS kernels: ").size();
    return err.substr(begin, err.find_first_of(" \n", begin) - begin);
  };
  const CliResult forced =
      run_gplvm(args + " --output.path=out/forced.h5", 1, r.dir, "env OPENBLAS_CORETYPE=Haswell");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(core_of(forced.err), "Haswell") << forced.err;
  EXPECT_NE(forced.err.find("set by OPENBLAS_CORETYPE=Haswell"), std::string::npos) << forced.err;

  const CliResult automatic =
      run_gplvm(args + " --output.path=out/automatic.h5", 1, r.dir, "env -u OPENBLAS_CORETYPE");
  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  EXPECT_NE(core_of(automatic.err), "(none reported)") << automatic.err;
  EXPECT_NE(automatic.err.find("(auto-detected)"), std::string::npos) << automatic.err;
}

// Also for an fp32 model, whose run-file latents come from the fp32 encoder. `gplvm encode` runs the
// encoder in fp64 (more accurate; the weights are the same fp64 master copy); the two agree to fp32
// rounding (measured 6.6e-8), which is all an fp32 encoding can promise anyway: its GEMMs round a
// row differently depending on where the row falls in the block (SIMD tails), so even an fp32
// encoding at another rank count differs at that level (measured 5.5e-8).
TEST(EncodeCli, EncodingTheTrainingDataReproducesTheRunLatents) {
  for (const std::string precision : {"float64", "float32"}) {
    Sandbox r;
    ASSERT_EQ(run_gplvm("train --config config.toml --model.precision=" + precision, 2, r.dir).exit_code, 0);
    const CliResult res =
        run_gplvm("encode --run out/run.h5 --data data.h5 --output out/encoded.h5", 3, r.dir);
    ASSERT_EQ(res.exit_code, 0) << res.err;
    EXPECT_LT(relative_difference(read_fixture_matrix(r.dir / "out/encoded.h5", "/latent/mean"),
                                  read_fixture_matrix(r.dir / "out/run.h5", "/latent/mean")),
              precision == "float64" ? 1e-14 : 1e-6)
        << precision;
  }
}

TEST(TrainCliErrors, MissingDataFile) {
  Sandbox r;
  expect_error(run_gplvm("train --config config.toml --data.path=nothere.h5", 2, r.dir), "nothere.h5");
  expect_no_output(r);
}

TEST(TrainCliErrors, MissingDataset) {
  Sandbox r;
  expect_error(run_gplvm("train --config config.toml --data.dataset=/X", 2, r.dir), "/X");
  expect_no_output(r);
}

TEST(TrainCliErrors, DatasetNotTwoDimensional) {
  Sandbox r;
  testing::write_fixture_vector(r.dir / "data.h5", "/flat", std::vector<double>(10, 1.0));
  expect_error(run_gplvm("train --config config.toml --data.dataset=/flat", 2, r.dir), "/flat");
  expect_no_output(r);
}

TEST(TrainCliErrors, NonFiniteValueNamesTheRow) {
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    Sandbox r;
    RowMatrix Y = testing::random_normal(kRows, kDim, 3);
    Y(41, 2) = bad;
    testing::write_fixture_matrix(r.dir / "data.h5", "/Y", Y);
    expect_error(run_gplvm("train --config config.toml", 2, r.dir), "41");
    expect_no_output(r);
  }
}

TEST(TrainCliErrors, BatchLargerThanData) {
  Sandbox r;
  expect_error(run_gplvm("train --config config.toml --sas.batch_size=100", 2, r.dir), "batch");
  expect_no_output(r);
}

TEST(TrainCliErrors, PrecisionMustBeKnownAndExactIsFloat64Only) {
  Sandbox r;
  expect_error(run_gplvm("train --config config.toml --model.precision=float16", 2, r.dir),
               "model.precision");
  expect_error(run_gplvm("train --config config.toml --model.kind=exact --model.precision=float32", 2, r.dir),
               "model.precision");
  expect_no_output(r);
}

TEST(TrainCliErrors, ActiveSetNotSmallerThanBatch) {
  Sandbox r;
  expect_error(run_gplvm("train --config config.toml --sas.active_size=16", 2, r.dir), "active");
  expect_no_output(r);
}

TEST(TrainCliErrors, MoreRanksThanRows) {
  Sandbox r;
  make_data(r.dir, 3);
  expect_error(run_gplvm("train --config config.toml --sas.batch_size=2 --sas.active_size=1", 4, r.dir),
               "ranks");
  expect_no_output(r);
}

TEST(TrainCliErrors, BadOmpNumThreadsIsNamed) {
  Sandbox r;
  const CliResult res = run_gplvm("train --config config.toml", 0, r.dir, "env OMP_NUM_THREADS=two");
  EXPECT_EQ(res.exit_code, 2) << res.err;
  EXPECT_NE(res.err.find("OMP_NUM_THREADS"), std::string::npos) << res.err;
  EXPECT_NE(res.err.find("two"), std::string::npos) << res.err;
  expect_no_output(r);
}

TEST(TrainCliErrors, LabelsOfTheWrongLength) {
  Sandbox r;
  testing::write_fixture_matrix(r.dir / "data.h5", "/Y", testing::random_normal(kRows, kDim, 3), false, true);
  testing::write_fixture_labels(r.dir / "data.h5", "/labels", std::vector<std::int64_t>(kRows - 1, 0));
  expect_error(run_gplvm("train --config config.toml", 2, r.dir), "labels");
  expect_no_output(r);
}

TEST(TrainCliErrors, UnwritableOutputDirectory) {
  Sandbox r;
  write_text(r.dir / "a_file", "not a directory");
  expect_error(run_gplvm("train --config config.toml --output.path=a_file/run.h5", 2, r.dir), "a_file");
  expect_no_output(r);
}

TEST(TrainCliErrors, UnknownConfigKeyAndMalformedToml) {
  Sandbox r;
  write_text(r.dir / "typo.toml", std::string(kConfig) + "[train]\nlearning_rat = 0.1\n");
  // (a duplicate [train] table is itself invalid TOML, so the typo goes into a fresh file)
  write_text(r.dir / "typo.toml", "[data]\npath = \"data.h5\"\n[train]\nlearning_rat = 0.1\n");
  expect_error(run_gplvm("train --config typo.toml", 2, r.dir), "train.learning_rat");
  expect_error(run_gplvm("train --config config.toml --train.learning_rat=0.1", 2, r.dir),
               "train.learning_rat");
  write_text(r.dir / "broken.toml", "[data\npath = \"data.h5\"\n");
  expect_error(run_gplvm("train --config broken.toml", 2, r.dir), "broken.toml");
  expect_no_output(r);
}

TEST(TrainCliErrors, CheckpointFromADifferentConfigOrData) {
  Sandbox r;
  ASSERT_EQ(run_gplvm("train --config config.toml --output.checkpoint_dir=ck", 2, r.dir).exit_code, 0);
  fs::remove(r.dir.path() / "out/run.h5");
  const std::string resume = " --output.checkpoint_dir=ck2 --resume ck/checkpoint-000000000040.h5";
  expect_error(run_gplvm("train --config config.toml --train.learning_rate=0.5" + resume, 2, r.dir),
               "train.learning_rate");
  make_data(r.dir);  // same shape, different values
  RowMatrix other = testing::random_normal(kRows, kDim, 99);
  testing::write_fixture_matrix(r.dir / "data.h5", "/Y", other, true, true);
  expect_error(run_gplvm("train --config config.toml" + resume, 2, r.dir), "data");
  expect_no_output(r);
}

TEST(Cli, EveryCommandHasHelpAndUnknownOptionsAreErrors) {
  ScratchDir dir;
  for (const char* command : {"train", "encode", "import", "generate", "info"}) {
    const CliResult res = run_gplvm(std::string(command) + " --help", 0, dir);
    EXPECT_EQ(res.exit_code, 0) << command << ": " << res.err;
    EXPECT_NE(res.out.find("usage: gplvm"), std::string::npos) << command;
    expect_error(run_gplvm(std::string(command) + " --no-such-option", 0, dir), "--no-such-option");
  }
  expect_error(run_gplvm("frobnicate", 0, dir), "frobnicate");
}

}  // namespace
}  // namespace gplvm
