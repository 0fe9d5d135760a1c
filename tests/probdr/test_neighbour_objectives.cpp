// The exact SNE, t-SNE and UMAP objectives (probdr/exact_neighbour_objective.hpp) against their
// definitions written densely here, their gradients against central finite differences, the ProbDR
// identities (the t-SNE KL is the categorical KL over vec(A'); the UMAP KL over i < j is half the
// cost), the scalable t-SNE gradient (tsne_gradient.hpp) against the exact one, and the descent's
// update rule against a hand-computed step.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gplvm/probdr/embedding_descent.hpp"
#include "gplvm/probdr/exact_neighbour_objective.hpp"
#include "gplvm/probdr/tsne_gradient.hpp"
#include "graph/graph_test_data.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 9;

Matrix random_affinities(Index n, unsigned seed, bool symmetric, bool rows_sum_to_one) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  Matrix a = Matrix::Zero(n, n);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j)
      if (i != j && uniform(engine) < 0.6) a(i, j) = uniform(engine);
  if (symmetric) a = (0.5 * (a + a.transpose())).eval();
  if (rows_sum_to_one)
    for (Index i = 0; i < n; ++i) a.row(i) /= a.row(i).sum();
  return a;
}

SparseGraph graph_of(const Matrix& a) {
  std::vector<Edge> edges;
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < a.cols(); ++j)
      if (a(i, j) != 0.0) edges.push_back({i, j, a(i, j)});
  return graph_from_edges(static_cast<std::uint64_t>(a.rows()), 0, a.rows(), edges);
}

double squared_distance(const RowMatrix& y, Index i, Index j) {
  return (y.row(i) - y.row(j)).squaredNorm();
}

// The definitions, every pair written out.
double dense_tsne_kl(const RowMatrix& y, const Matrix& p, double alpha) {
  Matrix w = Matrix::Zero(y.rows(), y.rows());
  for (Index i = 0; i < y.rows(); ++i)
    for (Index j = 0; j < y.rows(); ++j)
      if (i != j) w(i, j) = std::pow(1.0 + squared_distance(y, i, j) / alpha, -alpha);
  const Matrix q = w / w.sum();
  double kl = 0.0;
  for (Index i = 0; i < y.rows(); ++i)
    for (Index j = 0; j < y.rows(); ++j)
      if (p(i, j) > 0) kl += p(i, j) * std::log(p(i, j) / q(i, j));
  return kl;
}

double dense_sne_kl(const RowMatrix& y, const Matrix& v) {
  double kl = 0.0;
  for (Index i = 0; i < y.rows(); ++i) {
    double z = 0.0;
    for (Index k = 0; k < y.rows(); ++k)
      if (k != i) z += std::exp(-squared_distance(y, i, k));
    for (Index j = 0; j < y.rows(); ++j)
      if (j != i && v(i, j) > 0)
        kl += v(i, j) * std::log(v(i, j) / (std::exp(-squared_distance(y, i, j)) / z));
  }
  return kl;
}

// Bernoulli KL over the pairs (i, j) with j < i (the lower triangle, Proof A.6's product).
double dense_umap_kl_lower(const RowMatrix& y, const Matrix& v, double a, double b) {
  double kl = 0.0;
  for (Index i = 0; i < y.rows(); ++i)
    for (Index j = 0; j < i; ++j) {
      const double w = 1.0 / (1.0 + a * std::pow(squared_distance(y, i, j), b)), x = v(i, j);
      if (x > 0) kl += x * std::log(x / w);
      if (x < 1) kl += (1 - x) * std::log((1 - x) / (1 - w));
    }
  return kl;
}

RowMatrix finite_difference_gradient(const std::function<double(const RowMatrix&)>& f, const RowMatrix& y) {
  RowMatrix g(y.rows(), y.cols());
  for (Index i = 0; i < y.rows(); ++i)
    for (Index d = 0; d < y.cols(); ++d) {
      const double h = 1e-6 * std::max(1.0, std::abs(y(i, d)));
      RowMatrix plus = y, minus = y;
      plus(i, d) += h;
      minus(i, d) -= h;
      g(i, d) = (f(plus) - f(minus)) / (2 * h);
    }
  return g;
}

