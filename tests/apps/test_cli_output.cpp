// What gplvm prints for scripts: --json errors (one JSON object on stdout, the documented exit
// code), --version and the build recorded in summaries and run files, and gplvm info on every
// kind of file the commands write.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::read_fixture_root_attribute;
using testing::run_gplvm;
using testing::ScratchDir;
using testing::write_text;

nlohmann::json parse_json(const CliResult& r) {
  try {
    return nlohmann::json::parse(r.out);
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << "stdout is not one JSON object (" << e.what() << "): " << r.out << "\nstderr: " << r.err;
    return nlohmann::json::object();
  }
}

// The commit of the source tree, asked of git directly.
std::string git_head() {
  FILE* pipe = popen("git -C " GPLVM_SOURCE_DIR " rev-parse --short=12 HEAD 2>/dev/null", "r");
  char text[64] = {0};
  if (pipe) {
    if (!std::fgets(text, sizeof text, pipe)) text[0] = '\0';
    pclose(pipe);
  }
  std::string head(text);
  while (!head.empty() && head.back() == '\n') head.pop_back();
  return head;
}

TEST(CliOutput, JsonErrorsAreOneObjectOnStdoutWithTheExitCode) {
  const ScratchDir dir;
  write_text(dir / "bad.toml", "[train]\nlearning_rate = -1\n[data]\npath = \"x.h5\"\n");
  struct Case {
    std::string args;
    int ranks;
    std::string file, key;
  };
  for (const Case& c : {Case{"train --config missing.toml --json", 2, "missing.toml", ""},
                        Case{"train --config bad.toml --json", 0, "bad.toml", "train.learning_rate"},
                        Case{"info absent.h5 --json", 2, "absent.h5", ""},
                        Case{"generate --kind nope --output g.h5 --json", 0, "", "--kind"},
                        Case{"nosuchcommand --json", 0, "", "command"}}) {
    const CliResult r = run_gplvm(c.args, c.ranks, dir);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    const nlohmann::json j = parse_json(r);
    ASSERT_TRUE(j.is_object()) << c.args;
    EXPECT_TRUE(j["error"].is_string() && !j["error"].get<std::string>().empty()) << r.out;
    EXPECT_EQ(j["exit_code"], 2) << r.out;
    ASSERT_TRUE(j.contains("file") && j.contains("key") && j.contains("value")) << r.out;
    if (c.file.empty()) {
      EXPECT_TRUE(j["file"].is_null()) << r.out;
    } else {
      EXPECT_EQ(j["file"], c.file) << r.out;
    }
    if (!c.key.empty()) {
      EXPECT_EQ(j["key"], c.key) << r.out;
    }
    EXPECT_NE(r.err.find(j["error"].get<std::string>()), std::string::npos) << "stderr keeps the message";
  }
  // Without --json, stdout stays empty on errors.
  EXPECT_TRUE(run_gplvm("info absent.h5", 0, dir).out.empty());
}

TEST(CliOutput, VersionNamesTheProjectVersionAndTheCommitAndRunFilesRecordIt) {
  const ScratchDir dir;
  const CliResult r = run_gplvm("--version", 0, dir);
  ASSERT_EQ(r.exit_code, 0);
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.out, m, std::regex(R"(^gplvm-hpc ([0-9]+\.[0-9]+\.[0-9]+) \(git ([^)]+)\)\n$)")))
      << r.out;
  EXPECT_EQ(m[1], GPLVM_VERSION);
  const std::string commit = m[2], head = git_head();
  if (!head.empty()) {
    EXPECT_EQ(commit.substr(0, head.size()), head);
  }

  const CliResult g = run_gplvm("generate --kind swiss_roll --n 60 --d 4 --output d.h5 --json", 0, dir);
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const nlohmann::json summary = parse_json(g);
  EXPECT_EQ(summary["version"], GPLVM_VERSION);
  EXPECT_EQ(summary["git_commit"], commit);
  const CliResult t = run_gplvm(
      "train --data.path=d.h5 --model.latents=free --sas.batch_size=20 --sas.active_size=5 "
      "--train.max_steps=3 "
      "--output.path=run.h5 --json",
      0, dir);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(parse_json(t)["git_commit"], commit);
  EXPECT_EQ(read_fixture_root_attribute(dir / "run.h5", "version"), GPLVM_VERSION);
  EXPECT_EQ(read_fixture_root_attribute(dir / "run.h5", "git_commit"), commit);
}

