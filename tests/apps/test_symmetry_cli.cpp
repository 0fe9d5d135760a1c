// gplvm symmetry and gplvm sweep end to end: B_max of a cut circle against its closed form (printed
// and written), objects by label, refusals (exit 2, nothing written), and a sweep whose tables are the
// same trained on 1 rank and on 3 (groups of one rank each).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::read_fixture_matrix;
using testing::read_text;
using testing::run_gplvm;
using testing::ScratchDir;
using testing::write_fixture_labels;
using testing::write_fixture_matrix;
using testing::write_text;

constexpr double kPi = std::numbers::pi;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The number after "key": in a one-line JSON object.
double json_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return NAN;
  return std::stod(json.substr(at + key.size() + 3));
}

// n points evenly over an arc of `alpha` radians of the unit circle, shifted by `offset` along x.
RowMatrix arc(Index n, double alpha, double offset = 0.0) {
  RowMatrix x(n, 2);
  for (Index k = 0; k < n; ++k) {
    const double t = alpha * static_cast<double>(k) / static_cast<double>(n - 1);
    x.row(k) << offset + std::cos(t), std::sin(t);
  }
  return x;
}

TEST(SymmetryCli, MeasuresACutCircleAndWritesItsEdges) {
  const ScratchDir dir;
  // 36 points over 270 degrees: 35 chords 2 sin(alpha / 70) and the gap 2 sin(alpha / 2).
  const double alpha = 1.5 * kPi;
  write_fixture_matrix(dir / "lat.h5", "/latent/mean", arc(36, alpha));
  const double expected = std::sin(alpha / 2) / std::sin(alpha / 70);
  const CliResult r = run_gplvm("symmetry --latents lat.h5 --json", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(json_number(r.out, "max_ratio"), expected, 1e-9 * expected) << r.out;
  EXPECT_NEAR(json_number(r.out, "median_length"), 2 * std::sin(alpha / 70), 1e-12) << r.out;
  EXPECT_TRUE(has(r.out, "\"broken\":true")) << r.out;
  // A threshold above B_max: intact.
  const CliResult high =
      run_gplvm("symmetry --latents lat.h5 --json --threshold " + std::to_string(expected * 1.01), 0, dir);
  EXPECT_TRUE(has(high.out, "\"broken\":false")) << high.out;
  ASSERT_EQ(run_gplvm("symmetry --latents lat.h5 --output s.h5", 2, dir).exit_code, 0);
  EXPECT_NEAR(read_fixture_matrix(dir / "s.h5", "/symmetry/max_ratio")(0, 0), expected, 1e-9 * expected);
  const RowMatrix ratios = read_fixture_matrix(dir / "s.h5", "/symmetry/edges/ratio");
  ASSERT_EQ(ratios.size(), 36);
  EXPECT_NEAR(ratios(35, 0), expected, 1e-9 * expected);  // the closing edge 35 -> 0
  EXPECT_NEAR(ratios(0, 0), 1.0, 1e-12);
}

TEST(SymmetryCli, MeasuresEachLabelsCycleAsAnObject) {
  const ScratchDir dir;
  // Object 0 intact (a closed 12-gon), object 1 along 180 degrees only (its closing edge a diameter).
  RowMatrix x(24, 2);
  for (Index k = 0; k < 12; ++k) x.row(k) << std::cos(2 * kPi * k / 12), std::sin(2 * kPi * k / 12);
  x.bottomRows(12) = arc(12, kPi, 5.0);
  write_fixture_matrix(dir / "lat.h5", "/latent/mean", x);
  const CliResult missing = run_gplvm("symmetry --latents lat.h5 --objects labels --json", 0, dir);
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
  std::vector<std::int64_t> labels(24, 0);
  std::fill(labels.begin() + 12, labels.end(), 1);
  write_fixture_labels(dir / "data.h5", "/labels", labels, true);
  const CliResult r = run_gplvm("symmetry --latents lat.h5 --data data.h5 --objects labels --json", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_number(r.out, "groups"), 2);
  EXPECT_EQ(json_number(r.out, "broken_groups"), 1);
  // 12 chords of 30 degrees (2 sin(pi / 12) = 0.518), 11 of pi / 11 (0.285) and the diameter 2: the
  // median, the mean of the 12th and 13th shortest, is the 30-degree chord.
  const double median = 2 * std::sin(kPi / 12);
  EXPECT_NEAR(json_number(r.out, "median_length"), median, 1e-12) << r.out;
  EXPECT_NEAR(json_number(r.out, "max_ratio"), 2.0 / median, 1e-12) << r.out;
}

TEST(SymmetryCli, RefusesBadInputAndNeverWritesOverIt) {
  const ScratchDir dir;
  write_fixture_matrix(dir / "lat.h5", "/latent/mean", arc(10, kPi));
  const std::string before = read_text(dir / "lat.h5");
  const CliResult over = run_gplvm("symmetry --latents lat.h5 --output lat.h5", 0, dir);
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_EQ(read_text(dir / "lat.h5"), before);
  const CliResult length = run_gplvm("symmetry --latents lat.h5 --cycle-length 3 --output s.h5", 0, dir);
  EXPECT_EQ(length.exit_code, 2);
  EXPECT_TRUE(has(length.err, "--cycle-length")) << length.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "s.h5"));
  write_fixture_matrix(dir / "flat.h5", "/latent/mean", RowMatrix::Zero(10, 2));
  const CliResult zero = run_gplvm("symmetry --latents flat.h5 --output s.h5", 0, dir);
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_TRUE(has(zero.err, "median")) << zero.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "s.h5"));
  const CliResult graph = run_gplvm("symmetry --latents lat.h5 --graph nothing.h5", 0, dir);
  EXPECT_EQ(graph.exit_code, 2);
  EXPECT_TRUE(has(graph.err, "nothing.h5")) << graph.err;
}

