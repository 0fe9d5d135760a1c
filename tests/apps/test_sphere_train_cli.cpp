// gplvm train with model.latent_space = "sphere" end to end: images of a pattern rotated through a
// full turn (gplvm generate --kind cycle, the rotating_pattern_cycle generator) trained by SAS with
// free latents on the circle S^1 with the sphere_eq kernel; the run file's latents are unit vectors
// (Q + 1 = 2 columns) marked latent_space = "sphere", their angles keep the rotation's cyclic order
// (up to a rotation and a reflection, judged by Fisher and Lee's circular rank correlation,
// computed here), and the configurations the sphere does not support are refused by key.
//
// The circle starts from the angle of the data's first two principal components
// (LatentSpace::from_start_components): one component as a tangent coordinate would fold the loop
// onto an arc (cos a cannot tell a from -a), which training does not undo.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <numeric>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::run_gplvm;
using testing::ScratchDir;

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// The angle of each row in the plane of its last two columns (of (cos a, sin a): a).
std::vector<double> angles(const RowMatrix& M) {
  const Index c = M.cols();
  std::vector<double> a(M.rows());
  for (Index i = 0; i < M.rows(); ++i) a[i] = std::atan2(M(i, c - 1), M(i, c - 2));
  return a;
}

// Uniform scores 2 pi rank / n of angles (ranks by angle from -pi; no ties in these data).
std::vector<double> uniform_scores(const std::vector<double>& a) {
  std::vector<std::size_t> order(a.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return a[i] < a[j]; });
  std::vector<double> scores(a.size());
  for (std::size_t r = 0; r < order.size(); ++r)
    scores[order[r]] = 2.0 * std::numbers::pi * static_cast<double>(r + 1) / static_cast<double>(a.size());
  return scores;
}

// Fisher and Lee's circular-circular rank correlation (Fisher & Lee 1982; Mardia & Jupp, Directional
// Statistics, 11.3.3): with uniform scores alpha, beta of the two samples,
//   r(+-) = |sum_i exp(i (alpha_i -+ beta_i))|^2 / n^2,
// r+ = 1 when the second sample's cyclic order is the first's rotated, r- = 1 when it is reflected;
// their maximum is 1 exactly when the cyclic order is kept up to rotation and reflection, and near 0
// for independent samples. Independent of the rank origin: a rotation of the scores leaves it.
double circular_rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> alpha = uniform_scores(a), beta = uniform_scores(b);
  double c_minus = 0, s_minus = 0, c_plus = 0, s_plus = 0;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    c_minus += std::cos(alpha[i] - beta[i]);
    s_minus += std::sin(alpha[i] - beta[i]);
    c_plus += std::cos(alpha[i] + beta[i]);
    s_plus += std::sin(alpha[i] + beta[i]);
  }
  const double n2 = static_cast<double>(alpha.size() * alpha.size());
  return std::max((c_minus * c_minus + s_minus * s_minus) / n2, (c_plus * c_plus + s_plus * s_plus) / n2);
}

// The correlation itself: 1 for a rotated or reflected order, small for a shuffled one.
TEST(SphereTrainCli, CircularRankCorrelationSeesRotationsAndReflectionsOnly) {
  const std::size_t n = 200;
  std::vector<double> truth(n), rotated(n), reflected(n), shuffled(n);
  for (std::size_t i = 0; i < n; ++i) {
    truth[i] = std::remainder(2.0 * std::numbers::pi * i / n, 2.0 * std::numbers::pi);
    rotated[i] = std::remainder(truth[i] + 2.0, 2.0 * std::numbers::pi);
    reflected[i] = std::remainder(0.5 - truth[i], 2.0 * std::numbers::pi);
    shuffled[i] = std::remainder(2.0 * std::numbers::pi * ((i * 73) % n) / n, 2.0 * std::numbers::pi);
  }
  EXPECT_GT(circular_rank_correlation(truth, rotated), 1.0 - 1e-12);
  EXPECT_GT(circular_rank_correlation(truth, reflected), 1.0 - 1e-12);
  EXPECT_LT(circular_rank_correlation(truth, shuffled), 0.1);
  // A folded circle (both halves on one arc, as cos theta alone orders them) is far from 1.
  std::vector<double> folded(n);
  for (std::size_t i = 0; i < n; ++i) folded[i] = std::cos(truth[i]);
  EXPECT_LT(circular_rank_correlation(truth, folded), 0.5);
}

const char* kConfig = R"([data]
path = "ring.h5"
[model]
kind = "sas"
latent_space = "sphere"
latent_dim = 1
latents = "free"
kernel = "sphere_eq"
[sas]
batch_size = 50
active_size = 25
[train]
epochs = 1000
max_steps = 600
learning_rate = 0.02
progress_seconds = 1000
[output]
path = "out/run.h5"
)";

struct RingSandbox {
  ScratchDir dir;
  RingSandbox() {
    const CliResult g = run_gplvm("generate --kind cycle --n 200 --d 64 --seed 3 --output ring.h5", 0, dir);
    EXPECT_EQ(g.exit_code, 0) << g.err;
    testing::write_text(dir / "config.toml", kConfig);
    fs::create_directories(dir.path() / "out");
  }
};

TEST(SphereTrainCli, LearnsTheRotationsCyclicOrderOnTheCircle) {
  RingSandbox r;
  const CliResult t = run_gplvm("train --config config.toml", 2, r.dir);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const RowMatrix latents = testing::read_fixture_matrix(r.dir / "out/run.h5", "/latent/mean");
  ASSERT_EQ(latents.rows(), 200);
  ASSERT_EQ(latents.cols(), 2);  // Q + 1
  for (Index i = 0; i < latents.rows(); ++i) EXPECT_NEAR(latents.row(i).norm(), 1.0, 1e-12) << "row " << i;
  EXPECT_EQ(testing::read_fixture_root_attribute(r.dir / "out/run.h5", "latent_space"), "sphere");
  const RowMatrix truth = testing::read_fixture_matrix(r.dir / "ring.h5", "/latent_true");
  ASSERT_EQ(truth.rows(), 200);
  const double correlation = circular_rank_correlation(angles(truth), angles(latents));
  EXPECT_GT(correlation, 0.99);

  const CliResult info = run_gplvm("info out/run.h5 --json", 0, r.dir);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_TRUE(has(info.out, "\"latent_space\":\"sphere\"")) << info.out;
}

// What the sphere does not support: exit 2, naming the key, and no run file.
TEST(SphereTrainCli, BayesianKindsAndKernelsOfOtherSpacesAreRefusedByKey) {
  RingSandbox r;
  struct Case {
    std::string overrides, key;
  };
  const Case cases[] = {
      {"--model.kind=bayesian_sas", "model.latent_space"},
      {"--model.kind=bayesian_gplvm", "model.latent_space"},
      {"--model.kernel=eq_ard", "model.kernel"},
      {"--model.kernel=hyperboloid_exp", "model.kernel"},
      {"--model.latent_space=euclidean", "model.kernel"},  // sphere_eq on R^Q
  };
  for (const Case& c : cases) {
    const CliResult refused = run_gplvm("train --config config.toml " + c.overrides, 0, r.dir);
    EXPECT_EQ(refused.exit_code, 2) << c.overrides << ": " << refused.err;
    EXPECT_TRUE(has(refused.err, c.key)) << c.overrides << ": " << refused.err;
    EXPECT_FALSE(fs::exists(r.dir.path() / "out/run.h5")) << c.overrides;
  }
}

}  // namespace
}  // namespace gplvm