TEST(CliOutput, InfoDescribesEveryKindOfFileTheCommandsWrite) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind swiss_roll --n 80 --d 4 --output gen.h5", 0, dir).exit_code, 0);
  write_text(dir / "table.csv", "a,b,c\n1,2,3\n4,5,6\n7,8,9\n");
  ASSERT_EQ(run_gplvm("import --input table.csv --output imported.h5", 0, dir).exit_code, 0);
  const CliResult t = run_gplvm(
      "train --data.path=gen.h5 --model.encoder_hidden=[8] --sas.batch_size=20 --sas.active_size=5 "
      "--train.max_steps=4 --output.path=run.h5",
      2, dir);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_EQ(run_gplvm("encode --run run.h5 --output enc.h5", 2, dir).exit_code, 0);
  const CliResult evaluated = run_gplvm("evaluate --run run.h5 --test gen.h5 --output eval.h5", 2, dir);
  ASSERT_EQ(evaluated.exit_code, 0) << evaluated.err;
  // Progress on stderr, from rank 0 alone: each phase once, and the last prediction line.
  for (const std::string line : {"evaluate: encoding the test data", "evaluate: factorising",
                                 "evaluate: predicting 80/80 test points"}) {
    const auto at = evaluated.err.find(line);
    EXPECT_NE(at, std::string::npos) << evaluated.err;
    EXPECT_EQ(evaluated.err.find(line, at + 1), std::string::npos) << "printed twice: " << evaluated.err;
  }
  ASSERT_EQ(run_gplvm("predict --run run.h5 --latents enc.h5 --output pred.h5", 2, dir).exit_code, 0);
  const CliResult metrics =
      run_gplvm("embedding-metrics --latents enc.h5 --data gen.h5 --output metrics.h5", 0, dir);
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  const std::string checkpoint = dir / "run.h5.checkpoints/checkpoint-000000000004.h5";
  struct Expected {
    std::string file, type;
    std::string count_key;
    int count;
  };
  for (const Expected& e :
       {Expected{"run.h5", "run", "num_data", 80}, Expected{checkpoint, "checkpoint", "steps", 4},
        Expected{"enc.h5", "latents", "rows", 80}, Expected{"eval.h5", "evaluation", "rows", 80},
        Expected{"gen.h5", "data", "rows", 80}, Expected{"imported.h5", "data", "rows", 3},
        Expected{"pred.h5", "predictions", "rows", 80},
        Expected{"metrics.h5", "embedding_metrics", "k", 5}}) {
    const CliResult r = run_gplvm("info " + e.file + " --json", 2, dir);  // rank 0 alone prints
    ASSERT_EQ(r.exit_code, 0) << e.file << ": " << r.err;
    const nlohmann::json j = parse_json(r);
    EXPECT_EQ(j["type"], e.type) << r.out;
    EXPECT_EQ(j[e.count_key], e.count) << r.out;
    const CliResult text = run_gplvm("info " + e.file, 0, dir);
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find(e.file), std::string::npos) << text.out;
  }
  const nlohmann::json enc = parse_json(run_gplvm("info enc.h5 --json", 0, dir));
  EXPECT_EQ(enc["latent_dim"], 2);
  EXPECT_EQ(enc["run"], std::filesystem::absolute(dir / "run.h5").string());
  const nlohmann::json eval = parse_json(run_gplvm("info eval.h5 --json", 0, dir));
  EXPECT_TRUE(eval["metrics"]["rmse"].is_number());
  EXPECT_EQ(parse_json(run_gplvm("info imported.h5 --json", 0, dir))["cols"], 3);
  const nlohmann::json pred = parse_json(run_gplvm("info pred.h5 --json", 0, dir));
  EXPECT_EQ(pred["data_dim"], 4);
  EXPECT_EQ(pred["model"], "sas");
  const nlohmann::json measured = parse_json(run_gplvm("info metrics.h5 --json", 0, dir));
  EXPECT_TRUE(measured["metrics"]["trustworthiness"].is_number()) << measured;
}

}  // namespace
}  // namespace gplvm
