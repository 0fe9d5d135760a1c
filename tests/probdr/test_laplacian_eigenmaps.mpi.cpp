// The sparse ProbDR route at 1-4 ranks: the PETSc-backed PrecisionOperator against the dense one on
// the same Laplacian, and the closed-form Laplacian-eigenmaps fit against dense Eigen, against
// scikit-learn's SpectralEmbedding (through /usr/bin/python3; skipped where it is missing), and as a
// stationary point of the Wishart precision objective.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <random>

#include "gplvm/core/error.hpp"
#include "gplvm/objectives/wishart_precision.hpp"
#include "gplvm/probdr/laplacian_eigenmaps.hpp"
#include "gplvm/probdr/petsc_precision.hpp"
#include "graph/graph_test_data.hpp"
#include "support/petsc_environment.hpp"
#include "support/python_reference.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 103;
constexpr Index kLatent = 2;
constexpr double kGamma = 1e-3;

RowMatrix test_data() {
  return testing::gaussian_rows(kN, 3, 11);
}

SparseGraph test_graph(const Communicator& comm) {
  return binary_knn_graph(testing::local_block(test_data(), comm), 8, comm);
}

// This rank's rows of a fixed random n x l matrix.
Matrix random_latents(const Communicator& comm, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  RowMatrix all(kN, kLatent);
  for (Index i = 0; i < all.size(); ++i) all.data()[i] = normal(engine);
  return Matrix(testing::local_block(all, comm));
}

double global_norm(const Matrix& local, const Communicator& comm) {
  return std::sqrt(comm.allreduce_sum(local.squaredNorm()));
}

Matrix span_projector(const Matrix& V) {
  const Matrix Q = Eigen::HouseholderQR<Matrix>(V).householderQ() * Matrix::Identity(V.rows(), V.cols());
  return Q * Q.transpose();
}

TEST(PetscMatrixPrecision, WishartValueAndGradientEqualTheDenseOperator) {
  const Communicator comm;
  const SparseGraph graph = test_graph(comm);
  for (LaplacianKind kind : {LaplacianKind::symmetric, LaplacianKind::unnormalised}) {
    const PetscMatrixPrecision sparse(graph_laplacian(graph, kind, comm));
    const DenseRowPrecision dense(comm, Matrix(copy_local_rows(sparse.matrix())));
    const WishartPrecision sparse_objective(comm, sparse, 5.0, 0.01), dense_objective(comm, dense, 5.0, 0.01);
    const Matrix X = random_latents(comm, 3);
    const WishartEvaluation a = sparse_objective.evaluate(X, 0.3), b = dense_objective.evaluate(X, 0.3);
    const double value_error = std::abs(a.value - b.value) / std::abs(b.value);
    const double gradient_error =
        global_norm(a.d_latents - b.d_latents, comm) / global_norm(b.d_latents, comm);
    EXPECT_LT(value_error, 1e-12);
    EXPECT_LT(gradient_error, 1e-12);
    EXPECT_LT(std::abs(a.d_noise - b.d_noise), 1e-12 * std::abs(b.d_noise));
    EXPECT_GT(std::abs(b.value), 1.0);  // a comparison of two zeros would prove nothing
    if (comm.rank() == 0)
      std::printf("[ measured ] laplacian %d: value %.2e, gradient %.2e (relative)\n", static_cast<int>(kind),
                  value_error, gradient_error);
  }
}

LaplacianEigenmapsOptions fit_options(LaplacianKind kind) {
  LaplacianEigenmapsOptions options;
  options.latent_dim = kLatent;
  options.laplacian = kind;
  options.regularisation = kGamma;
  return options;
}

TEST(LaplacianEigenmapsFit, EigenvaluesEqualDenseWithTheNullVectorDropped) {
  const Communicator comm;
  const SparseGraph graph = test_graph(comm);
  for (LaplacianKind kind : {LaplacianKind::symmetric, LaplacianKind::unnormalised}) {
    const LaplacianEigenmapsFit fit = laplacian_eigenmaps_fit(graph, fit_options(kind), comm);
    const MatHandle L = graph_laplacian(graph, kind, comm);
    const Matrix dense = comm.allgather_rows(DataRef(copy_local_rows(L.get())));
    const Vector values = Eigen::SelfAdjointEigenSolver<Matrix>(dense).eigenvalues().array() + kGamma;
    EXPECT_NEAR(fit.dropped_eigenvalue, kGamma, 1e-10);
    EXPECT_LT((fit.optimum.eigenvalues - values.segment(1, kLatent)).cwiseAbs().maxCoeff(), 1e-10);
    // beta: the harmonic mean of the n - l eigenvalues not retained (the dropped one included).
    const double discarded = values.sum() - values.segment(1, kLatent).sum();
    EXPECT_NEAR(fit.optimum.noise, static_cast<double>(kN - kLatent) / discarded, 1e-10 * fit.optimum.noise);
  }
}

