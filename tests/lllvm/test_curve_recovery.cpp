// LL-LVM recovers a 1-D curve: on a noisy helix, the fit with the highest bound over a few random
// starts orders the points by arc length (|Spearman| > 0.99). EM from a random q(C) can stop in a
// folded local optimum; the bound tells them apart, as the paper's restarts rely on.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/eval/embedding_metrics.hpp"
#include "gplvm/lllvm/lllvm_em.hpp"
#include "lllvm_test_problems.hpp"

namespace gplvm::testing {
namespace {

TEST(LllvmRecovery, HelixIsOrderedByArcLength) {
  const CurveSample curve = helix(40, 0.01, 1);
  const LllvmProblem problem = lllvm_problem(curve.y, graph_of(knn_adjacency(curve.y, 4)), 1, 1e-3);
  LllvmOptions options;
  options.max_iterations = 150;
  LllvmFit best;
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    options.seed = seed;
    LllvmFit fit = fit_lllvm(problem, options);
    if (best.trajectory.empty() || fit.final_bound() > best.final_bound()) best = std::move(fit);
  }
  EXPECT_GT(std::abs(spearman_correlation(best.state.mean_x, curve.arc)), 0.99);
}

}  // namespace
}  // namespace gplvm::testing
