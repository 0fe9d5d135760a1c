// The diffusion-maps moment at 1-4 ranks: S_hat = M^t - phi0 phi0^T, kept sparse in PETSc, against a
// dense NumPy diffusion map on the same k-NN graph (the right eigenvectors of P = D^-1 K_alpha, the
// trivial one dropped, scaled by lambda^t); the shift-and-invert route of the spectral fit against
// plain Krylov-Schur (dmaps and le); bad settings refused alike on every rank.
#include <gtest/gtest.h>
#include <petscsys.h>

#include "gplvm/core/error.hpp"
#include "gplvm/probdr/probdr_method.hpp"
#include "gplvm/probdr/spectral_fit.hpp"
#include "probdr/probdr_test_support.hpp"
#include "support/petsc_environment.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 180;
constexpr Index kLatent = 2;

RowMatrix roll() {
  return testing::swiss_roll(kN, 5.0, 0.05, 23);
}

ProbdrSettings dmaps_settings(double alpha, double t) {
  ProbdrSettings settings;
  settings.method = "dmaps";
  settings.latent_dim = kLatent;
  settings.graph.k = 10;
  settings.dmaps_alpha = alpha;
  settings.dmaps_time = t;
  return settings;
}

MomentEstimate dmaps(const RowMatrix& data, const ProbdrSettings& settings, const Communicator& comm) {
  return probdr_method("dmaps").estimate(testing::local_block(data, comm), settings, comm);
}

// NumPy: the k nearest other rows by exact distances, union-symmetrised Gaussian weights with
// eps = the median squared k-NN distance, K = A + I, the alpha-normalisation, P = D^-1 K_alpha and
// its right eigenvectors (numpy.linalg.eig), the first (eigenvalue 1) dropped.
constexpr const char* kDiffusionScript =
    "Y, alpha, t = M[0], M[1][0, 0], int(M[1][0, 1])\n"
    "n, k = len(Y), 10\n"
    "D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(-1)\n"
    "np.fill_diagonal(D2, np.inf)\n"
    "nn = np.argsort(D2, axis=1, kind='stable')[:, :k]\n"
    "knn2 = np.take_along_axis(D2, nn, axis=1)\n"
    "eps = np.median(knn2)\n"
    "A = np.zeros((n, n)); A[np.repeat(np.arange(n), k), nn.ravel()] = np.exp(-knn2.ravel() / eps)\n"
    "K = np.maximum(A, A.T) + np.eye(n)\n"
    "q = K.sum(1) ** -alpha; Ka = q[:, None] * K * q[None, :]\n"
    "P = Ka / Ka.sum(1)[:, None]\n"
    "w, V = np.linalg.eig(P); w, V = w.real, V.real\n"
    "order = np.argsort(-w); w, V = w[order], V[:, order]\n"
    "E = V[:, 1:3] * w[1:3] ** t\n"
    "print(' '.join(map(repr, np.r_[E.ravel(), w[1:3] ** t, w[0]].tolist())))\n";

