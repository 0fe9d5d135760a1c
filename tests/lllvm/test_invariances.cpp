// The model's symmetries carried through EM: rotating the data (y_i -> U y_i, with the start's
// C_i -> U C_i) or relabelling the points (with the graph and the start permuted alike) leaves the
// bound's trajectory unchanged and transforms the fit accordingly.
#include <gtest/gtest.h>

#include <numeric>

#include "gplvm/lllvm/lllvm_em.hpp"
#include "lllvm_test_problems.hpp"

namespace gplvm::testing {
namespace {

constexpr Index kNodes = 30, kDims = 2;

LllvmOptions short_run() {
  LllvmOptions options;
  options.max_iterations = 8;
  options.relative_tolerance = 0.0;
  return options;
}

void expect_same_trajectory(const LllvmFit& a, const LllvmFit& b) {
  ASSERT_EQ(a.trajectory.size(), b.trajectory.size());
  for (std::size_t t = 0; t < a.trajectory.size(); ++t) {
    const double x = a.trajectory[t].bound.total(), y = b.trajectory[t].bound.total();
    EXPECT_NEAR(x, y, 1e-9 * std::abs(x)) << "record " << t;
  }
}

TEST(LllvmInvariances, RotatingTheDataChangesNothing) {
  const Matrix y = swiss_roll(kNodes, 11);
  const Matrix g = knn_adjacency(y, 5);
  const Eigen::HouseholderQR<Matrix> qr(random_matrix(3, 3, 11, 70));
  const Matrix u = qr.householderQ();
  const LllvmProblem problem = lllvm_problem(y, graph_of(g), kDims, 1e-3);
  const LllvmProblem rotated = lllvm_problem(y * u.transpose(), graph_of(g), kDims, 1e-3);
  const LllvmState start = initial_state(problem, 2, 1.0, 1e-3);
  LllvmState rotated_start = start;
  rotated_start.mean_c = u * start.mean_c;
  const LllvmFit fit = fit_lllvm(problem, short_run(), start);
  const LllvmFit rotated_fit = fit_lllvm(rotated, short_run(), rotated_start);
  expect_same_trajectory(fit, rotated_fit);
  EXPECT_LT((rotated_fit.state.mean_x - fit.state.mean_x).cwiseAbs().maxCoeff(),
            1e-8 * fit.state.mean_x.cwiseAbs().maxCoeff());
  EXPECT_LT((rotated_fit.state.mean_c - u * fit.state.mean_c).cwiseAbs().maxCoeff(),
            1e-8 * fit.state.mean_c.cwiseAbs().maxCoeff());
}

TEST(LllvmInvariances, RelabellingThePointsPermutesTheFit) {
  const Matrix y = swiss_roll(kNodes, 12);
  const Matrix g = knn_adjacency(y, 5);
  // order[a] is the old label of new point a: a fixed shuffle.
  std::vector<Index> order(kNodes);
  for (Index a = 0; a < kNodes; ++a) order[a] = (7 * a + 3) % kNodes;
  Matrix permuted_y(kNodes, 3), permuted_g(kNodes, kNodes);
  for (Index a = 0; a < kNodes; ++a) {
    permuted_y.row(a) = y.row(order[a]);
    for (Index b = 0; b < kNodes; ++b) permuted_g(a, b) = g(order[a], order[b]);
  }
  const LllvmProblem problem = lllvm_problem(y, graph_of(g), kDims, 1e-3);
  const LllvmProblem permuted = lllvm_problem(permuted_y, graph_of(permuted_g), kDims, 1e-3);
  const LllvmState start = initial_state(problem, 3, 1.0, 1e-3);
  const auto permute_columns = [&](const Matrix& m) {
    Matrix out(m.rows(), m.cols());
    for (Index r = 0; r < kDims; ++r)
      for (Index a = 0; a < kNodes; ++a) out.col(r * kNodes + a) = m.col(r * kNodes + order[a]);
    return out;
  };
  LllvmState permuted_start = start;
  permuted_start.mean_c = permute_columns(start.mean_c);
  const LllvmFit fit = fit_lllvm(problem, short_run(), start);
  const LllvmFit permuted_fit = fit_lllvm(permuted, short_run(), permuted_start);
  expect_same_trajectory(fit, permuted_fit);
  const Matrix expected_x = permute_columns(fit.state.mean_x.transpose());
  EXPECT_LT((permuted_fit.state.mean_x.transpose() - expected_x).cwiseAbs().maxCoeff(),
            1e-8 * fit.state.mean_x.cwiseAbs().maxCoeff());
}

}  // namespace
}  // namespace gplvm::testing
