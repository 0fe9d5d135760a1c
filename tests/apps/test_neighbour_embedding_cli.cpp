// `gplvm embed --method tsne | umap | sne` end to end: the clusters of the data come out as clusters
// of the embedding, the KL falls, the run at 1 and 3 ranks has the same bits, a run resumed from a
// checkpoint ends with the uninterrupted run's bits, `encode` places new rows by their cluster, and
// bad input (perplexity >= n / 3, k >= n, duplicates, NaN, too few rows, a Wishart fit asked of a
// neighbour embedding) is refused with exit 2 and no run file.
#include <gtest/gtest.h>

#include <filesystem>

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

constexpr Index kPerCluster = 40;

// Three well-separated Gaussian clusters in R^6; cluster c of row i is i / kPerCluster.
RowMatrix clusters(Index per_cluster, std::uint64_t seed) {
  RowMatrix y = testing::random_normal(3 * per_cluster, 6, seed);
  for (Index c = 0; c < 3; ++c) y.middleRows(c * per_cluster, per_cluster).col(c).array() += 12.0;
  return y;
}

// The share of rows whose nearest other row of the embedding is in their own cluster.
double nearest_neighbour_agreement(const RowMatrix& x, Index per_cluster) {
  Index agree = 0;
  for (Index i = 0; i < x.rows(); ++i) {
    Index best = -1;
    double nearest = 1e300;
    for (Index j = 0; j < x.rows(); ++j)
      if (j != i && (x.row(i) - x.row(j)).squaredNorm() < nearest) {
        nearest = (x.row(i) - x.row(j)).squaredNorm();
        best = j;
      }
    agree += best / per_cluster == i / per_cluster;
  }
  return static_cast<double>(agree) / static_cast<double>(x.rows());
}

struct Sandbox {
  ScratchDir dir;
  Sandbox() {
    testing::write_fixture_matrix(dir / "data.h5", "/Y", clusters(kPerCluster, 3));
    fs::create_directories(dir.path() / "out");
  }
};

const char* kShortTsne =
    " --probdr.perplexity=10 --probdr.early_exaggeration_iterations=50 --probdr.iterations=100";

