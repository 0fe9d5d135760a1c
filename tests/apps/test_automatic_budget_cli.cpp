// `gplvm train` with no budget set (docs/guide/training.md, "The automatic budget" and "Data scale"):
// the batch, epochs and sparse training mode chosen for N, the variances for the data's scale, a key
// the user set left alone, and a run cut short by its budget named as such.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::run_gplvm;
using testing::ScratchDir;

constexpr Index kRows = 64, kDim = 5;

// The value of `key` in the [section] of the resolved configuration the run printed (and stored).
std::string printed_value(const CliResult& res, const std::string& section, const std::string& key) {
  const std::size_t table = res.err.find("[" + section + "]\n");
  if (table == std::string::npos) return "";
  std::smatch m;
  const std::string rest = res.err.substr(table);
  return std::regex_search(rest, m, std::regex("\n" + key + " = ([^\n]+)")) ? std::string(m[1]) : "";
}

struct Sandbox {
  ScratchDir dir;
  explicit Sandbox(double scale = 1.0) {
    testing::write_fixture_matrix(dir / "data.h5", "/Y", scale * testing::random_normal(kRows, kDim, 5),
                                  true);
  }
  CliResult train(const std::string& options) const {
    return run_gplvm(
        "train --data.path=data.h5 --output.path=run.h5 --model.encoder_hidden=[8] "
        "--train.progress_seconds=1000 --json " +
            options,
        0, dir);
  }
};

// 64 rows: B = 64 / 4 = 16, the default active set 200 >= B halved to 8, 4 batches per epoch and
// ceil(2000 / 4) = 500 epochs; the stopping rule may end the run before them.
TEST(AutomaticBudgetCli, SmallDataGetsABatchOfAQuarterAndTwoThousandSteps) {
  const Sandbox box;
  const CliResult res = box.train("");
  ASSERT_EQ(res.exit_code, 0) << res.err;
  EXPECT_NE(res.err.find("# automatic budget for N = 64 rows: sas.batch_size = 16, sas.active_size = 8, "
                         "train.epochs = 500"),
            std::string::npos)
      << res.err;
  EXPECT_EQ(printed_value(res, "sas", "batch_size"), "16");
  EXPECT_EQ(printed_value(res, "sas", "active_size"), "8");
  EXPECT_EQ(printed_value(res, "train", "epochs"), "500");
  std::smatch steps;
  ASSERT_TRUE(std::regex_search(res.out, steps, std::regex("\"steps\":([0-9]+)"))) << res.out;
  EXPECT_LE(std::stol(steps[1]), 2000);
  EXPECT_GE(std::stol(steps[1]), 4 * 13) << "at least the stopping rule's first windows";
}

// A budget the user set is the budget: max_steps alone is not capped by the default epochs, the
// keys set are not changed, and the end at the limit is named.
TEST(AutomaticBudgetCli, ABudgetTheUserSetIsKeptAndItsEndNamed) {
  const Sandbox box;
  const CliResult res = box.train("--train.max_steps=30 --sas.batch_size=8 --sas.active_size=4");
  ASSERT_EQ(res.exit_code, 0) << res.err;
  EXPECT_EQ(res.err.find("# automatic budget"), std::string::npos) << res.err;
  EXPECT_NE(res.out.find("\"steps\":30"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("\"stopped_by\":\"train.max_steps\""), std::string::npos) << res.out;
  EXPECT_NE(res.err.find("training ended at its budget, train.max_steps = 30"), std::string::npos) << res.err;
  EXPECT_NE(res.err.find("raise train.max_steps"), std::string::npos) << res.err;
  EXPECT_EQ(printed_value(res, "sas", "batch_size"), "8");
}

// The sparse kinds train full batch below 20,000 rows unless a minibatch budget is set.
TEST(AutomaticBudgetCli, SmallSparseRunsTrainFullBatchUnlessAMinibatchBudgetIsSet) {
  const Sandbox box;
  const std::string sparse = "--model.kind=sparse_gplvm --sparse.inducing=8 --full_batch.max_iterations=5 ";
  const CliResult full = box.train(sparse);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_NE(full.err.find("# automatic budget for N = 64 rows: sparse.training = full_batch"),
            std::string::npos)
      << full.err;
  EXPECT_NE(full.out.find("\"training\":\"full_batch\""), std::string::npos) << full.out;
  const CliResult minibatch = box.train(sparse + "--force --train.epochs=2 --sas.batch_size=16");
  ASSERT_EQ(minibatch.exit_code, 0) << minibatch.err;
  EXPECT_EQ(minibatch.out.find("full_batch"), std::string::npos) << minibatch.out;
  EXPECT_NE(minibatch.out.find("\"steps\":8"), std::string::npos) << minibatch.out;
}

// Data at scale 100: both variances start at 0.5 times the mean column variance of the data (as the
// model sees them, not centred here), computed here from the file's rows.
TEST(AutomaticBudgetCli, VariancesFollowTheDataScaleUnlessTheUserSetOne) {
  const Sandbox box(100.0);
  const RowMatrix y = testing::read_fixture_matrix(box.dir / "data.h5", "/Y");
  const RowMatrix centred = y.rowwise() - y.colwise().mean();
  const double variance = (centred.array().square().colwise().sum() / kRows).mean();  // population
  const CliResult res = box.train("--train.max_steps=2");
  ASSERT_EQ(res.exit_code, 0) << res.err;
  EXPECT_NE(res.err.find("model.kernel_variance and model.noise_variance start at"), std::string::npos)
      << res.err;
  EXPECT_EQ(res.err.find("set data.standardize"), std::string::npos) << res.err;
  for (const char* key : {"kernel_variance", "noise_variance"}) {
    const double stored = std::stod(printed_value(res, "model", key));
    EXPECT_NEAR(stored, 0.5 * variance, 1e-5 * variance) << key;
  }
  const CliResult kept = box.train("--train.max_steps=2 --force --model.noise_variance=3");
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_NE(kept.err.find("set data.standardize"), std::string::npos) << kept.err;
  EXPECT_EQ(printed_value(kept, "model", "kernel_variance"), "0.5");
  // Unit-scale data keep the defaults.
  const Sandbox unit;
  const CliResult unit_res = unit.train("--train.max_steps=2");
  ASSERT_EQ(unit_res.exit_code, 0);
  EXPECT_EQ(printed_value(unit_res, "model", "kernel_variance"), "0.5");
}

}  // namespace
}  // namespace gplvm
