// Isomap's moment at 1-4 ranks: the exact geodesic Gram matrix against scikit-learn's Isomap on the
// same (union, distance-weighted) k-NN graph, landmark Isomap against a NumPy implementation of the
// same Nystrom moment and, with every point a landmark, against exact Isomap; bad input refused
// alike on every rank.
#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "gplvm/core/error.hpp"
#include "gplvm/probdr/landmark_isomap.hpp"
#include "gplvm/probdr/probdr_method.hpp"
#include "probdr/probdr_test_support.hpp"
#include "support/petsc_environment.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 200;
constexpr Index kLatent = 2;
constexpr Index kNeighbours = 10;

RowMatrix roll() {
  return testing::swiss_roll(kN, 5.0, 0.05, 17);
}

ProbdrSettings isomap_settings(Index landmarks = 0) {
  ProbdrSettings settings;
  settings.method = "isomap";
  settings.latent_dim = kLatent;
  settings.graph.k = kNeighbours;
  settings.landmarks = landmarks;
  settings.seed = 7;
  return settings;
}

MomentEstimate isomap(const RowMatrix& data, const ProbdrSettings& settings, const Communicator& comm) {
  return probdr_method("isomap").estimate(testing::local_block(data, comm), settings, comm);
}

// The largest coordinate difference after matching each column's sign, relative to the largest
// coordinate.
double coordinate_difference(const Matrix& a, const Matrix& b) {
  double worst = 0.0;
  for (Index j = 0; j < a.cols(); ++j) {
    const double sign = a.col(j).dot(b.col(j)) < 0.0 ? -1.0 : 1.0;
    worst = std::max(worst, (a.col(j) - sign * b.col(j)).cwiseAbs().maxCoeff());
  }
  return worst / b.cwiseAbs().maxCoeff();
}

TEST(Isomap, ClassicalCoordinatesAreScikitLearnsIsomap) {
  const Communicator comm;
  const MomentEstimate moment = isomap(roll(), isomap_settings(), comm);
  ASSERT_EQ(moment.form, MomentForm::covariance);
  const Matrix ours = testing::classical_coordinates(moment, kLatent, comm);
  const std::vector<double> ref = testing::python_on_root(
      "from sklearn.manifold import Isomap\n"
      "E = Isomap(n_neighbors=10, n_components=2, eigen_solver='dense').fit_transform(M[0])\n"
      "print(' '.join(map(repr, E.ravel().tolist())))\n",
      {Matrix(roll())}, kN * kLatent, comm);
  if (ref.empty()) GTEST_SKIP() << "no Python with scikit-learn";
  const Matrix sklearn = testing::as_matrix(ref, kN, kLatent);
  const double projector = testing::projector_difference(ours, sklearn);
  const double coordinates = coordinate_difference(ours, sklearn);
  EXPECT_LT(projector, 1e-8);
  EXPECT_LT(coordinates, 1e-8);  // U Lambda^{1/2}, not only its span
  if (comm.rank() == 0)
    std::printf("[ measured ] isomap vs scikit-learn: projector %.2e, coordinates %.2e (relative)\n",
                projector, coordinates);
}

TEST(Isomap, ChoosesTheSameLandmarksAtAnyRankCount) {
  const std::vector<std::int64_t> a = choose_landmarks(kN, 30, 7), b = choose_landmarks(kN, 30, 7);
  EXPECT_EQ(a, b);
  EXPECT_EQ(std::set<std::int64_t>(a.begin(), a.end()).size(), 30u);
  EXPECT_NE(a, choose_landmarks(kN, 30, 8));
  EXPECT_EQ(choose_landmarks(kN, kN, 3).back(), kN - 1);  // every point, ascending
}

// NumPy and SciPy: Dijkstra from the landmarks on scikit-learn's k-NN distance graph, the landmarks'
// classical MDS, the triangulation over its l + 1 = 3 leading eigenpairs, then F's principal coordinates.
constexpr const char* kLandmarkScript =
    "from sklearn.neighbors import kneighbors_graph\n"
    "from scipy.sparse.csgraph import shortest_path\n"
    "Y, L = M[0], M[1].ravel().astype(int)\n"
    "D2 = shortest_path(kneighbors_graph(Y, 10, mode='distance'), directed=False, indices=L) ** 2\n"
    "A = 0.5 * (D2[:, L] + D2[:, L].T)\n"
    "m = len(L); H = np.eye(m) - 1.0 / m\n"
    "w, V = np.linalg.eigh(-0.5 * H @ A @ H); w, V = w[::-1], V[:, ::-1]\n"
    "r = 3\n"
    "F = -0.5 * (D2.T - A.mean(axis=0)) @ V[:, :r] / np.sqrt(w[:r])\n"
    "U, s, _ = np.linalg.svd(F, full_matrices=False)\n"
    "classic = -0.5 * (D2.T - A.mean(axis=0)) @ V[:, :2] / np.sqrt(w[:2])\n"
    "print(' '.join(map(repr, np.r_[(U[:, :2] * s[:2]).ravel(), classic.ravel()].tolist())))\n";