TEST(NeighbourEmbeddingCli, TsneSeparatesTheClustersAndIsRankInvariant) {
  Sandbox r;
  const std::string common = std::string("embed --method tsne --data data.h5 --train.reproducible=true") +
                             kShortTsne + " --probdr.repulsion=interpolation";
  const CliResult one = run_gplvm(common + " --output out/one.h5", 1, r.dir);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_TRUE(testing::contains(one.err, "KL")) << one.err;
  const CliResult three = run_gplvm(common + " --output out/three.h5", 3, r.dir);
  ASSERT_EQ(three.exit_code, 0) << three.err;
  const RowMatrix x1 = read_fixture_matrix(r.dir / "out/one.h5", "/latent/mean");
  const RowMatrix x3 = read_fixture_matrix(r.dir / "out/three.h5", "/latent/mean");
  ASSERT_EQ(x1.rows(), 3 * kPerCluster);
  EXPECT_EQ((x1 - x3).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(nearest_neighbour_agreement(x1, kPerCluster), 1.0);
  // The objective (the negative KL) rose from the start to the end.
  const RowMatrix curve = read_fixture_matrix(r.dir / "out/one.h5", "/train/curve");
  EXPECT_GT(curve(curve.rows() - 1, 2), curve(0, 2));
  const RowMatrix kl = read_fixture_matrix(r.dir / "out/one.h5", "/probdr/kl");
  EXPECT_NEAR(kl(0, 0), -curve(curve.rows() - 1, 2), 0.05 * kl(0, 0));
}

TEST(NeighbourEmbeddingCli, AResumedRunEndsWithTheUninterruptedRunsBits) {
  Sandbox r;
  const std::string common = std::string("embed --method tsne --data data.h5") + kShortTsne;
  ASSERT_EQ(run_gplvm(common + " --output out/full.h5 --train.checkpoint_every=60 --output.checkpoint_dir=ck",
                      2, r.dir)
                .exit_code,
            0);
  const std::string checkpoint = r.dir / "ck/checkpoint-000000000060.h5";
  ASSERT_TRUE(fs::exists(checkpoint));
  const CliResult resumed = run_gplvm(
      common + " --output out/resumed.h5 --output.checkpoint_dir=ck --resume " + checkpoint, 2, r.dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const RowMatrix a = read_fixture_matrix(r.dir / "out/full.h5", "/latent/mean");
  const RowMatrix b = read_fixture_matrix(r.dir / "out/resumed.h5", "/latent/mean");
  EXPECT_EQ((a - b).cwiseAbs().maxCoeff(), 0.0);
}

TEST(NeighbourEmbeddingCli, UmapSeparatesTheClustersAndEncodePlacesNewRowsByCluster) {
  Sandbox r;
  testing::write_fixture_matrix(r.dir / "new.h5", "/Y", clusters(5, 11));
  const CliResult fit =
      run_gplvm("embed --method umap --data data.h5 --output out/umap.h5 --probdr.epochs=100", 2, r.dir);
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  const RowMatrix x = read_fixture_matrix(r.dir / "out/umap.h5", "/latent/mean");
  EXPECT_EQ(nearest_neighbour_agreement(x, kPerCluster), 1.0);
  const CliResult encoded = run_gplvm("encode --run out/umap.h5 --data new.h5 --output out/new.h5", 2, r.dir);
  ASSERT_EQ(encoded.exit_code, 0) << encoded.err;
  const RowMatrix placed = read_fixture_matrix(r.dir / "out/new.h5", "/latent/mean");
  ASSERT_EQ(placed.rows(), 15);
  // Each new row lands nearer its own cluster's centre than any other's.
  for (Index i = 0; i < placed.rows(); ++i) {
    Index best = -1;
    double nearest = 1e300;
    for (Index c = 0; c < 3; ++c) {
      const double d =
          (placed.row(i) - x.middleRows(c * kPerCluster, kPerCluster).colwise().mean()).squaredNorm();
      if (d < nearest) {
        nearest = d;
        best = c;
      }
    }
    EXPECT_EQ(best, i / 5) << "new row " << i;
  }
}

TEST(NeighbourEmbeddingCli, BadInputIsRefusedWithExitTwoAndNoRunFile) {
  Sandbox r;
  RowMatrix duplicated = clusters(kPerCluster, 3);
  duplicated.row(9) = duplicated.row(4);
  testing::write_fixture_matrix(r.dir / "duplicated.h5", "/Y", duplicated);
  RowMatrix holed = clusters(kPerCluster, 3);
  holed(17, 2) = std::nan("");
  testing::write_fixture_matrix(r.dir / "holed.h5", "/Y", holed);
  testing::write_fixture_matrix(r.dir / "tiny.h5", "/Y", clusters(1, 3));
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--method tsne --data data.h5 --probdr.perplexity=40", "probdr.perplexity"},
      {"--method umap --data data.h5 --graph.k=120", "graph.k"},
      {"--method tsne --data duplicated.h5", "data rows 4 and 9 are identical"},
      {"--method tsne --data holed.h5", "non-finite"},
      {"--method umap --data tiny.h5", "at least 4"},
      {"--method tsne --data data.h5 --probdr.fit=spectral", "probdr.fit"},
      {"--method umap --data data.h5 --probdr.repulsion=interpolation", "probdr.repulsion"},
  };
  for (const Case& c : cases) {
    const CliResult result = run_gplvm("embed " + c.args + " --output out/bad.h5", 2, r.dir);
    EXPECT_EQ(result.exit_code, 2) << c.args << "\n" << result.err;
    EXPECT_TRUE(testing::contains(result.err, c.message)) << c.args << "\n" << result.err;
    EXPECT_FALSE(fs::exists(r.dir / "out/bad.h5")) << c.args;
  }
}

}  // namespace
}  // namespace gplvm
