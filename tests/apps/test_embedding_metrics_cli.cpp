// gplvm embedding-metrics: which latent space it measures in (the attribute, else the
// hyperboloid test), the distance correlation with a generated tree's codes against a direct
// computation, the metrics file, and refusals (exit 2) for mismatched or oversized inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/lorentz_points.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::read_fixture_matrix;
using testing::run_gplvm;
using testing::ScratchDir;
using testing::write_fixture_matrix;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Pearson correlation of arccosh(-<a, b>_L) with the codes' Hamming distances over pairs i > j,
// written out from the definitions.
double hyperbolic_code_correlation(const RowMatrix& L, const RowMatrix& codes) {
  std::vector<double> a, b;
  for (Index i = 1; i < L.rows(); ++i)
    for (Index j = 0; j < i; ++j) {
      double dot = -L(i, 0) * L(j, 0);
      for (Index q = 1; q < L.cols(); ++q) dot += L(i, q) * L(j, q);
      a.push_back(std::acosh(std::max(-dot, 1.0)));
      b.push_back((codes.row(i) - codes.row(j)).cwiseAbs().sum());
    }
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t t = 0; t < a.size(); ++t) ma += a[t] / n, mb += b[t] / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t t = 0; t < a.size(); ++t) {
    sab += (a[t] - ma) * (b[t] - mb);
    saa += (a[t] - ma) * (a[t] - ma);
    sbb += (b[t] - mb) * (b[t] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

TEST(EmbeddingMetricsCli, MeasuresLorentzLatentsAgainstATreesCodes) {
  const ScratchDir dir;
  ASSERT_EQ(
      run_gplvm("generate --kind binary_tree --depth 4 --per-node 2 --output tree.h5", 0, dir).exit_code, 0);
  const RowMatrix L = testing::random_lorentz_points(30, 2, 3, 1.0);
  write_fixture_matrix(dir / "lat.h5", "/latent/mean", L);
  const CliResult r = run_gplvm("embedding-metrics --latents lat.h5 --data tree.h5 --k 3 --json", 0, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"latent_space\":\"lorentz\"")) << r.out;
  EXPECT_TRUE(has(r.out, "\"latent_space_from\":\"rows on the hyperboloid\"")) << r.out;
  for (const char* name :
       {"distance_correlation", "trustworthiness", "continuity", "shepard_goodness", "knn_accuracy"})
    EXPECT_TRUE(has(r.out, std::string("\"") + name + "\":")) << name;
  ASSERT_EQ(
      run_gplvm("embedding-metrics --latents lat.h5 --data tree.h5 --k 3 --output m.h5", 0, dir).exit_code,
      0);
  const double expected = hyperbolic_code_correlation(L, read_fixture_matrix(dir / "tree.h5", "/codes"));
  EXPECT_NEAR(read_fixture_matrix(dir / "m.h5", "/metrics/distance_correlation")(0, 0), expected, 1e-12);
  // The same coordinates marked Euclidean are measured as such.
  testing::write_fixture_string_attribute(dir / "lat.h5", "/latent/mean", "latent_space", "euclidean");
  const CliResult e = run_gplvm("embedding-metrics --latents lat.h5 --data tree.h5 --json", 3, dir);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_TRUE(has(e.out, "\"latent_space\":\"euclidean\"")) << e.out;
  EXPECT_TRUE(has(e.out, "\"latent_space_from\":\"attribute latent_space\"")) << e.out;
}

TEST(EmbeddingMetricsCli, RefusesMismatchedInputsAndOverwritingThem) {
  const ScratchDir dir;
  ASSERT_EQ(
      run_gplvm("generate --kind binary_tree --depth 4 --per-node 2 --output tree.h5", 0, dir).exit_code, 0);
  write_fixture_matrix(dir / "lat.h5", "/latent/mean", testing::random_normal(31, 2, 4));
  const CliResult rows = run_gplvm("embedding-metrics --latents lat.h5 --data tree.h5", 0, dir);
  EXPECT_EQ(rows.exit_code, 2);
  EXPECT_TRUE(has(rows.err, "/Y")) << rows.err;
  const CliResult same =
      run_gplvm("embedding-metrics --latents lat.h5 --data tree.h5 --output tree.h5", 0, dir);
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_TRUE(has(same.err, "--output")) << same.err;
  // Above 10,000 rows the metrics are distributed and Euclidean: hyperbolic latents are refused there.
  write_fixture_matrix(dir / "big.h5", "/latent/mean", testing::random_lorentz_points(10001, 2, 6, 1.0));
  const CliResult big = run_gplvm("embedding-metrics --latents big.h5 --data tree.h5", 0, dir);
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_TRUE(has(big.err, "10000")) << big.err;
  write_fixture_matrix(dir / "lat30.h5", "/latent/mean", testing::random_normal(30, 2, 5));
  testing::write_fixture_string_attribute(dir / "lat30.h5", "/latent/mean", "latent_space", "lorentz");
  const CliResult off = run_gplvm("embedding-metrics --latents lat30.h5 --data tree.h5", 0, dir);
  EXPECT_EQ(off.exit_code, 2);
  EXPECT_TRUE(has(off.err, "hyperboloid")) << off.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.h5"));
}

// The value of "name": in a --json line.
double json_number(const std::string& json, const std::string& name) {
  const std::size_t at = json.find("\"" + name + "\":");
  if (at == std::string::npos) return std::nan("");
  return std::stod(json.substr(at + name.size() + 3));
}

// Above the serial limit: every metric, distributed, the same at 1 and 3 ranks (trustworthiness,
// continuity and k-NN accuracy exactly: integer sums of exact ranks; the sampled pair correlations
// over the same keyed pairs), with the sample size reported. The distributed metrics equal the
// serial ones below the limit (tests/eval/test_distributed_embedding_metrics.mpi.cpp).
TEST(EmbeddingMetricsCli, AboveTheSerialLimitTheMetricsAreDistributedAndRankInvariant) {
  const ScratchDir dir;
  const Index n = 10100;
  const RowMatrix y = testing::random_normal(n, 4, 7);
  const RowMatrix latents = y.leftCols(2) + 0.5 * testing::random_normal(n, 2, 8);
  std::vector<std::int64_t> labels(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) labels[static_cast<std::size_t>(i)] = y(i, 0) > 0;
  write_fixture_matrix(dir / "data.h5", "/Y", y);
  testing::write_fixture_labels(dir / "data.h5", "/labels", labels, false);
  write_fixture_matrix(dir / "lat.h5", "/latent/mean", latents);
  std::vector<std::string> outputs;
  for (int ranks : {1, 3}) {
    const CliResult r =
        run_gplvm("embedding-metrics --latents lat.h5 --data data.h5 --k 5 --pairs 20000 --json", ranks, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "\"sampled_pairs\":20000")) << r.out;
    outputs.push_back(r.out);
  }
  for (const char* name : {"trustworthiness", "continuity", "shepard_goodness", "knn_accuracy"}) {
    const double one = json_number(outputs[0], name), three = json_number(outputs[1], name);
    EXPECT_TRUE(std::isfinite(one)) << name << ": " << outputs[0];
    EXPECT_EQ(one, three) << name;
  }
  // Two of the four data coordinates, plus noise: neighbourhoods are partly kept, not all.
  EXPECT_GT(json_number(outputs[0], "trustworthiness"), 0.6);
  EXPECT_LT(json_number(outputs[0], "trustworthiness"), 0.99);
}

}  // namespace
}  // namespace gplvm