TEST(DiffusionMaps, DiffusionCoordinatesAreTheNumPyDiffusionMaps) {
  const Communicator comm;
  for (const auto& [alpha, t] : {std::pair{1.0, 1.0}, std::pair{0.5, 2.0}, std::pair{0.0, 3.0}}) {
    const MomentEstimate moment = dmaps(roll(), dmaps_settings(alpha, t), comm);
    ASSERT_EQ(moment.form, MomentForm::covariance);
    const Matrix dense = testing::dense_moment(moment, comm);
    const testing::DenseEigenpairs pairs = testing::retained_eigenpairs(moment, dense, kLatent);
    const Matrix ours = testing::classical_coordinates(moment, kLatent, comm);
    Matrix parameters(1, 2);
    parameters << alpha, t;
    const std::vector<double> ref = testing::python_on_root(kDiffusionScript, {Matrix(roll()), parameters},
                                                            kN * kLatent + kLatent + 1, comm);
    if (ref.empty()) GTEST_SKIP() << "no Python with NumPy";
    const Matrix numpy = testing::as_matrix(ref, kN, kLatent);
    const Vector values = Eigen::Map<const Vector>(ref.data() + kN * kLatent, kLatent);
    EXPECT_NEAR(ref.back(), 1.0, 1e-12);  // the trivial eigenvalue the moment removes
    const double projector = testing::projector_difference(ours, numpy);
    const double eigenvalues = (pairs.values - values).cwiseAbs().maxCoeff();
    EXPECT_LT(projector, 1e-8);
    EXPECT_LT(eigenvalues, 1e-10);
    // Each column is lambda^t psi up to psi's scale: a multiple of NumPy's column.
    for (Index j = 0; j < kLatent; ++j) {
      const double c = ours.col(j).dot(numpy.col(j)) / numpy.col(j).squaredNorm();
      EXPECT_LT((ours.col(j) - c * numpy.col(j)).norm(), 1e-8 * ours.col(j).norm());
    }
    // S_hat is symmetric and its trace is the operator's.
    EXPECT_LT((dense - dense.transpose()).cwiseAbs().maxCoeff(), 1e-13);
    EXPECT_NEAR(comm.allreduce_sum(moment.covariance->local_trace()), dense.trace(), 1e-10);
    if (comm.rank() == 0)
      std::printf(
          "[ measured ] dmaps alpha %.1f t %.0f vs NumPy: projector %.2e, eigenvalues %.2e (%.6f %.6f)\n",
          alpha, t, projector, eigenvalues, pairs.values[0], pairs.values[1]);
  }
}

// The spectral fit of the two sparse-matrix moments (dmaps' M^t less its trivial direction, le's
// Laplacian) by shift-and-invert (a MUMPS factorisation, the trivial vector deflated for dmaps)
// equals plain Krylov-Schur: same eigenvalues, latents and noise. A moment without a sparse matrix
// refuses shift_invert, naming the key.
TEST(SpectralFitRoutes, ShiftInvertEqualsKrylovSchurForSparseMoments) {
  const Communicator comm;
  for (const char* method : {"dmaps", "le"}) {
    ProbdrSettings settings = dmaps_settings(1.0, 2.0);
    settings.method = method;
    const MomentEstimate moment =
        probdr_method(method).estimate(testing::local_block(roll(), comm), settings, comm);
    SpectralFitOptions options;
    options.latent_dim = kLatent;
    options.route = EigenRoute::krylov_schur;
    const SpectralFit krylov = spectral_fit(moment, options, comm);
    // probdr.eigensolver_subspace: a larger Krylov subspace, the same fit.
    options.subspace = 3 * kLatent + 20;
    const SpectralFit wider = spectral_fit(moment, options, comm);
    EXPECT_LT(std::sqrt(comm.allreduce_sum((wider.optimum.latents - krylov.optimum.latents).squaredNorm()) /
                        comm.allreduce_sum(krylov.optimum.latents.squaredNorm())),
              1e-8)
        << method;
    EXPECT_LE(wider.iterations, krylov.iterations) << method;
    options.subspace = 0;
    options.route = EigenRoute::shift_invert;
    const SpectralFit inverted = spectral_fit(moment, options, comm);
    const double values = (inverted.optimum.eigenvalues - krylov.optimum.eigenvalues).cwiseAbs().maxCoeff() /
                          krylov.optimum.eigenvalues.cwiseAbs().maxCoeff();
    const double latents =
        std::sqrt(comm.allreduce_sum((inverted.optimum.latents - krylov.optimum.latents).squaredNorm()) /
                  comm.allreduce_sum(krylov.optimum.latents.squaredNorm()));
    EXPECT_LT(values, 1e-10) << method;
    EXPECT_LT(latents, 1e-8) << method;
    EXPECT_NEAR(inverted.optimum.noise, krylov.optimum.noise, 1e-10 * krylov.optimum.noise) << method;
    EXPECT_NE(inverted.eigensolver.find("shift-and-invert"), std::string::npos) << inverted.eigensolver;
    EXPECT_EQ(krylov.eigensolver.find("shift-and-invert"), std::string::npos) << krylov.eigensolver;
    if (comm.rank() == 0)
      std::printf(
          "[ measured ] %s shift-invert vs Krylov-Schur: eigenvalues %.2e, latents %.2e, restarts %ld vs "
          "%ld\n",
          method, values, latents, static_cast<long>(inverted.iterations),
          static_cast<long>(krylov.iterations));
  }
  ProbdrSettings pca;
  pca.latent_dim = kLatent;
  const MomentEstimate moment = probdr_method("pca").estimate(testing::local_block(roll(), comm), pca, comm);
  SpectralFitOptions options;
  options.latent_dim = kLatent;
  options.route = EigenRoute::shift_invert;
  EXPECT_EQ(testing::input_error_of([&] { spectral_fit(moment, options, comm); }).key, "probdr.eigensolver");
}

