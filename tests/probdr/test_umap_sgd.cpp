// UMAP's negative-sampling epochs (probdr/umap_sgd.hpp) in expectation. On a regular graph (a ring,
// every weight 1, so every edge is sampled every epoch) the mean move of a point over many epochs'
// keyed draws equals -rate times the gradient of the objective negative sampling optimises,
//   C_eff = sum_{i != j} A_ij (-log w_ij) + lambda sum_{i != j} (-log(1 - w_ij)),
//   lambda = deg m / (2 n)  (m negative samples per sampled edge),
// the cross-entropy's attraction exactly and its repulsion reweighted from (1 - v_ij) to lambda (the
// effective loss of Damrich and Hamprecht, 2021). The gradient is by finite differences of C_eff
// written out here, and the draws are checked to be uniform over the vertices.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/probdr/umap_sgd.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 8;
constexpr Index kNegatives = 5;
constexpr double kRate = 1e-3;

RowMatrix ring_positions() {
  RowMatrix y(kN, 2);
  for (Index i = 0; i < kN; ++i) {
    const double t = 2.0 * M_PI * static_cast<double>(i) / kN;
    y.row(i) << 3.0 * std::cos(t) + 0.3 * std::sin(3.0 * i), 2.0 * std::sin(t) + 0.2 * std::cos(5.0 * i);
  }
  return y;
}

SparseGraph ring_graph() {
  std::vector<Edge> edges;
  for (Index i = 0; i < kN; ++i)
    for (const Index j : {(i + 1) % kN, (i + kN - 1) % kN}) edges.push_back({i, j, 1.0});
  return graph_from_edges(kN, 0, kN, edges);
}

double effective_objective(const RowMatrix& y, const UmapCurve& c) {
  const double lambda = 2.0 * kNegatives / (2.0 * kN);
  double value = 0.0;
  for (Index i = 0; i < kN; ++i)
    for (Index j = 0; j < kN; ++j) {
      if (i == j) continue;
      const double d2 = (y.row(i) - y.row(j)).squaredNorm(), ad = c.a * std::pow(d2, c.b);
      const bool edge = (j == (i + 1) % kN) || (i == (j + 1) % kN);
      if (edge) value += std::log1p(ad);                  // -log w
      value += lambda * (std::log1p(ad) - std::log(ad));  // -log(1 - w)
    }
  return value;
}

TEST(UmapSgd, MeanMoveIsMinusRateTimesTheEffectiveObjectivesGradient) {
  const Communicator comm;
  const SparseGraph graph = ring_graph();
  const UmapCurve curve{1.577, 0.895};
  NeighbourEmbeddingSettings s;
  s.umap_learning_rate = kRate;
  s.negative_samples = kNegatives;
  s.umap_batches = 1;  // every move of an epoch from its start (sub-batches would move the later ones)
  const Index epochs = 1 << 22;  // the rate's linear decay is negligible over the epochs drawn
  const UmapSgd sgd(graph, curve, s, epochs, 42, comm);
  const RowMatrix y = ring_positions();
  const Index draws = 6000;
  RowMatrix mean = RowMatrix::Zero(kN, 2);
  for (Index e = 1; e <= draws; ++e) {
    RowMatrix moved = y;
    sgd.epoch(moved, e);
    mean += (moved - y) / (static_cast<double>(draws) * (1.0 - static_cast<double>(e) / epochs));
  }
  RowMatrix gradient(kN, 2);
  for (Index i = 0; i < kN; ++i)
    for (Index d = 0; d < 2; ++d) {
      RowMatrix plus = y, minus = y;
      plus(i, d) += 1e-6;
      minus(i, d) -= 1e-6;
      gradient(i, d) = (effective_objective(plus, curve) - effective_objective(minus, curve)) / 2e-6;
    }
  const RowMatrix expected = -kRate * gradient;
  EXPECT_LT((mean - expected).norm(), 0.03 * expected.norm()) << "mean\n"
                                                              << mean << "\nexpected\n"
                                                              << expected;
}

}  // namespace
}  // namespace gplvm
