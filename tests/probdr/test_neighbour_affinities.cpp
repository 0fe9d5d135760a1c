// The data-space affinities of t-SNE and UMAP on one process (perplexity_affinities.hpp,
// umap_affinities.hpp), each against a reference of its own: the perplexity rows against a
// safeguarded Newton search in log beta on the unshifted distances (long double, log-sum-exp) and
// scikit-learn's _binary_search_perplexity; the joint and fuzzy-union graphs against their dense
// formulas; the smooth k-NN memberships against a bisection in log sigma; the UMAP curve against a
// derivative-free pattern search of the same misfit, SciPy's curve_fit (umap-learn's
// find_ab_params) and umap-learn's published defaults. Duplicates and bad inputs included.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/probdr/perplexity_affinities.hpp"
#include "gplvm/probdr/umap_affinities.hpp"
#include "graph/graph_test_data.hpp"
#include "support/python_reference.hpp"

namespace gplvm {
namespace {

// The k-NN graph of all rows on one process by brute force (exact differences, ties by index).
KnnGraph brute_knn(const RowMatrix& rows, Index k) {
  const auto lists = testing::brute_force_neighbours(rows, k);
  KnnGraph knn;
  knn.num_rows = static_cast<std::uint64_t>(rows.rows());
  knn.k = k;
  knn.neighbours.resize(rows.rows(), k);
  knn.distances.resize(rows.rows(), k);
  for (Index i = 0; i < rows.rows(); ++i)
    for (Index t = 0; t < k; ++t) {
      knn.neighbours(i, t) = lists[static_cast<std::size_t>(i)][static_cast<std::size_t>(t)].second;
      knn.distances(i, t) = std::sqrt(lists[static_cast<std::size_t>(i)][static_cast<std::size_t>(t)].first);
    }
  return knn;
}

Matrix dense(const SparseGraph& graph) {
  return testing::dense_graph(graph, Communicator()).first;
}
Matrix pattern(const SparseGraph& graph) {
  return testing::dense_graph(graph, Communicator()).second;
}

double entropy_bits(const Eigen::RowVectorXd& p) {
  double h = 0.0;
  for (Index j = 0; j < p.size(); ++j)
    if (p[j] > 0.0) h -= p[j] * std::log2(p[j]);
  return h;
}

// ---------------------------------------------------------------------------------------------
// The perplexity reference: p_{.|i} with entropy log(perplexity) nats to 1e-15, by Newton's method
// in u = log beta (dH/du = -beta^2 Var_p(d^2)) kept inside a bracket (bisection where a Newton step
// leaves it), on the unshifted squared distances through a log-sum-exp, in long double.
struct ReferenceRow {
  std::vector<double> p;
  double beta = 0.0;
};

ReferenceRow newton_row(const std::vector<double>& squared, double perplexity) {
  using L = long double;
  const L target = std::log(static_cast<L>(perplexity));
  const std::size_t k = squared.size();
  std::vector<L> p(k);
  auto entropy = [&](L u, L& slope) {
    const L beta = std::exp(u);
    L top = -std::numeric_limits<L>::infinity();
    for (double s : squared) top = std::max(top, -beta * s);
    L z = 0;
    for (double s : squared) z += std::exp(-beta * s - top);
    const L log_z = top + std::log(z);
    L mean = 0, second = 0;
    for (std::size_t t = 0; t < k; ++t) {
      p[t] = std::exp(-beta * squared[t] - log_z);
      mean += p[t] * squared[t];
      second += p[t] * squared[t] * squared[t];
    }
    slope = -beta * beta * (second - mean * mean);
    return log_z + beta * mean;
  };
  L low = 0, high = 0, slope = 0;
  while (entropy(low, slope) < target) low -= 2;  // entropy falls as u grows
  while (entropy(high, slope) > target) high += 2;
  L u = 0.5 * (low + high);
  for (int iteration = 0; iteration < 500; ++iteration) {
    const L h = entropy(u, slope);
    if (std::abs(h - target) < 1e-15L) break;
    (h > target ? low : high) = u;
    const L newton = u - (h - target) / slope;
    u = slope < 0 && newton > low && newton < high ? newton : 0.5 * (low + high);
  }
  entropy(u, slope);
  return {std::vector<double>(p.begin(), p.end()), static_cast<double>(std::exp(u))};
}

// The conditional row i of `knn` as a dense n-vector (0 off the neighbours).
Eigen::RowVectorXd reference_row(const KnnGraph& knn, Index i, double perplexity, double* beta = nullptr) {
  std::vector<double> squared(static_cast<std::size_t>(knn.k));
  for (Index t = 0; t < knn.k; ++t)
    squared[static_cast<std::size_t>(t)] = knn.distances(i, t) * knn.distances(i, t);
  const ReferenceRow ref = newton_row(squared, perplexity);
  Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(static_cast<Index>(knn.num_rows));
  for (Index t = 0; t < knn.k; ++t) row[knn.neighbours(i, t)] = ref.p[static_cast<std::size_t>(t)];
  if (beta) *beta = ref.beta;
  return row;
}

PerplexityOptions perplexity_of(double perplexity, double tolerance = 1e-5) {
  PerplexityOptions options;
  options.perplexity = perplexity;
  options.entropy_tolerance = tolerance;
  return options;
}

TEST(PerplexityAffinities, RowsHaveTheRequestedEntropyAndSumToOne) {
  const RowMatrix rows = testing::gaussian_rows(300, 5, 3);
  const KnnGraph knn = brute_knn(rows, 45);
  for (const double perplexity : {1.5, 5.0, 15.0, 30.0, 44.0}) {
    std::vector<double> beta;
    const SparseGraph graph = conditional_affinities(knn, perplexity_of(perplexity), &beta);
    const Matrix p = dense(graph);
    // The pattern is the k-NN graph's, every row its k neighbours.
    EXPECT_EQ(pattern(graph).sum(), 300.0 * 45.0);
    const Vector entropies = row_entropies_bits(graph);
    ASSERT_EQ(entropies.size(), 300);
    double worst = 0.0;
    for (Index i = 0; i < 300; ++i) {
      EXPECT_NEAR(p.row(i).sum(), 1.0, 1e-13);
      EXPECT_GE(p.row(i).minCoeff(), 0.0);
      worst = std::max(worst, std::abs(entropy_bits(p.row(i)) - std::log2(perplexity)));
      EXPECT_NEAR(entropies[i], entropy_bits(p.row(i)), 1e-12);
      EXPECT_GT(beta[static_cast<std::size_t>(i)], 0.0);
      EXPECT_TRUE(std::isfinite(beta[static_cast<std::size_t>(i)]));
    }
    EXPECT_LE(worst, 1e-5 + 1e-12) << "perplexity " << perplexity;
  }
}

TEST(PerplexityAffinities, MatchAnIndependentNewtonSearch) {
  const RowMatrix rows = testing::three_clusters(60, 50, 40, 4, 7);
  const KnnGraph knn = brute_knn(rows, 30);
  for (const double perplexity : {2.0, 10.0, 25.0}) {
    std::vector<double> beta;
    const Matrix p = dense(conditional_affinities(knn, perplexity_of(perplexity, 1e-11), &beta));
    double worst_p = 0.0, worst_beta = 0.0;
    for (Index i = 0; i < p.rows(); ++i) {
      double ref_beta = 0.0;
      const Eigen::RowVectorXd ref = reference_row(knn, i, perplexity, &ref_beta);
      worst_p = std::max(worst_p, (p.row(i) - ref).cwiseAbs().maxCoeff());
      worst_beta = std::max(worst_beta, std::abs(beta[static_cast<std::size_t>(i)] / ref_beta - 1.0));
    }
    EXPECT_LT(worst_p, 1e-9) << "perplexity " << perplexity;
    EXPECT_LT(worst_beta, 1e-8) << "perplexity " << perplexity;
  }
}

TEST(PerplexityAffinities, MatchScikitLearnsBinarySearch) {
  constexpr Index n = 200, k = 30;
  constexpr double perplexity = 10.0;
  const KnnGraph exact = brute_knn(testing::gaussian_rows(n, 6, 11), k);
  // scikit-learn takes float32 squared distances: both sides search on the same rounded values.
  Matrix squared(n, k);
  KnnGraph rounded = exact;
  for (Index i = 0; i < n; ++i)
    for (Index t = 0; t < k; ++t) {
      squared(i, t) = static_cast<float>(exact.distances(i, t) * exact.distances(i, t));
      rounded.distances(i, t) = std::sqrt(squared(i, t));
    }
  const std::vector<double> ref = testing::python_reference(
      "from sklearn.manifold._utils import _binary_search_perplexity\n"
      "P = _binary_search_perplexity(M[0].astype(np.float32), float(M[1][0, 0]), 0)\n"
      "print(' '.join(map(repr, P.ravel().tolist())))\n",
      {squared, Matrix::Constant(1, 1, perplexity)});
  if (ref.size() != static_cast<std::size_t>(n * k)) GTEST_SKIP() << "no Python with scikit-learn";
  const SparseGraph graph = conditional_affinities(rounded, perplexity_of(perplexity, 1e-11));
  const Matrix p = dense(graph);
  double worst = 0.0;
  for (Index i = 0; i < n; ++i)
    for (Index t = 0; t < k; ++t)
      worst = std::max(worst,
                       std::abs(p(i, rounded.neighbours(i, t)) - ref[static_cast<std::size_t>(i * k + t)]));
  // scikit-learn stops within 1e-5 nats of the entropy: its rows differ from the exact ones by about that.
  EXPECT_LT(worst, 2e-5);
  std::printf("[ measured ] conditional affinities vs scikit-learn's binary search: max |dp| %.2e\n", worst);
}

TEST(PerplexityAffinities, UniformKindIsOneOverK) {
  const KnnGraph knn = brute_knn(testing::gaussian_rows(50, 3, 5), 7);
  PerplexityOptions options;
  options.kind = AffinityKind::uniform;
  options.perplexity = 100.0;  // not used by the uniform kind
  std::vector<double> beta;
  const SparseGraph graph = conditional_affinities(knn, options, &beta);
  const Matrix p = dense(graph);
  EXPECT_EQ(pattern(graph).sum(), 50.0 * 7.0);
  for (Index i = 0; i < 50; ++i)
    for (Index t = 0; t < 7; ++t) EXPECT_EQ(p(i, knn.neighbours(i, t)), 1.0 / 7.0);
  for (double b : beta) EXPECT_EQ(b, 0.0);
  EXPECT_LT((row_entropies_bits(graph).array() - std::log2(7.0)).abs().maxCoeff(), 1e-13);
}

TEST(PerplexityAffinities, ScaleInvariantAndFarRowsDoNotUnderflow) {
  RowMatrix rows = testing::gaussian_rows(120, 4, 9);
  rows.row(0).array() += 40.0;  // an outlier: its squared distances are ~1600, exp(-beta d^2) underflows
  const KnnGraph knn = brute_knn(rows, 20);
  std::vector<double> beta, beta_scaled;
  const Matrix p = dense(conditional_affinities(knn, perplexity_of(6.0, 1e-11), &beta));
  ASSERT_TRUE(p.allFinite());
  EXPECT_NEAR(p.row(0).sum(), 1.0, 1e-13);
  EXPECT_NEAR(entropy_bits(p.row(0)), std::log2(6.0), 1e-10);
  EXPECT_LT((p.row(0) - reference_row(knn, 0, 6.0)).cwiseAbs().maxCoeff(), 1e-9);
  // Distances times 1e4: the same rows, the precisions over 1e8.
  const double scale = 1e4;
  const KnnGraph scaled = brute_knn(RowMatrix(rows * scale), 20);
  const Matrix q = dense(conditional_affinities(scaled, perplexity_of(6.0, 1e-11), &beta_scaled));
  EXPECT_LT((p - q).cwiseAbs().maxCoeff(), 1e-9);
  for (std::size_t i = 0; i < beta.size(); ++i)
    EXPECT_NEAR(beta_scaled[i] * scale * scale / beta[i], 1.0, 1e-7);
}

TEST(PerplexityAffinities, DuplicateRows) {
  RowMatrix rows = testing::gaussian_rows(80, 3, 13);
  for (Index i = 1; i < 7; ++i) rows.row(i) = rows.row(0);     // rows 0-6: seven copies
  for (Index i = 21; i < 24; ++i) rows.row(i) = rows.row(20);  // rows 20-23: four copies
  rows.row(41) = rows.row(40);                                 // rows 40, 41: two copies
  {
    // k = 6: every neighbour of a copy of row 0 is another copy: the uniform row, beta 0.
    const KnnGraph knn = brute_knn(rows, 6);
    std::vector<double> beta;
    const Matrix p = dense(conditional_affinities(knn, perplexity_of(3.0), &beta));
    for (Index i = 0; i < 7; ++i) {
      for (Index t = 0; t < 6; ++t) EXPECT_EQ(p(i, knn.neighbours(i, t)), 1.0 / 6.0);
      EXPECT_EQ(beta[static_cast<std::size_t>(i)], 0.0);
    }
  }
  const KnnGraph knn = brute_knn(rows, 12);
  std::vector<double> beta;
  const Matrix p = dense(conditional_affinities(knn, perplexity_of(3.0), &beta));
  for (Index i = 0; i < 80; ++i) EXPECT_NEAR(p.row(i).sum(), 1.0, 1e-13);
  // Rows 20-23 have three others at distance 0, as many as the perplexity: no beta gives entropy
  // log2 3 exactly, and the row is the limit beta -> infinity, uniform on the three copies.
  for (Index i = 20; i < 24; ++i) {
    EXPECT_TRUE(std::isinf(beta[static_cast<std::size_t>(i)]));
    for (Index j = 20; j < 24; ++j) EXPECT_EQ(p(i, j), j == i ? 0.0 : 1.0 / 3.0);
    EXPECT_NEAR(entropy_bits(p.row(i)), std::log2(3.0), 1e-15);
  }
  // Rows 40 and 41 share a nearest neighbour at 0: the search works as for any other row.
  for (Index i = 40; i < 42; ++i) {
    EXPECT_NEAR(entropy_bits(p.row(i)), std::log2(3.0), 1e-5);
    EXPECT_LT((p.row(i) - reference_row(knn, i, 3.0)).cwiseAbs().maxCoeff(), 1e-4);
  }
}

TEST(PerplexityAffinities, JointIsSymmetricAndSumsToOne) {
  const RowMatrix rows = testing::three_clusters(30, 25, 20, 3, 17);
  const KnnGraph knn = brute_knn(rows, 10);
  const SparseGraph conditional = conditional_affinities(knn, perplexity_of(4.0));
  const SparseGraph joint = joint_affinities(conditional, Communicator());
  const Matrix c = dense(conditional), j = dense(joint);
  const Matrix expected = (c + c.transpose()) / (2.0 * 75.0);
  EXPECT_LT((j - expected).cwiseAbs().maxCoeff(), 1e-17);
  EXPECT_NEAR(j.sum(), 1.0, 1e-13);
  for (Index a = 0; a < 75; ++a)
    for (Index b = 0; b < 75; ++b)
      EXPECT_EQ(std::bit_cast<std::uint64_t>(j(a, b)), std::bit_cast<std::uint64_t>(j(b, a)));
  // The edges: those of either direction.
  const Matrix directed = pattern(conditional);
  EXPECT_EQ(pattern(joint), (directed + directed.transpose()).cwiseMin(1.0));
  EXPECT_TRUE(is_symmetric(joint, Communicator()));
}

TEST(PerplexityAffinities, BadInputsNameTheirKeys) {
  KnnGraph knn = brute_knn(testing::gaussian_rows(40, 3, 19), 10);
  for (const double perplexity : {0.5, 10.0, 12.0, std::nan("")}) {
    const auto thrown =
        testing::input_error_of([&] { conditional_affinities(knn, perplexity_of(perplexity)); });
    EXPECT_EQ(thrown.key, "probdr.perplexity") << perplexity;
    EXPECT_NE(thrown.message.find("graph.k"), std::string::npos) << thrown.message;
  }
  EXPECT_NO_THROW(conditional_affinities(knn, perplexity_of(1.0)));
  EXPECT_NO_THROW(conditional_affinities(knn, perplexity_of(9.99)));
  knn.distances(17, 3) = std::nan("");
  const auto thrown = testing::input_error_of([&] { conditional_affinities(knn, perplexity_of(5.0)); });
  EXPECT_EQ(thrown.key, "rows");
  EXPECT_NE(thrown.message.find("row 17"), std::string::npos) << thrown.message;
}

TEST(PerplexityAffinities, PerplexityOneIsTheNearestNeighbour) {
  const KnnGraph knn = brute_knn(testing::gaussian_rows(60, 3, 23), 8);
  std::vector<double> beta;
  const Matrix p = dense(conditional_affinities(knn, perplexity_of(1.0), &beta));
  // Entropy 0 is only the limit beta -> infinity: all of the row on its (unique) nearest neighbour.
  for (Index i = 0; i < 60; ++i) {
    EXPECT_EQ(p(i, knn.neighbours(i, 0)), 1.0);
    EXPECT_EQ(p.row(i).sum(), 1.0);
    EXPECT_TRUE(std::isinf(beta[static_cast<std::size_t>(i)]));
  }
}

// ---------------------------------------------------------------------------------------------
// UMAP's memberships. The reference rho from umap-learn's rule as stated in its smooth_knn_dist,
// and sigma by bisection in log sigma on [1e-30, 1e30] to relative 1e-14.
double reference_rho(std::vector<double> distances, double local_connectivity) {
  std::vector<double> nonzero;
  for (double d : distances)
    if (d > 0.0) nonzero.push_back(d);
  std::sort(nonzero.begin(), nonzero.end());
  if (nonzero.empty()) return 0.0;
  if (static_cast<double>(nonzero.size()) < local_connectivity) return nonzero.back();
  const double whole = std::floor(local_connectivity), fraction = local_connectivity - whole;
  const auto index = static_cast<std::size_t>(whole);
  if (index == 0) return fraction * nonzero[0];
  return nonzero[index - 1] + (fraction > 1e-5 ? fraction * (nonzero[index] - nonzero[index - 1]) : 0.0);
}

double reference_sum(const std::vector<double>& distances, double rho, double sigma) {
  double sum = 0.0;
  for (double d : distances) sum += d <= rho ? 1.0 : std::exp(-(d - rho) / sigma);
  return sum;
}

double reference_sigma(const std::vector<double>& distances, double rho, double target) {
  double low = std::log(1e-30), high = std::log(1e30);
  for (int iteration = 0; iteration < 300 && high - low > 1e-14; ++iteration) {
    const double mid = 0.5 * (low + high);
    (reference_sum(distances, rho, std::exp(mid)) > target ? high : low) = mid;
  }
  return std::exp(0.5 * (low + high));
}

std::vector<double> row_of(const KnnGraph& knn, Index i) {
  return std::vector<double>(knn.distances.row(i).data(), knn.distances.row(i).data() + knn.k);
}

TEST(UmapMemberships, RowSumsAreLog2KAndTheNearestIsOne) {
  const RowMatrix rows = testing::three_clusters(70, 60, 50, 5, 29);
  for (const Index k : {5, 15, 40}) {
    const KnnGraph knn = brute_knn(rows, k);
    std::vector<double> rho, sigma;
    const SparseGraph graph = smooth_knn_memberships(knn, UmapMembershipOptions{}, &rho, &sigma);
    const Matrix v = dense(graph);
    EXPECT_EQ(pattern(graph).sum(), 180.0 * static_cast<double>(k));
    for (Index i = 0; i < 180; ++i) {
      EXPECT_EQ(rho[static_cast<std::size_t>(i)], knn.distances(i, 0));  // no duplicates here
      EXPECT_EQ(v(i, knn.neighbours(i, 0)), 1.0);
      EXPECT_NEAR(v.row(i).sum(), std::log2(static_cast<double>(k)),
                  1e-5 * std::log2(static_cast<double>(k)));
      EXPECT_LE(v.row(i).maxCoeff(), 1.0);
      for (Index t = 1; t < k; ++t)
        EXPECT_DOUBLE_EQ(v(i, knn.neighbours(i, t)),
                         std::exp(-(knn.distances(i, t) - rho[static_cast<std::size_t>(i)]) /
                                  sigma[static_cast<std::size_t>(i)]));
    }
  }
}

TEST(UmapMemberships, MatchABisectionInLogSigma) {
  const RowMatrix rows = testing::gaussian_rows(150, 4, 31);
  const KnnGraph knn = brute_knn(rows, 12);
  for (const double local_connectivity : {1.0, 0.0, 0.5, 1.5, 2.0, 3.25}) {
    UmapMembershipOptions options;
    options.local_connectivity = local_connectivity;
    options.tolerance = 1e-13;
    options.max_iterations = 200;
    std::vector<double> rho, sigma;
    const Matrix v = dense(smooth_knn_memberships(knn, options, &rho, &sigma));
    double worst_sigma = 0.0, worst_v = 0.0;
    for (Index i = 0; i < 150; ++i) {
      const std::vector<double> d = row_of(knn, i);
      const double ref_rho = reference_rho(d, local_connectivity);
      EXPECT_EQ(rho[static_cast<std::size_t>(i)], ref_rho) << "local_connectivity " << local_connectivity;
      const double ref_sigma = reference_sigma(d, ref_rho, std::log2(12.0));
      worst_sigma = std::max(worst_sigma, std::abs(sigma[static_cast<std::size_t>(i)] / ref_sigma - 1.0));
      for (Index t = 0; t < 12; ++t) {
        const double ref_v = d[static_cast<std::size_t>(t)] <= ref_rho
                                 ? 1.0
                                 : std::exp(-(d[static_cast<std::size_t>(t)] - ref_rho) / ref_sigma);
        worst_v = std::max(worst_v, std::abs(v(i, knn.neighbours(i, t)) - ref_v));
      }
    }
    EXPECT_LT(worst_sigma, 1e-10) << "local_connectivity " << local_connectivity;
    EXPECT_LT(worst_v, 1e-10) << "local_connectivity " << local_connectivity;
  }
}

TEST(UmapMemberships, BandwidthScalesTheTarget) {
  const KnnGraph knn = brute_knn(testing::gaussian_rows(90, 3, 37), 10);
  UmapMembershipOptions options;
  options.bandwidth = 1.7;
  const Matrix v = dense(smooth_knn_memberships(knn, options));
  for (Index i = 0; i < 90; ++i)
    EXPECT_NEAR(v.row(i).sum(), 1.7 * std::log2(10.0), 1e-5 * 1.7 * std::log2(10.0));
}

TEST(UmapMemberships, DuplicatesHaveMembershipOne) {
  RowMatrix rows = testing::gaussian_rows(60, 3, 41);
  for (Index i = 1; i < 8; ++i) rows.row(i) = rows.row(0);     // rows 0-7: eight copies
  rows.row(31) = rows.row(30);                                 // rows 30, 31: two copies
  for (Index i = 46; i < 49; ++i) rows.row(i) = rows.row(45);  // rows 45-48: four copies
  {
    // k = 7: a copy of row 0 has only copies as neighbours: rho 0, sigma 0 (the floor of a zero
    // mean), every membership 1.
    const KnnGraph knn = brute_knn(rows, 7);
    std::vector<double> rho, sigma;
    const Matrix v = dense(smooth_knn_memberships(knn, UmapMembershipOptions{}, &rho, &sigma));
    for (Index i = 0; i < 8; ++i) {
      EXPECT_EQ(rho[static_cast<std::size_t>(i)], 0.0);
      EXPECT_EQ(sigma[static_cast<std::size_t>(i)], 0.0);
      for (Index t = 0; t < 7; ++t) EXPECT_EQ(v(i, knn.neighbours(i, t)), 1.0);
    }
  }
  const KnnGraph knn = brute_knn(rows, 10);
  std::vector<double> rho, sigma;
  const Matrix v = dense(smooth_knn_memberships(knn, UmapMembershipOptions{}, &rho, &sigma));
  ASSERT_TRUE(v.allFinite());
  // Rows 30, 31: the copy at 0 and the nearest other row both have membership 1, and rho is the
  // distance to the nearest other row; the sum still reaches log2 k.
  for (Index i = 30; i < 32; ++i) {
    const Index other = 61 - i;
    EXPECT_EQ(v(i, other), 1.0);
    EXPECT_EQ(rho[static_cast<std::size_t>(i)], knn.distances(i, 1));
    EXPECT_EQ(v(i, knn.neighbours(i, 1)), 1.0);
    EXPECT_NEAR(v.row(i).sum(), std::log2(10.0), 1e-5 * std::log2(10.0));
  }
  // Rows 45-48: three copies and the nearest other row give 4 > log2 10 at any sigma: the limit
  // sigma -> 0, floored at 1e-3 times the row's mean distance (umap-learn's MIN_K_DIST_SCALE).
  for (Index i = 45; i < 49; ++i) {
    EXPECT_DOUBLE_EQ(sigma[static_cast<std::size_t>(i)], 1e-3 * knn.distances.row(i).mean());
    for (Index j = 45; j < 49; ++j) {
      if (j != i) {
        EXPECT_EQ(v(i, j), 1.0);
      }
    }
    EXPECT_EQ(v(i, knn.neighbours(i, 3)), 1.0);
  }
}

TEST(UmapMemberships, FuzzyUnionIsTheDenseFormula) {
  const KnnGraph knn = brute_knn(testing::three_clusters(15, 12, 13, 3, 43), 6);
  const SparseGraph directed = smooth_knn_memberships(knn, UmapMembershipOptions{});
  const SparseGraph both = fuzzy_union(directed, Communicator());
  const Matrix v = dense(directed), u = dense(both);
  const Matrix expected = v + v.transpose() - v.cwiseProduct(v.transpose());
  EXPECT_LT((u - expected).cwiseAbs().maxCoeff(), 1e-16);
  EXPECT_LE(u.maxCoeff(), 1.0);
  for (Index a = 0; a < 40; ++a)
    for (Index b = 0; b < 40; ++b)
      EXPECT_EQ(std::bit_cast<std::uint64_t>(u(a, b)), std::bit_cast<std::uint64_t>(u(b, a)));
  const Matrix edges = pattern(directed);
  EXPECT_EQ(pattern(both), (edges + edges.transpose()).cwiseMin(1.0));
  EXPECT_TRUE(is_symmetric(both, Communicator()));
}

TEST(UmapMemberships, BadInputsNameTheirKeys) {
  KnnGraph knn = brute_knn(testing::gaussian_rows(40, 3, 47), 8);
  UmapMembershipOptions options;
  options.local_connectivity = -0.5;
  EXPECT_EQ(testing::input_error_of([&] { smooth_knn_memberships(knn, options); }).key,
            "probdr.local_connectivity");
  options = {};
  options.bandwidth = 0.0;
  EXPECT_EQ(testing::input_error_of([&] { smooth_knn_memberships(knn, options); }).key, "probdr.bandwidth");
  options.bandwidth = 3.0;  // 3 log2 8 = 9 > 8: no sigma reaches it
  EXPECT_EQ(testing::input_error_of([&] { smooth_knn_memberships(knn, options); }).key, "probdr.bandwidth");
  knn.distances(5, 2) = std::numeric_limits<double>::infinity();
  const auto thrown = testing::input_error_of([&] { smooth_knn_memberships(knn, UmapMembershipOptions{}); });
  EXPECT_EQ(thrown.key, "rows");
  EXPECT_NE(thrown.message.find("row 5"), std::string::npos) << thrown.message;
}

// ---------------------------------------------------------------------------------------------
// The curve. The misfit of umap-learn's find_ab_params, and its minimum by a derivative-free
// pattern search: a 21 x 21 grid in (log a, b) around the best point so far, narrowed by 4 each
// round while the best point stays inside it.
double curve_misfit(double spread, double min_dist, double a, double b) {
  double sum = 0.0;
  for (int m = 0; m < 300; ++m) {
    const double x = m == 299 ? 3.0 * spread : m * (3.0 * spread / 299.0);
    const double y = x < min_dist ? 1.0 : std::exp(-(x - min_dist) / spread);
    const double w = x == 0.0 ? 1.0 : 1.0 / (1.0 + a * std::pow(x, 2.0 * b));
    sum += (w - y) * (w - y);
  }
  return sum;
}

UmapCurve pattern_search(double spread, double min_dist) {
  double log_a = 0.0, b = 1.0, half_log_a = 8.0, half_b = 1.5;
  double best = curve_misfit(spread, min_dist, 1.0, 1.0);
  for (int round = 0; round < 80 && half_b > 1e-12; ++round) {
    const double centre_log_a = log_a, centre_b = b;
    for (int s = -10; s <= 10; ++s)
      for (int t = -10; t <= 10; ++t) {
        const double la = centre_log_a + half_log_a * s / 10.0, bb = centre_b + half_b * t / 10.0;
        if (bb <= 0.0) continue;
        const double misfit = curve_misfit(spread, min_dist, std::exp(la), bb);
        if (misfit < best) best = misfit, log_a = la, b = bb;
      }
    const bool inside =
        std::abs(log_a - centre_log_a) < 0.95 * half_log_a && std::abs(b - centre_b) < 0.95 * half_b;
    if (inside) half_log_a /= 4.0, half_b /= 4.0;
  }
  return {std::exp(log_a), b};
}

TEST(UmapCurve, UmapLearnsDefaults) {
  // umap-learn's a and b for spread 1, min_dist 0.1 (its documented defaults 1.577, 0.8951).
  const UmapCurve curve = fit_umap_curve(1.0, 0.1);
  EXPECT_NEAR(curve.a, 1.577, 1e-3);
  EXPECT_NEAR(curve.b, 0.8951, 1e-3);
}

TEST(UmapCurve, MinimisesTheMisfitAsAPatternSearchDoes) {
  for (const auto& [spread, min_dist] :
       {std::pair{1.0, 0.1}, {1.0, 0.001}, {1.0, 0.0}, {1.0, 0.5}, {1.0, 1.0}, {2.0, 0.3}, {0.5, 0.05}}) {
    const UmapCurve ours = fit_umap_curve(spread, min_dist), ref = pattern_search(spread, min_dist);
    EXPECT_NEAR(ours.a / ref.a, 1.0, 1e-6) << spread << " " << min_dist;
    EXPECT_NEAR(ours.b / ref.b, 1.0, 1e-6) << spread << " " << min_dist;
    EXPECT_LE(curve_misfit(spread, min_dist, ours.a, ours.b),
              curve_misfit(spread, min_dist, ref.a, ref.b) * (1.0 + 1e-12));
  }
}

TEST(UmapCurve, MatchesScipysCurveFit) {
  const std::vector<std::pair<double, double>> cases{
      {1.0, 0.1}, {1.0, 0.001}, {1.0, 0.5}, {2.0, 0.3}, {1.0, 1.0}};
  Matrix settings(static_cast<Index>(cases.size()), 2);
  for (std::size_t c = 0; c < cases.size(); ++c)
    settings.row(static_cast<Index>(c)) << cases[c].first, cases[c].second;
  // umap-learn's find_ab_params, with curve_fit's tolerances tightened (its defaults stop ~2e-7 short).
  const std::vector<double> ref = testing::python_reference(
      "from scipy.optimize import curve_fit\n"
      "def curve(x, a, b):\n"
      "    return 1.0 / (1.0 + a * x ** (2 * b))\n"
      "for spread, min_dist in M[0]:\n"
      "    xv = np.linspace(0, spread * 3, 300)\n"
      "    yv = np.zeros(xv.shape)\n"
      "    yv[xv < min_dist] = 1.0\n"
      "    yv[xv >= min_dist] = np.exp(-(xv[xv >= min_dist] - min_dist) / spread)\n"
      "    params, covar = curve_fit(curve, xv, yv, xtol=1e-14, ftol=1e-14)\n"
      "    print(repr(params[0]), repr(params[1]))\n",
      {settings});
  if (ref.size() != 2 * cases.size()) GTEST_SKIP() << "no Python with SciPy";
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const UmapCurve ours = fit_umap_curve(cases[c].first, cases[c].second);
    EXPECT_NEAR(ours.a / ref[2 * c], 1.0, 1e-6) << cases[c].first << " " << cases[c].second;
    EXPECT_NEAR(ours.b / ref[2 * c + 1], 1.0, 1e-6) << cases[c].first << " " << cases[c].second;
  }
}

TEST(UmapCurve, IsScaleInvariant) {
  // x -> s x: b is the same, a s^(2b) is the same (the misfit is a function of x / spread alone),
  // down to spreads where a fit started at a = b = 1 in (a, b) fails.
  for (const double ratio : {0.0, 0.1, 0.7}) {
    const UmapCurve unit = fit_umap_curve(1.0, ratio);
    for (const double spread : {1e-6, 0.01, 3.0, 1e5}) {
      const UmapCurve scaled = fit_umap_curve(spread, ratio * spread);
      EXPECT_NEAR(scaled.b / unit.b, 1.0, 1e-9) << spread << " " << ratio;
      EXPECT_NEAR(scaled.a * std::pow(spread, 2.0 * scaled.b) / unit.a, 1.0, 1e-9) << spread << " " << ratio;
    }
  }
}

TEST(UmapCurve, BadInputsNameTheirKeys) {
  EXPECT_EQ(testing::input_error_of([] { fit_umap_curve(0.0, 0.0); }).key, "probdr.spread");
  EXPECT_EQ(testing::input_error_of([] { fit_umap_curve(-1.0, 0.1); }).key, "probdr.spread");
  EXPECT_EQ(testing::input_error_of([] { fit_umap_curve(std::nan(""), 0.1); }).key, "probdr.spread");
  EXPECT_EQ(testing::input_error_of([] { fit_umap_curve(1.0, -0.1); }).key, "probdr.min_dist");
  EXPECT_EQ(testing::input_error_of([] { fit_umap_curve(1.0, 1.5); }).key, "probdr.min_dist");
  EXPECT_NO_THROW(fit_umap_curve(1.0, 1.0));
}

}  // namespace
}  // namespace gplvm