// A factorisation that fails (MUMPS held to 1 MB of working memory, ICNTL(23): INFOG(1) = -19, as a
// fill beyond the machine's memory gives -13): `auto` falls back to Krylov-Schur and finds the same fit,
// naming the fallback; an explicit shift_invert reports the failure on every rank.
TEST(SpectralFitRoutes, AutoFallsBackToKrylovSchurWhenTheFactorisationFails) {
  const Communicator comm;
  ProbdrSettings settings = dmaps_settings(1.0, 1.0);
  settings.method = "le";
  // 3,000 rows: enough that MUMPS's working memory exceeds the 1 MB allowed.
  const RowMatrix rows = testing::swiss_roll(3000, 5.0, 0.05, 29);
  const MomentEstimate moment =
      probdr_method("le").estimate(testing::local_block(rows, comm), settings, comm);
  SpectralFitOptions options;
  options.latent_dim = kLatent;
  options.route = EigenRoute::krylov_schur;
  const SpectralFit krylov = spectral_fit(moment, options, comm);
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-st_mat_mumps_icntl_23", "1"), 0);
  options.route = EigenRoute::automatic;
  const SpectralFit fallback = spectral_fit(moment, options, comm);
  options.route = EigenRoute::shift_invert;
  bool thrown = false;
  try {
    spectral_fit(moment, options, comm);
  } catch (const Error&) {
    thrown = true;
  }
  ASSERT_EQ(PetscOptionsClearValue(nullptr, "-st_mat_mumps_icntl_23"), 0);
  EXPECT_TRUE(thrown);
  EXPECT_NE(fallback.eigensolver.find("after shift-and-invert failed"), std::string::npos)
      << fallback.eigensolver;
  EXPECT_LT((fallback.optimum.eigenvalues - krylov.optimum.eigenvalues).cwiseAbs().maxCoeff(),
            1e-12 * krylov.optimum.eigenvalues.cwiseAbs().maxCoeff());
  EXPECT_LT(std::sqrt(comm.allreduce_sum((fallback.optimum.latents - krylov.optimum.latents).squaredNorm()) /
                      comm.allreduce_sum(krylov.optimum.latents.squaredNorm())),
            1e-10);
}

TEST(DiffusionMaps, RefusesBadSettingsOnEveryRank) {
  const Communicator comm;
  EXPECT_EQ(testing::input_error_of([&] { dmaps(roll(), dmaps_settings(1.0, 1.5), comm); }).key,
            "probdr.dmaps_time");
  EXPECT_EQ(testing::input_error_of([&] { dmaps(roll(), dmaps_settings(1.0, 0.0), comm); }).key,
            "probdr.dmaps_time");
  ProbdrSettings settings = dmaps_settings(1.0, 1.0);
  settings.dmaps_bandwidth = -1.0;
  EXPECT_EQ(testing::input_error_of([&] { dmaps(roll(), settings, comm); }).key, "probdr.dmaps_bandwidth");
  const testing::ThrownInput split = testing::input_error_of(
      [&] { dmaps(testing::three_clusters(30, 30, 30, 3, 4), dmaps_settings(1.0, 1.0), comm); });
  EXPECT_EQ(split.key, "graph.k");
  EXPECT_NE(split.message.find("3 connected components"), std::string::npos) << split.message;
}

}  // namespace

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace gplvm