TEST(Isomap, LandmarkMomentMatchesANumPyLandmarkIsomap) {
  const Communicator comm;
  constexpr Index kLandmarks = 30;
  const MomentEstimate moment = isomap(roll(), isomap_settings(kLandmarks), comm);
  EXPECT_NE(moment.description.find("landmark"), std::string::npos);
  const Matrix ours = testing::classical_coordinates(moment, kLatent, comm);
  const std::vector<std::int64_t> landmarks = choose_landmarks(kN, kLandmarks, 7);
  Matrix landmark_row(1, kLandmarks);
  for (Index a = 0; a < kLandmarks; ++a) landmark_row(0, a) = static_cast<double>(landmarks[a]);
  const std::vector<double> ref =
      testing::python_on_root(kLandmarkScript, {Matrix(roll()), landmark_row}, 2 * kN * kLatent, comm);
  if (ref.empty()) GTEST_SKIP() << "no Python with SciPy and scikit-learn";
  const Matrix numpy = testing::as_matrix(ref, kN, kLatent);
  const Matrix classic(
      testing::as_matrix(std::vector<double>(ref.begin() + kN * kLatent, ref.end()), kN, kLatent));
  const double projector = testing::projector_difference(ours, numpy);
  const double coordinates = coordinate_difference(ours, numpy);
  EXPECT_LT(projector, 1e-8);
  EXPECT_LT(coordinates, 1e-8);
  // How far each approximation's plane is from exact Isomap's: the moment's (PCA of the 3-D
  // triangulation) and de Silva and Tenenbaum's plain 2-D triangulation.
  const Matrix exact = testing::classical_coordinates(isomap(roll(), isomap_settings(), comm), kLatent, comm);
  const double ours_to_exact = testing::projector_difference(ours, exact);
  const double classic_to_exact = testing::projector_difference(classic, exact);
  EXPECT_LT(ours_to_exact, 0.05);
  if (comm.rank() == 0)
    std::printf(
        "[ measured ] landmark isomap (m = 30) vs NumPy: projector %.2e, coordinates %.2e; to exact Isomap: "
        "projector %.2e (the 2-D triangulation: %.2e)\n",
        projector, coordinates, ours_to_exact, classic_to_exact);
}

TEST(Isomap, LandmarkIsomapWithEveryPointIsExactIsomap) {
  const Communicator comm;
  const Matrix exact = testing::classical_coordinates(isomap(roll(), isomap_settings(), comm), kLatent, comm);
  const Matrix landmark =
      testing::classical_coordinates(isomap(roll(), isomap_settings(kN), comm), kLatent, comm);
  const double projector = testing::projector_difference(landmark, exact);
  const double coordinates = coordinate_difference(landmark, exact);
  EXPECT_LT(projector, 1e-8);
  EXPECT_LT(coordinates, 1e-8);
  if (comm.rank() == 0)
    std::printf("[ measured ] landmark isomap (m = n) vs exact: projector %.2e, coordinates %.2e\n",
                projector, coordinates);
}

TEST(Isomap, RefusesBadInputOnEveryRank) {
  const Communicator comm;
  const testing::ThrownInput split = testing::input_error_of(
      [&] { isomap(testing::three_clusters(30, 30, 30, 3, 4), isomap_settings(), comm); });
  EXPECT_EQ(split.key, "graph.k");
  EXPECT_NE(split.message.find("3 connected components"), std::string::npos) << split.message;

  ProbdrSettings too_many = isomap_settings();
  too_many.graph.k = kN;
  EXPECT_EQ(testing::input_error_of([&] { isomap(roll(), too_many, comm); }).key, "graph.k");

  RowMatrix bad = roll();
  bad(57, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(testing::input_error_of([&] { isomap(bad, isomap_settings(), comm); }).key, "rows");

  ProbdrSettings small_limit = isomap_settings();
  small_limit.dense_limit = kN - 1;
  const testing::ThrownInput dense = testing::input_error_of([&] { isomap(roll(), small_limit, comm); });
  EXPECT_EQ(dense.key, "probdr.dense_limit");
  EXPECT_NE(dense.message.find("probdr.landmarks"), std::string::npos) << dense.message;
  small_limit.landmarks = 20;  // landmark Isomap holds n x m, not n x n
  EXPECT_EQ(testing::input_error_of([&] { isomap(roll(), small_limit, comm); }).key, "no error");

  EXPECT_EQ(testing::input_error_of([&] { isomap(roll(), isomap_settings(kN + 1), comm); }).key,
            "probdr.landmarks");
  EXPECT_EQ(testing::input_error_of([&] { isomap(roll(), isomap_settings(kLatent), comm); }).key,
            "probdr.landmarks");
}

}  // namespace

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace gplvm