// scikit-learn's SpectralEmbedding(affinity='precomputed') on the same binary adjacency: it takes
// the normalised Laplacian's smallest eigenvectors after the first and rescales their rows by
// D^-1/2, which is the fit's `embedding` for the symmetric Laplacian; the spans must agree.
TEST(LaplacianEigenmapsFit, EmbeddingSpansScikitLearnsSpectralEmbedding) {
  const Communicator comm;
  const SparseGraph graph = test_graph(comm);
  const Matrix adjacency = testing::dense_graph(graph, comm).first;
  const LaplacianEigenmapsFit fit =
      laplacian_eigenmaps_fit(graph, fit_options(LaplacianKind::symmetric), comm);
  const Matrix embedding = comm.allgather_rows(ConstMatrixRef(fit.embedding));
  // One rank runs Python; the others receive its numbers (zeros plus a sum).
  Vector reference = Vector::Zero(kN * kLatent + 1);
  if (comm.rank() == 0) {
    const std::vector<double> ref = testing::python_reference(
        "from sklearn.manifold import SpectralEmbedding\n"
        "E = SpectralEmbedding(n_components=2, affinity='precomputed', random_state=0).fit_transform(M[0])\n"
        "print(' '.join(map(repr, E.ravel().tolist())))\n",
        {adjacency});
    if (ref.size() == static_cast<std::size_t>(kN * kLatent)) {
      reference.head(kN * kLatent) = Eigen::Map<const Vector>(ref.data(), kN * kLatent);
      reference[kN * kLatent] = 1.0;
    }
  }
  comm.allreduce_sum(reference.data(), reference.size());
  if (reference[kN * kLatent] == 0.0) GTEST_SKIP() << "no Python with scikit-learn";
  const Matrix sklearn = Eigen::Map<const RowMatrix>(reference.data(), kN, kLatent);
  const double difference = (span_projector(embedding) - span_projector(sklearn)).cwiseAbs().maxCoeff();
  EXPECT_LT(difference, 1e-8);
  // The latents span U_l, not D^-1/2 U_l: on a graph with unequal degrees that is another subspace.
  const Matrix latents = comm.allgather_rows(ConstMatrixRef(fit.optimum.latents));
  EXPECT_GT((span_projector(latents) - span_projector(sklearn)).cwiseAbs().maxCoeff(), 1e-4);
  if (comm.rank() == 0) std::printf("[ measured ] projector difference to scikit-learn %.2e\n", difference);
}

TEST(LaplacianEigenmapsFit, IsAStationaryPointOfTheWishartPrecisionObjective) {
  const Communicator comm;
  const SparseGraph graph = test_graph(comm);
  for (LaplacianKind kind : {LaplacianKind::symmetric, LaplacianKind::unnormalised}) {
    const LaplacianEigenmapsFit fit = laplacian_eigenmaps_fit(graph, fit_options(kind), comm);
    const PetscMatrixPrecision precision(graph_laplacian(graph, kind, comm));
    const WishartPrecision objective(comm, precision, 1.0, kGamma);
    const WishartEvaluation at_fit = objective.evaluate(fit.optimum.latents, fit.optimum.noise);
    const WishartEvaluation at_random = objective.evaluate(random_latents(comm, 5), fit.optimum.noise);
    const double ratio = global_norm(at_fit.d_latents, comm) / global_norm(at_random.d_latents, comm);
    EXPECT_LT(ratio, 1e-8);
    EXPECT_LT(std::abs(at_fit.d_log_noise), 1e-8 * std::abs(at_random.d_log_noise) + 1e-9);
    if (comm.rank() == 0)
      std::printf("[ measured ] laplacian %d: |grad X| ratio %.2e, d/dlog beta %.2e\n",
                  static_cast<int>(kind), ratio, at_fit.d_log_noise);
  }
}

TEST(LaplacianEigenmapsFit, RefusesNoRegularisationAndADisconnectedGraph) {
  const Communicator comm;
  LaplacianEigenmapsOptions options = fit_options(LaplacianKind::symmetric);
  options.regularisation = 0.0;
  EXPECT_EQ(testing::input_error_of([&] { laplacian_eigenmaps_fit(test_graph(comm), options, comm); }).key,
            kPrecisionRegularisationKey);
  const RowMatrix clusters = testing::three_clusters(30, 30, 30, 3, 4);
  const SparseGraph split = binary_knn_graph(testing::local_block(clusters, comm), 5, comm);
  const testing::ThrownInput error = testing::input_error_of(
      [&] { laplacian_eigenmaps_fit(split, fit_options(LaplacianKind::symmetric), comm); });
  EXPECT_EQ(error.key, "graph.k");
  EXPECT_NE(error.message.find("3 connected components"), std::string::npos) << error.message;
}

}  // namespace

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace gplvm
