// gplvm geometry, geodesic and brownian on a small exact GPLVM run: the metric written at each grid
// point equals the expected metric of the posterior built here from the run's parameters, latents and
// data; geodesics are no longer than their straight lines and shooting lands near their ends; every
// output is the same at 1 and 3 ranks; bad input is refused with exit code 2 and no output.
#include <gtest/gtest.h>

#include <filesystem>

#include "gplvm/geometry/expected_metric.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::read_fixture_matrix;
using testing::read_fixture_vector;
using testing::run_gplvm;

struct ExactRun {
  testing::ScratchDir dir;
  ExactRun() {
    const Matrix X = testing::random_normal(40, 2, 3);
    testing::write_fixture_matrix(dir / "d.h5", "/Y",
                                  sample_gp_outputs(EqArdKernel(1.0, 1.0, 2), 0.05, X, 4, CounterRng(4), 0));
    testing::write_text(dir / "c.toml",
                        "[data]\npath = \"d.h5\"\n[model]\nkind = \"exact\"\nlengthscale = 1.0\n"
                        "kernel_variance = 1.0\nnoise_variance = 0.1\n[exact]\nmax_iterations = 200\n"
                        "[output]\npath = \"run.h5\"\n");
    const auto r = run_gplvm("train --config c.toml", 1, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
};

TEST(GeometryCli, TheMetricOnTheGridIsThePosteriorsExpectedMetricAtAnyRankCount) {
  ExactRun t;
  for (const int ranks : {1, 3}) {
    const std::string out = "g" + std::to_string(ranks) + ".h5";
    const auto r = run_gplvm("geometry --run run.h5 --grid 7 --condition 0 --output " + out, ranks, t.dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const std::vector<double> theta = read_fixture_vector(t.dir / "run.h5", "/params/kernel/variance");
  const std::vector<double> ell = read_fixture_vector(t.dir / "run.h5", "/params/kernel/lengthscales");
  const double noise = read_fixture_vector(t.dir / "run.h5", "/params/noise_variance")[0];
  const EqArdKernel k(theta[0], Eigen::Map<const Vector>(ell.data(), 2));
  const Matrix Z = read_fixture_matrix(t.dir / "run.h5", "/latent/mean");
  const Matrix Y = read_fixture_matrix(t.dir / "d.h5", "/Y");
  const GpPosterior posterior = GpPosterior::given_observations(k, Z, Y, noise);
  const Matrix points = read_fixture_matrix(t.dir / "g1.h5", "/geometry/points");
  ASSERT_EQ(points.rows(), 49);
  const RowMatrix metric = read_fixture_matrix(t.dir / "g1.h5", "/geometry/metric");  // 49 x 4 (2 x 2 rows)
  const std::vector<Matrix> want = ExpectedMetric(posterior).metrics(points);
  for (Index i = 0; i < points.rows(); ++i) {
    const Matrix got = Eigen::Map<const Matrix>(metric.row(i).data(), 2, 2);
    EXPECT_LT((got - want[i]).norm(), 1e-9 * want[i].norm()) << "point " << i;
  }
  EXPECT_EQ(read_fixture_matrix(t.dir / "g3.h5", "/geometry/metric"), metric);
  const auto info = run_gplvm("info g1.h5 --json", 0, t.dir);
  EXPECT_NE(info.out.find("\"type\":\"geometry\",\"rows\":49"), std::string::npos) << info.out;
  const std::vector<double> logv = read_fixture_vector(t.dir / "g1.h5", "/geometry/log_volume");
  EXPECT_NEAR(logv[5], 0.5 * std::log(want[5].determinant()), 1e-10);
}

TEST(GeodesicCli, GeodesicsAreNoLongerThanStraightLinesAndTheSameAtAnyRankCount) {
  ExactRun t;
  for (const int ranks : {1, 3}) {
    const auto r = run_gplvm(
        "geodesic --run run.h5 --random-pairs 4 --seed 2 --condition 0 --decode --shoot --nodes 64 "
        "--segments 16 "
        "--curve-points 11 --resolution 24 --json --output p" +
            std::to_string(ranks) + ".h5",
        ranks, t.dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"no_longer_than_straight\":4"), std::string::npos) << r.out;
  }
  for (const char* dataset :
       {"/geodesics/curve", "/geodesics/length", "/geodesics/decoded", "/geodesics/shot_miss"})
    EXPECT_EQ(read_fixture_matrix(t.dir / "p1.h5", dataset), read_fixture_matrix(t.dir / "p3.h5", dataset))
        << dataset;
  const std::vector<double> length = read_fixture_vector(t.dir / "p1.h5", "/geodesics/length");
  const std::vector<double> straight = read_fixture_vector(t.dir / "p1.h5", "/geodesics/straight_length");
  const std::vector<double> miss = read_fixture_vector(t.dir / "p1.h5", "/geodesics/shot_miss");
  const Matrix from = read_fixture_matrix(t.dir / "p1.h5", "/geodesics/from");
  const Matrix to = read_fixture_matrix(t.dir / "p1.h5", "/geodesics/to");
  for (std::size_t p = 0; p < length.size(); ++p) {
    EXPECT_LE(length[p], straight[p] * (1 + 1e-12)) << p;
    EXPECT_LT(miss[p], 0.1 * (from.row(static_cast<Index>(p)) - to.row(static_cast<Index>(p))).norm()) << p;
  }
  // The curve's ends are the pair's points; its decoded rows are D wide.
  const Matrix curves = read_fixture_matrix(t.dir / "p1.h5", "/geodesics/curve");  // 4 x (11 * 2)
  EXPECT_LT((curves.row(0).head(2) - from.row(0)).norm(), 1e-12);
  EXPECT_EQ(read_fixture_matrix(t.dir / "p1.h5", "/geodesics/decoded").cols(), 11 * 4);
  const auto info = run_gplvm("info p1.h5 --json", 0, t.dir);
  EXPECT_NE(info.out.find("\"type\":\"geodesics\",\"rows\":4"), std::string::npos) << info.out;
}

TEST(BrownianCli, PathsAreTheSameAtAnyRankCount) {
  ExactRun t;
  for (const int ranks : {1, 3}) {
    const auto r = run_gplvm(
        "brownian --run run.h5 --from 3 --paths 5 --steps 8 --time 0.01 --seed 4 --log-density "
        "--output b" +
            std::to_string(ranks) + ".h5",
        ranks, t.dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const Matrix paths = read_fixture_matrix(t.dir / "b1.h5", "/brownian/paths");
  EXPECT_EQ(paths.rows(), 5);
  EXPECT_EQ(paths, read_fixture_matrix(t.dir / "b3.h5", "/brownian/paths"));
  EXPECT_EQ(read_fixture_matrix(t.dir / "b1.h5", "/brownian/log_density"),
            read_fixture_matrix(t.dir / "b3.h5", "/brownian/log_density"));
  const Matrix Z = read_fixture_matrix(t.dir / "run.h5", "/latent/mean");
  EXPECT_LT((paths.row(2).head(2) - Z.row(3)).norm(), 1e-15);  // every path starts at --from
}

// Latents on the sphere S^2 (free SAS latents, sphere_eq kernel): geodesics and random walks run in the
// exponential chart and are written as points of the sphere, the same at 1 and 3 ranks; shooting and
// the riemannian drift, which the chart cannot give, are refused.
TEST(GeodesicCli, OnSphereLatentsCurvesStayOnTheSphere) {
  testing::ScratchDir dir;
  ASSERT_EQ(run_gplvm("generate --kind cycle --n 60 --d 16 --seed 3 --output ring.h5", 0, dir).exit_code, 0);
  testing::write_text(dir / "c.toml",
                      "[data]\npath = \"ring.h5\"\n[model]\nkind = \"sas\"\nlatent_space = \"sphere\"\n"
                      "latent_dim = 2\nlatents = \"free\"\nkernel = \"sphere_eq\"\n[sas]\nbatch_size = 30\n"
                      "active_size = 15\n[train]\nepochs = 100\nmax_steps = 60\nlearning_rate = 0.02\n"
                      "progress_seconds = 1000\n[output]\npath = \"run.h5\"\n");
  const auto t = run_gplvm("train --config c.toml", 1, dir);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const std::pair<const char*, const char*> commands[] = {
      {"geodesic --run run.h5 --random-pairs 3 --condition 0 --resolution 16 --curve-points 9 --output s",
       ".h5"},
      {"brownian --run run.h5 --from 5 --paths 3 --steps 4 --time 0.01 --method random_walk --output w",
       ".h5"}};
  for (const int ranks : {1, 3})
    for (const auto& [command, suffix] : commands) {
      const auto r = run_gplvm(command + std::to_string(ranks) + suffix, ranks, dir);
      ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
    }
  const Matrix curves = read_fixture_matrix(dir / "s1.h5", "/geodesics/curve");  // 3 x (9 * 3)
  EXPECT_EQ(curves, read_fixture_matrix(dir / "s3.h5", "/geodesics/curve"));
  const Matrix paths = read_fixture_matrix(dir / "w1.h5", "/brownian/paths");  // 3 x (5 * 3)
  EXPECT_EQ(paths, read_fixture_matrix(dir / "w3.h5", "/brownian/paths"));
  for (const Matrix* m : {&curves, &paths})
    for (Index r = 0; r < m->rows(); ++r)
      for (Index p = 0; p < m->cols() / 3; ++p)
        EXPECT_NEAR(m->row(r).segment(3 * p, 3).norm(), 1.0, 1e-12) << "row " << r << " point " << p;
  const Matrix from = read_fixture_matrix(dir / "s1.h5", "/geodesics/from");
  EXPECT_LT((curves.row(0).head(3) - from.row(0)).norm(), 1e-10);
  EXPECT_EQ(run_gplvm("geodesic --run run.h5 --from 0 --to 1 --shoot --output x.h5", 1, dir).exit_code, 2);
  EXPECT_EQ(run_gplvm("brownian --run run.h5 --from 0 --output x.h5", 1, dir).exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.h5"));
}

TEST(GeometryCli, BadInputIsRefusedWithoutOutput) {
  ExactRun t;
  const auto over = run_gplvm("geometry --run run.h5 --output run.h5", 1, t.dir);
  EXPECT_EQ(over.exit_code, 2);
  const auto range = run_gplvm("geodesic --run run.h5 --from 0 --to 400 --output x.h5", 1, t.dir);
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find("--to"), std::string::npos) << range.err;
  const auto both =
      run_gplvm("geodesic --run run.h5 --from 0 --to 1 --random-pairs 3 --output x.h5", 1, t.dir);
  EXPECT_EQ(both.exit_code, 2);
  const auto method = run_gplvm("brownian --run run.h5 --from 0 --method heat --output x.h5", 1, t.dir);
  EXPECT_EQ(method.exit_code, 2);
  EXPECT_NE(method.err.find("--method"), std::string::npos) << method.err;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "x.h5"));
}

}  // namespace
}  // namespace gplvm
