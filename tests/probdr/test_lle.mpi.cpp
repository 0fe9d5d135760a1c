// LLE's moment at 1-4 ranks: Gamma_hat = (I - W)^T (I - W) as a sparse PETSc precision, symmetric
// with the constant null vector, and its retained eigenvectors against scikit-learn's standard
// LocallyLinearEmbedding; duplicate rows handled by the regularisation; bad input refused.
#include <gtest/gtest.h>

#include "gplvm/core/error.hpp"
#include "gplvm/probdr/probdr_method.hpp"
#include "probdr/probdr_test_support.hpp"
#include "support/petsc_environment.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 150;
constexpr Index kLatent = 2;

// A noisy anisotropic planar cloud: LLE's two leading directions (the linear coordinates) are well
// separated from the next, so the comparison measures the implementation, not a near-degeneracy.
RowMatrix cloud() {
  RowMatrix rows = testing::gaussian_rows(kN, 2, 5);
  rows.col(0) *= 2.0;
  return rows;
}

ProbdrSettings lle_settings() {
  ProbdrSettings settings;
  settings.method = "lle";
  settings.latent_dim = kLatent;
  settings.graph.k = 10;
  return settings;
}

MomentEstimate lle(const RowMatrix& data, const ProbdrSettings& settings, const Communicator& comm) {
  return probdr_method("lle").estimate(testing::local_block(data, comm), settings, comm);
}

TEST(Lle, MomentIsSymmetricWithTheConstantNullVector) {
  const Communicator comm;
  const MomentEstimate moment = lle(cloud(), lle_settings(), comm);
  ASSERT_EQ(moment.form, MomentForm::precision);
  EXPECT_EQ(moment.null_vectors, 1);
  const Matrix gamma = testing::dense_moment(moment, comm);
  const double scale = gamma.cwiseAbs().maxCoeff();
  EXPECT_LT((gamma - gamma.transpose()).cwiseAbs().maxCoeff(), 1e-13 * scale);
  EXPECT_LT((gamma * Vector::Ones(kN)).cwiseAbs().maxCoeff(), 1e-12 * scale);
  EXPECT_NEAR(comm.allreduce_sum(moment.precision->local_trace()), gamma.trace(), 1e-12 * gamma.trace());
}

TEST(Lle, RetainedEigenvectorsAreScikitLearnsLle) {
  const Communicator comm;
  const MomentEstimate moment = lle(cloud(), lle_settings(), comm);
  const Matrix ours = testing::classical_coordinates(moment, kLatent, comm);
  const std::vector<double> ref = testing::python_on_root(
      "from sklearn.manifold import LocallyLinearEmbedding\n"
      "E = LocallyLinearEmbedding(n_neighbors=10, n_components=2, reg=1e-3, method='standard',\n"
      "                           eigen_solver='dense').fit_transform(M[0])\n"
      "print(' '.join(map(repr, E.ravel().tolist())))\n",
      {Matrix(cloud())}, kN * kLatent, comm);
  if (ref.empty()) GTEST_SKIP() << "no Python with scikit-learn";
  const double projector = testing::projector_difference(ours, testing::as_matrix(ref, kN, kLatent));
  EXPECT_LT(projector, 1e-8);
  const testing::DenseEigenpairs pairs =
      testing::retained_eigenpairs(moment, testing::dense_moment(moment, comm), 4);
  if (comm.rank() == 0)
    std::printf(
        "[ measured ] lle vs scikit-learn: projector %.2e (eigenvalues after the null one: %.2e %.2e | "
        "%.2e %.2e)\n",
        projector, pairs.values[0], pairs.values[1], pairs.values[2], pairs.values[3]);
}

TEST(Lle, DuplicateRowsAreHandledByTheRegularisation) {
  const Communicator comm;
  RowMatrix data = cloud();
  data.row(20) = data.row(21);  // a zero difference: the neighbourhood Gram matrix is singular
  data.row(90) = data.row(21);
  const Matrix gamma = testing::dense_moment(lle(data, lle_settings(), comm), comm);
  EXPECT_TRUE(gamma.allFinite());
  EXPECT_LT((gamma * Vector::Ones(kN)).cwiseAbs().maxCoeff(), 1e-12 * gamma.cwiseAbs().maxCoeff());
}

TEST(Lle, RefusesBadInputOnEveryRank) {
  const Communicator comm;
  ProbdrSettings settings = lle_settings();
  settings.lle_regularisation = 0.0;
  EXPECT_EQ(testing::input_error_of([&] { lle(cloud(), settings, comm); }).key, "probdr.lle_regularisation");
  const testing::ThrownInput split =
      testing::input_error_of([&] { lle(testing::three_clusters(30, 30, 30, 3, 4), lle_settings(), comm); });
  EXPECT_EQ(split.key, "graph.k");
  EXPECT_NE(split.message.find("3 connected components"), std::string::npos) << split.message;
  settings = lle_settings();
  settings.graph.k = kN;
  EXPECT_EQ(testing::input_error_of([&] { lle(cloud(), settings, comm); }).key, "graph.k");
}

}  // namespace

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace gplvm
