// gplvm generate: every generator writes the number of points asked for with --n, or refuses
// (exit 2, naming the option); the cycle's defaults are valid.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::read_fixture_matrix;
using testing::read_fixture_vector;
using testing::run_gplvm;
using testing::ScratchDir;

TEST(GenerateCli, EveryGeneratorWritesTheRequestedNumberOfPoints) {
  const ScratchDir dir;
  for (const std::string kind : {"gp", "gp_rff", "swiss_roll", "cycle", "tree"}) {
    // gp_rff splits its rows over the ranks, rank 0 alone writes the serial generators' rows.
    for (const int ranks :
         kind == "gp_rff" || kind == "tree" ? std::vector<int>{0, 3} : std::vector<int>{0}) {
      const std::string out = dir / (kind + std::to_string(ranks) + ".h5");
      const CliResult r = run_gplvm("generate --kind " + kind + " --n 37 --output " + out, ranks, dir);
      ASSERT_EQ(r.exit_code, 0) << kind << ": " << r.err;
      EXPECT_EQ(read_fixture_matrix(out, "/Y").rows(), 37) << kind;
      EXPECT_EQ(read_fixture_matrix(out, "/latent_true").rows(), 37) << kind;
      EXPECT_EQ(read_fixture_matrix(out, "/labels").rows(), 37) << kind;
    }
  }
}

TEST(GenerateCli, DefaultSizeTrainsWithTheDefaultBatch) {
  // Without --n a generator writes more rows than one default batch (sas.batch_size = 1024), so
  // `generate` then `train` with every default runs instead of refusing N < B.
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind swiss_roll --d 5 --output s.h5", 0, dir).exit_code, 0);
  EXPECT_EQ(read_fixture_matrix(dir / "s.h5", "/Y").rows(), 5000);
  const CliResult r = run_gplvm("train --data.path=s.h5 --output.path=run.h5 --train.max_steps=2", 0, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(GenerateCli, TreeSizeFromNOrPerLeafAndRefusedWhenTheyDisagree) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind tree --depth 3 --per-leaf 7 --output a.h5", 0, dir).exit_code, 0);
  EXPECT_EQ(read_fixture_matrix(dir / "a.h5", "/Y").rows(), 8 * 7);
  ASSERT_EQ(run_gplvm("generate --kind tree --n 5000 --output b.h5", 0, dir).exit_code, 0);
  EXPECT_EQ(read_fixture_matrix(dir / "b.h5", "/Y").rows(), 5000);

  const CliResult disagree =
      run_gplvm("generate --kind tree --depth 3 --per-leaf 7 --n 57 --output c.h5", 0, dir);
  EXPECT_EQ(disagree.exit_code, 2);
  EXPECT_NE(disagree.err.find("--per-leaf"), std::string::npos) << disagree.err;
  const CliResult too_few = run_gplvm("generate --kind tree --depth 4 --n 5 --output c.h5", 0, dir);
  EXPECT_EQ(too_few.exit_code, 2);
  EXPECT_NE(too_few.err.find("'--n'"), std::string::npos) << too_few.err;
  const CliResult too_many = run_gplvm("generate --kind gp --n 20001 --output c.h5", 2, dir);
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_NE(too_many.err.find("'--n'"), std::string::npos) << too_many.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "c.h5"));
}

// Manifold points are drawn one by one (no GP over the rows), so the exact GP's row limit does
// not apply to them: more rows than it, every one a unit vector.
TEST(GenerateCli, ManifoldKindsAreNotBoundByTheExactGpRowLimit) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind sphere_curve --n 20001 --output a.h5", 2, dir).exit_code, 0);
  const auto Y = read_fixture_matrix(dir / "a.h5", "/Y");
  ASSERT_EQ(Y.rows(), 20001);
  EXPECT_LT((Y.rowwise().norm().array() - 1.0).abs().maxCoeff(), 1e-12);
}

TEST(GenerateCli, CycleDefaultsToASquareDimensionAndItsErrorNamesTheOption) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind cycle --n 12 --output a.h5", 0, dir).exit_code, 0);
  EXPECT_EQ(read_fixture_matrix(dir / "a.h5", "/Y").cols(), 256);
  const CliResult r = run_gplvm("generate --kind cycle --n 12 --d 50 --output b.h5", 2, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'--d'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("output_dim"), std::string::npos) << r.err;
}

// The synthetic binary tree: Table 1's sizes by default, its codes, the same rows at any rank
// count, and refusals naming the option that disagrees with the construction.
TEST(GenerateCli, BinaryTreeWritesCodesAndTheTableSizes) {
  const ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind binary_tree --depth 5 --seed 4 --output a.h5", 0, dir).exit_code, 0);
  const RowMatrix Y = read_fixture_matrix(dir / "a.h5", "/Y"),
                  codes = read_fixture_matrix(dir / "a.h5", "/codes");
  EXPECT_EQ(Y.rows(), 620);
  EXPECT_EQ(Y.cols(), 31);
  EXPECT_EQ(codes.rows(), 620);
  EXPECT_EQ(codes.cols(), 31);
  EXPECT_EQ(codes.row(0).sum(), 1.0);    // the root's code
  EXPECT_EQ(codes.row(619).sum(), 5.0);  // a leaf's: itself and four ancestors
  EXPECT_EQ(read_fixture_vector(dir / "a.h5", "/labels").front(), 0.0);
  ASSERT_EQ(run_gplvm("generate --kind binary_tree --depth 5 --seed 4 --output b.h5", 3, dir).exit_code, 0);
  EXPECT_TRUE((read_fixture_matrix(dir / "b.h5", "/Y").array() == Y.array()).all());
  ASSERT_EQ(run_gplvm("generate --kind binary_tree --depth 4 --per-node 2 --output c.h5", 0, dir).exit_code,
            0);
  EXPECT_EQ(read_fixture_matrix(dir / "c.h5", "/Y").rows(), 30);
  const CliResult wrong_n = run_gplvm("generate --kind binary_tree --depth 4 --n 100 --output d.h5", 0, dir);
  EXPECT_EQ(wrong_n.exit_code, 2);
  EXPECT_NE(wrong_n.err.find("--n"), std::string::npos) << wrong_n.err;
  const CliResult wrong_depth = run_gplvm("generate --kind binary_tree --depth 13 --output d.h5", 0, dir);
  EXPECT_EQ(wrong_depth.exit_code, 2);
  EXPECT_NE(wrong_depth.err.find("--depth"), std::string::npos) << wrong_depth.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "d.h5"));
}

}  // namespace
}  // namespace gplvm
