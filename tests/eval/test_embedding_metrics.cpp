// Embedding metrics against independent references: scikit-learn's trustworthiness and k-NN
// classifier and SciPy's pearsonr / spearmanr on small random inputs (through /usr/bin/python3,
// skipped where it or its packages are missing), plus exact cases that need no reference.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gplvm/core/error.hpp"
#include "gplvm/eval/embedding_metrics.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"
#include "support/lorentz_points.hpp"
#include "support/python_reference.hpp"

namespace gplvm {
namespace {

using testing::python_reference;
using testing::random_lorentz_points;
using testing::random_normal;

Matrix as_column(const std::vector<std::int64_t>& labels) {
  Matrix m(static_cast<Index>(labels.size()), 1);
  for (std::size_t i = 0; i < labels.size(); ++i)
    m(static_cast<Index>(i), 0) = static_cast<double>(labels[i]);
  return m;
}

TEST(EmbeddingMetrics, EuclideanMetricsMatchScikitLearnAndScipy) {
  const Index n = 60, k = 5;
  const Matrix X = random_normal(n, 8, 1);
  // An embedding that keeps some of the structure: two data coordinates plus noise.
  const Matrix E = X.leftCols(2) + 0.5 * random_normal(n, 2, 2);
  std::vector<std::int64_t> labels(n);
  for (Index i = 0; i < n; ++i) labels[i] = (X(i, 0) > 0) + 2 * (X(i, 1) > 0.5);
  const Matrix codes = (random_normal(n, 7, 3).array() > 0).cast<double>();
  const std::vector<double> ref = python_reference(
      "from scipy.spatial.distance import pdist\n"
      "from scipy.stats import pearsonr, spearmanr\n"
      "from sklearn.manifold import trustworthiness\n"
      "from sklearn.model_selection import LeaveOneOut, cross_val_score\n"
      "from sklearn.neighbors import KNeighborsClassifier\n"
      "X, E, y, C = M[0], M[1], M[2].ravel(), M[3]\n"
      "print(trustworthiness(X, E, n_neighbors=5))\n"
      "print(trustworthiness(E, X, n_neighbors=5))\n"
      "print(spearmanr(pdist(X), pdist(E)).correlation)\n"
      "print(pearsonr(pdist(E), pdist(C, 'cityblock'))[0])\n"
      "print(cross_val_score(KNeighborsClassifier(5), E, y, cv=LeaveOneOut()).mean())\n",
      {X, E, as_column(labels), codes});
  if (ref.size() != 5) GTEST_SKIP() << "python3 with numpy, scipy and scikit-learn is not available";
  const Matrix DX = pairwise_euclidean_distances(X),
               DE = EuclideanLatentSpace(E.cols()).manifold().distances(E, E);
  EXPECT_NEAR(trustworthiness(DX, DE, k), ref[0], 1e-12);
  EXPECT_NEAR(continuity(DX, DE, k), ref[1], 1e-12);
  EXPECT_NEAR(spearman_correlation(pair_values(DX), pair_values(DE)), ref[2], 1e-12);
  EXPECT_NEAR(pearson_correlation(pair_values(DE), pair_values(pairwise_hamming_distances(codes))), ref[3],
              1e-12);
  EXPECT_NEAR(knn_accuracy(DE, labels, k), ref[4], 1e-12);
  EXPECT_LT(trustworthiness(DX, DE, k), 1.0);  // the reference values are not trivial
}

// Hyperbolic latents: distances arccosh(-<a, b>_L) computed by NumPy; C(k) through scikit-learn's
// precomputed input distances (its embedded side is always Euclidean).
TEST(EmbeddingMetrics, LorentzMetricsUseGeodesicDistances) {
  const Index n = 50, k = 4;
  const Matrix L = random_lorentz_points(n, 2, 4, 1.5);
  const Matrix X = L.rightCols(2) * random_normal(2, 6, 5) + 0.3 * random_normal(n, 6, 6);
  const Matrix codes = (random_normal(n, 5, 7).array() > 0).cast<double>();
  ASSERT_LT(LorentzLatentSpace(2).manifold().first_row_outside(L, 1e-8), 0);
  const std::vector<double> ref = python_reference(
      "from scipy.spatial.distance import pdist, squareform\n"
      "from scipy.stats import pearsonr, spearmanr\n"
      "from sklearn.manifold import trustworthiness\n"
      "L, X, C = M\n"
      "G = np.diag(np.r_[-1.0, np.ones(L.shape[1] - 1)])\n"
      "D = np.arccosh(np.maximum(-(L @ G @ L.T), 1.0)); np.fill_diagonal(D, 0.0)\n"
      "print(trustworthiness(D, X, n_neighbors=4, metric='precomputed'))\n"
      "print(spearmanr(pdist(X), squareform(D, checks=False)).correlation)\n"
      "print(pearsonr(squareform(D, checks=False), pdist(C, 'cityblock'))[0])\n",
      {L, X, codes});
  if (ref.size() != 3) GTEST_SKIP() << "python3 with numpy, scipy and scikit-learn is not available";
  const Matrix DX = pairwise_euclidean_distances(X), DL = LorentzLatentSpace(2).manifold().distances(L, L);
  EXPECT_NEAR(continuity(DX, DL, k), ref[0], 1e-12);
  EXPECT_NEAR(spearman_correlation(pair_values(DX), pair_values(DL)), ref[1], 1e-12);
  EXPECT_NEAR(pearson_correlation(pair_values(DL), pair_values(pairwise_hamming_distances(codes))), ref[2],
              1e-9);
}

TEST(EmbeddingMetrics, ExactCases) {
  const Matrix X = random_normal(30, 4, 8);
  const Matrix D = pairwise_euclidean_distances(X);
  EXPECT_DOUBLE_EQ(trustworthiness(D, D, 3), 1.0);
  EXPECT_DOUBLE_EQ(continuity(D, D, 3), 1.0);
  EXPECT_NEAR(spearman_correlation(pair_values(D), pair_values((2 * D).array().exp().matrix())), 1.0, 1e-15);
  // Ties take average ranks: ranks of (1, 2, 2, 3) are (1, 2.5, 2.5, 4).
  EXPECT_NEAR(spearman_correlation(Vector{{1, 2, 2, 3}}, Vector{{1, 2.5, 2.5, 4}}), 1.0, 1e-15);
  EXPECT_TRUE(std::isnan(pearson_correlation(Vector{{1, 1, 1}}, Vector{{1, 2, 3}})));
  EXPECT_THROW(trustworthiness(D, D, 15), InputError);  // k must be below N / 2
  // Points on the hyperboloid are recognised; the same numbers off it are not.
  Matrix L = random_lorentz_points(10, 2, 9);
  EXPECT_LT(LorentzLatentSpace(2).manifold().first_row_outside(L, 1e-8), 0);
  L(3, 0) += 1e-3;
  EXPECT_EQ(LorentzLatentSpace(2).manifold().first_row_outside(L, 1e-8), 3);
  EXPECT_EQ(LorentzLatentSpace(3).manifold().first_row_outside(X, 1e-8), 0);
  // Rows so large that the Minkowski square overflows are no points either.
  Matrix huge = Matrix::Zero(2, 3);
  huge(0, 0) = 1e300;
  huge(1, 0) = 2e300;
  EXPECT_EQ(LorentzLatentSpace(2).manifold().first_row_outside(huge, 1e-8), 0);
}

}  // namespace
}  // namespace gplvm