double relative_error(const RowMatrix& a, const RowMatrix& b) {
  return (a - b).norm() / b.norm();
}

NeighbourKernel kernel(NeighbourObjective objective, double alpha = 1.0, UmapCurve curve = {}) {
  NeighbourKernel k;
  k.objective = objective;
  k.alpha = alpha;
  k.curve = curve;
  return k;
}

TEST(NeighbourObjectives, TsneIsTheCategoricalKlAndItsGradientMatchesFiniteDifferences) {
  const Communicator comm;
  const Matrix p = [] {
    Matrix m = random_affinities(kN, 3, true, false);
    return Matrix(m / m.sum());
  }();
  EXPECT_NEAR(p.sum(), 1.0, 1e-15);
  const SparseGraph graph = graph_of(p);
  const RowMatrix y = testing::gaussian_rows(kN, 2, 11);
  for (const double alpha : {1.0, 0.5, 3.0}) {
    const NeighbourKernel k = kernel(NeighbourObjective::tsne, alpha);
    const NeighbourEvaluation e = exact_neighbour_objective(y, graph, k, 1.0, comm);
    EXPECT_NEAR(e.kl, dense_tsne_kl(y, p, alpha), 1e-12) << "alpha " << alpha;
    const RowMatrix fd =
        finite_difference_gradient([&](const RowMatrix& x) { return dense_tsne_kl(x, p, alpha); }, y);
    EXPECT_LT(relative_error(e.gradient, fd), 1e-6) << "alpha " << alpha;
  }
}

TEST(NeighbourObjectives, SneValueAndGradient) {
  const Communicator comm;
  const Matrix v = random_affinities(kN, 5, false, true);
  const RowMatrix y = testing::gaussian_rows(kN, 2, 13);
  const NeighbourEvaluation e =
      exact_neighbour_objective(y, graph_of(v), kernel(NeighbourObjective::sne), 1.0, comm);
  EXPECT_NEAR(e.kl, dense_sne_kl(y, v), 1e-12);
  const RowMatrix fd = finite_difference_gradient([&](const RowMatrix& x) { return dense_sne_kl(x, v); }, y);
  EXPECT_LT(relative_error(e.gradient, fd), 1e-6);
}

TEST(NeighbourObjectives, UmapCostIsTwiceTheLowerTriangleKlAndItsGradientMatchesFiniteDifferences) {
  const Communicator comm;
  Matrix v = random_affinities(kN, 7, true, false);
  v = v.cwiseMin(1.0);
  const RowMatrix y = testing::gaussian_rows(kN, 2, 17);
  const UmapCurve curve{1.577, 0.895};
  const NeighbourEvaluation e =
      exact_neighbour_objective(y, graph_of(v), kernel(NeighbourObjective::umap, 1.0, curve), 1.0, comm);
  EXPECT_NEAR(e.kl, 2.0 * dense_umap_kl_lower(y, v, curve.a, curve.b), 1e-10);
  const RowMatrix fd = finite_difference_gradient(
      [&](const RowMatrix& x) { return 2.0 * dense_umap_kl_lower(x, v, curve.a, curve.b); }, y);
  EXPECT_LT(relative_error(e.gradient, fd), 1e-6);
}

TEST(NeighbourObjectives, ExaggerationScalesTheAttractionOnly) {
  const Communicator comm;
  Matrix p = random_affinities(kN, 19, true, false);
  p /= p.sum();
  const SparseGraph graph = graph_of(p);
  const RowMatrix y = testing::gaussian_rows(kN, 2, 23);
  const NeighbourKernel k = kernel(NeighbourObjective::tsne);
  const NeighbourEvaluation plain = exact_neighbour_objective(y, graph, k, 1.0, comm);
  const NeighbourEvaluation doubled = exact_neighbour_objective(y, graph, k, 2.0, comm);
  const NeighbourEvaluation zero = exact_neighbour_objective(y, graph, k, 0.0, comm);
  EXPECT_EQ(plain.kl, doubled.kl);
  // g(rho) = rho A - R is affine in rho: g(2) = 2 g(1) - g(0).
  EXPECT_LT((doubled.gradient - (2.0 * plain.gradient - zero.gradient)).norm(),
            1e-12 * plain.gradient.norm());
}