TEST(SweepCli, GivesTheSameTablesOnOneRankAndOnThree) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind cycle --n 24 --d 16 --seed 3 --output cycle.h5", 0, dir).exit_code, 0);
  write_text(dir / "base.toml",
             "[data]\npath = \"cycle.h5\"\n[model]\nkind = \"exact\"\ninit = \"random\"\nlengthscale = 1.0\n"
             "[exact]\nmax_iterations = 15\n");
  write_text(dir / "grid.toml", "[train]\nseed = [0, 1, 2, 3, 4]\n[model]\nkernel_variance = [0.5, 2.0]\n");
  const CliResult one = run_gplvm("sweep --config base.toml --grid grid.toml --output one --json", 1, dir);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const CliResult three =
      run_gplvm("sweep --config base.toml --grid grid.toml --output three --json", 3, dir);
  ASSERT_EQ(three.exit_code, 0) << three.err;
  const std::string table = read_text(dir / "one/symmetry.csv");
  EXPECT_EQ(table, read_text(dir / "three/symmetry.csv"));
  EXPECT_EQ(read_text(dir / "one/symmetry_objects.csv"), read_text(dir / "three/symmetry_objects.csv"));
  EXPECT_TRUE(has(table, "model,model.kernel_variance,train.seed,b_median,b_max,broken")) << table;
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 11) << table;  // header and 10 models
  EXPECT_TRUE(std::filesystem::exists(dir / "three/model-00009.h5"));
  EXPECT_TRUE(has(three.out, "\"models\":10")) << three.out;
  EXPECT_TRUE(has(three.out, "\"cell\":\"model.kernel_variance=0.5\"")) << three.out;
  // Each model's B_max is what gplvm symmetry measures on its run file.
  const CliResult check = run_gplvm("symmetry --latents three/model-00007.h5 --json", 0, dir);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  const double b_max = json_number(check.out, "max_ratio");
  std::string row7 = table.substr(table.find("\n7,") + 1);
  row7 = row7.substr(0, row7.find('\n'));
  EXPECT_TRUE(has(row7, ",2.0,2,")) << row7;  // model 7: kernel_variance 2.0 (second), seed 2
  char printed[32];
  std::snprintf(printed, sizeof printed, "%.17g", b_max);
  EXPECT_TRUE(has(row7, printed)) << row7 << " vs " << printed;
  // A second sweep into the same folder is refused (exit 2) without --force.
  EXPECT_EQ(run_gplvm("sweep --config base.toml --grid grid.toml --output one", 0, dir).exit_code, 2);
}

TEST(SweepCli, RefusesAGridKeyTrainDoesNotKnow) {
  const ScratchDir dir;
  write_text(dir / "grid.toml", "[model]\nkernel_varianse = [0.5]\n");
  const CliResult r = run_gplvm("sweep --grid grid.toml --output out", 0, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "model.kernel_variance")) << r.err;  // the suggestion
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

}  // namespace
}  // namespace gplvm
