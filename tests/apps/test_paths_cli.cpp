// Paths that survive a change of directory: the README workflow (generate, train, encode, exact,
// evaluate, info, plot_run.py) run from a directory other than the one holding the config and the
// data, config-relative and command-line-relative paths, and --data overrides of the training data.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_fixture_matrix;
using testing::read_fixture_root_attribute;
using testing::run_gplvm;
using testing::ScratchDir;
using testing::write_text;

// Relative paths only: they are relative to the config file's folder, wherever gplvm runs.
const char* kConfig = R"([data]
path = "data.h5"
[model]
encoder_hidden = [8]
lengthscale = 1.0
[sas]
batch_size = 30
active_size = 8
[train]
max_steps = 12
learning_rate = 0.01
progress_seconds = 1000
[output]
path = "out/run.h5"
checkpoint_dir = "checkpoints"
)";

// A project folder (config and data side by side) and a separate working directory.
struct Project {
  ScratchDir project, elsewhere;
  std::string config = project / "cfg/c.toml", data = project / "cfg/data.h5",
              run = project / "cfg/out/run.h5";

  Project() {
    fs::create_directories(project.path() / "cfg");
    write_text(config, kConfig);
    generate(data, 5);
  }
  void generate(const std::string& path, int d) const {
    const CliResult r = run_gplvm(
        "generate --kind swiss_roll --n 90 --d " + std::to_string(d) + " --output " + path, 0, elsewhere);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CliResult train(const std::string& extra = "") const {
    return run_gplvm("train --config " + config + " " + extra, 2, elsewhere);
  }
};

nlohmann::json parse_json(const CliResult& r) {
  try {
    return nlohmann::json::parse(r.out);
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << "stdout is not one JSON object (" << e.what() << "): " << r.out << "\nstderr: " << r.err;
    return {};
  }
}

TEST(PathsCli, ReadmeWorkflowFromAnotherDirectoryWithAbsoluteRunAndConfigPaths) {
  const Project p;
  ASSERT_EQ(p.train("--json").exit_code, 0);
  ASSERT_TRUE(fs::exists(p.run)) << "output.path is relative to the config's folder";
  EXPECT_TRUE(fs::is_directory(p.project.path() / "cfg/checkpoints")) << "so is output.checkpoint_dir";
  EXPECT_FALSE(fs::exists(p.elsewhere.path() / "out")) << "nothing is written to the working directory";
  EXPECT_EQ(read_fixture_root_attribute(p.run, "data_file"), p.data);
  EXPECT_EQ(read_fixture_root_attribute(p.run, "data_path_as_given"), "data.h5");

  // Each command finds the training data through the run file alone, from any directory.
  const ScratchDir third;
  const std::string encoded = third / "encoded.h5";
  for (const std::string& command : {"encode --run " + p.run + " --output " + encoded, "exact --run " + p.run,
                                     "evaluate --run " + p.run + " --test " + p.data + " --condition 0",
                                     "info " + p.run, "info " + encoded}) {
    const CliResult r = run_gplvm(command, command.rfind("info", 0) == 0 ? 0 : 2, third);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
  }
  // encode without --data encodes the training data: one latent per training row.
  EXPECT_EQ(read_fixture_matrix(encoded, "/latent/mean").rows(), 90);
  EXPECT_EQ(read_fixture_root_attribute(encoded, "run"), p.run);

  // The plotting tool takes what encode wrote.
  const std::string plots = third / "plots";
  const int status = std::system(("/usr/bin/python3 " GPLVM_SOURCE_DIR "/tools/plot_run.py " + encoded +
                                  " --out-dir " + plots + " >/dev/null 2>&1")
                                     .c_str());
  EXPECT_EQ(status, 0);
  EXPECT_TRUE(fs::exists(plots + "/latents.png"));
}

TEST(PathsCli, CommandLinePathsAreRelativeToTheWorkingDirectory) {
  const Project p;
  fs::create_directories(p.elsewhere.path() / "local");
  fs::copy_file(p.data, p.elsewhere / "local/copy.h5");
  const CliResult r = p.train("--data.path=local/copy.h5 --output.path=runs/r.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string run = p.elsewhere / "runs/r.h5";
  ASSERT_TRUE(fs::exists(run));
  EXPECT_EQ(read_fixture_root_attribute(run, "data_file"), p.elsewhere / "local/copy.h5");
  EXPECT_EQ(read_fixture_root_attribute(run, "data_path_as_given"), "local/copy.h5");
  EXPECT_TRUE(fs::is_directory(p.project.path() / "cfg/checkpoints")) << "still from the config file";
}

TEST(PathsCli, DataOverrideReplacesTheStoredTrainingDataAndMustHaveTheSameDimension) {
  const Project p;
  ASSERT_EQ(p.train().exit_code, 0);
  const ScratchDir other;
  // The same data under another name (a moved data set): the exact LML is the same.
  fs::copy_file(p.data, other / "moved.h5");
  const CliResult stored = run_gplvm("exact --run " + p.run + " --json", 0, other);
  const CliResult moved = run_gplvm("exact --run " + p.run + " --data moved.h5 --json", 0, other);
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(parse_json(stored)["log_marginal_likelihood"], parse_json(moved)["log_marginal_likelihood"]);
  // Once the stored file is gone, --data is what lets the run be used at all.
  fs::remove(p.data);
  const CliResult gone = run_gplvm("exact --run " + p.run, 2, other);
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find(p.data), std::string::npos) << gone.err;
  EXPECT_NE(gone.err.find("--data"), std::string::npos) << "says how to go on: " << gone.err;
  EXPECT_EQ(run_gplvm("evaluate --run " + p.run + " --test moved.h5 --data moved.h5", 0, other).exit_code, 0);

  p.generate(other / "wide.h5", 7);
  for (const std::string& command : {"exact --run " + p.run + " --data wide.h5",
                                     "evaluate --run " + p.run + " --test moved.h5 --data wide.h5",
                                     "encode --run " + p.run + " --data wide.h5 --output enc.h5"}) {
    const CliResult r = run_gplvm(command, 0, other);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("wide.h5"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(p.run), std::string::npos) << "names the run file too: " << r.err;
    EXPECT_NE(r.err.find("D = 7"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("D = 5"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(other / "enc.h5"));
}

}  // namespace
}  // namespace gplvm