TEST(TsneGradient, ExactRepulsionEqualsTheExactObjective) {
  const Communicator comm;
  Matrix p = random_affinities(kN, 29, true, false);
  p /= p.sum();
  const SparseGraph graph = graph_of(p);
  const RowMatrix y = testing::gaussian_rows(kN, 2, 31);
  for (const double alpha : {1.0, 2.5}) {
    const TsneGradient gradient(graph, alpha, RepulsionMethod::exact, InterpolationOptions{}, comm);
    const TsneEvaluation scalable = gradient.evaluate(y, 4.0);
    const NeighbourEvaluation exact =
        exact_neighbour_objective(y, graph, kernel(NeighbourObjective::tsne, alpha), 4.0, comm);
    EXPECT_NEAR(scalable.kl, exact.kl, 1e-12);
    EXPECT_LT(relative_error(scalable.gradient, exact.gradient), 1e-12);
  }
}

TEST(TsneGradient, InterpolatedRepulsionIsCloseToTheExactGradient) {
  const Communicator comm;
  const Index n = 400;
  const RowMatrix y = 5.0 * testing::gaussian_rows(n, 2, 37);
  std::vector<Edge> edges;
  for (Index i = 0; i < n; ++i)
    for (const Index j : {(i + 1) % n, (i + n - 1) % n}) edges.push_back({i, j, 1.0 / (2.0 * n)});
  const SparseGraph graph = graph_from_edges(n, 0, n, edges);
  const TsneEvaluation exact =
      TsneGradient(graph, 1.0, RepulsionMethod::exact, InterpolationOptions{}, comm).evaluate(y, 1.0);
  // FIt-SNE's defaults (3 nodes per box) to about 1e-2; 5 nodes per box to about 1e-4.
  double previous = 1.0;
  for (const Index nodes : {3, 5}) {
    InterpolationOptions grid;
    grid.nodes_per_box = nodes;
    const TsneEvaluation interpolated =
        TsneGradient(graph, 1.0, RepulsionMethod::interpolation, grid, comm).evaluate(y, 1.0);
    EXPECT_GT(interpolated.boxes_per_dimension, 0);
    EXPECT_NEAR(interpolated.kl, exact.kl, 1e-4 * std::abs(exact.kl));
    const double error = relative_error(interpolated.gradient, exact.gradient);
    EXPECT_LT(error, nodes == 3 ? 1e-2 : 1e-3) << nodes << " nodes per box";
    EXPECT_LT(error, 0.1 * previous) << nodes << " nodes per box";
    previous = error;
  }
}

// One step by hand: momentum 0.5, rate n / 12 in openTSNE's units (the gradient / 4), gains 1 -> 0.8
// (the first update is zero, so no coordinate "points against" it), norms below the clip.
TEST(EmbeddingDescent, FirstStepIsTheHandComputedOne) {
  NeighbourEmbeddingSettings s;
  const std::uint64_t n = 120;
  const EmbeddingDescent descent(s, n, 4.0);
  EXPECT_EQ(descent.exaggeration(0), 12.0);
  EXPECT_EQ(descent.exaggeration(250), 1.0);
  EXPECT_EQ(descent.learning_rate(0), 50.0);  // max(120 / 12, 50)
  EXPECT_EQ(descent.learning_rate(300), 120.0);
  RowMatrix y = RowMatrix::Zero(2, 2);
  RowMatrix g(2, 2);
  g << 0.01, -0.02, 0.0, 0.03;
  DescentState state;
  descent.step(y, state, 0, [&](const RowMatrix&, double rho) {
    EXPECT_EQ(rho, 12.0);
    return std::make_pair(0.0, g);
  });
  const RowMatrix expected = -(50.0 / 4.0) * 0.8 * g;
  EXPECT_LT((y - expected).norm(), 1e-15);
  // Second step: the gradient keeps pointing against the update: gains 0.8 + 0.2 = 1.
  descent.step(y, state, 1, [&](const RowMatrix&, double) { return std::make_pair(0.0, g); });
  const RowMatrix second = 0.5 * expected - (50.0 / 4.0) * 1.0 * g;
  EXPECT_LT((y - (expected + second)).norm(), 1e-14);
}

}  // namespace
}  // namespace gplvm
