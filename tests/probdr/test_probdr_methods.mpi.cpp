// The covariance ProbDR methods (pca, cmds, kpca) and the spectral fit (probdr/spectral_fit.hpp) at
// 1-4 ranks with uneven row splits (n = 103): each method's classical coordinates against
// scikit-learn / NumPy on the same data (through /usr/bin/python3; skipped where it is missing), the
// fits as stationary points of the Wishart covariance objective, every rank count against one rank,
// the factor (d x d) route against the Krylov-Schur route on the same S_hat, classical MDS of a planar
// configuration, the shell route of a dense precision against the dense closed form, and the input
// errors, thrown on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/objectives/precision_operator.hpp"
#include "gplvm/objectives/wishart_covariance.hpp"
#include "gplvm/objectives/wishart_spectral.hpp"
#include "gplvm/probdr/probdr_method.hpp"
#include "gplvm/probdr/spectral_fit.hpp"
#include "graph/graph_test_data.hpp"
#include "support/petsc_environment.hpp"
#include "support/python_reference.hpp"
#include "support/wishart_problems.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 103, kWidth = 5, kLatent = 2;
const char* const kMethods[] = {"pca", "kpca", "cmds"};  // the order of the Python script's output

// Gaussian rows with unequal column scales (well separated principal axes) and nonzero means.
RowMatrix test_data() {
  RowMatrix y = testing::gaussian_rows(kN, kWidth, 21);
  const Vector scales = (Vector(kWidth) << 3.0, 2.0, 1.0, 0.6, 0.3).finished();
  y = y * scales.asDiagonal();
  y.col(0).array() += 4.0;
  y.col(1).array() -= 1.5;
  return y;
}

SpectralFitOptions fit_options(Index latent_dim, double regularisation = 0.0) {
  SpectralFitOptions options;
  options.latent_dim = latent_dim;
  options.regularisation = regularisation;
  return options;
}

SpectralFit fit_method(const std::string& method, const RowMatrix& data, const ProbdrSettings& settings,
                       const WishartNoise& noise, const Communicator& comm, MomentEstimate* keep = nullptr) {
  MomentEstimate moment = probdr_method(method).estimate(testing::local_block(data, comm), settings, comm);
  SpectralFitOptions options = fit_options(settings.latent_dim);
  options.noise = noise;
  SpectralFit fit = spectral_fit(moment, options, comm);
  if (keep) *keep = std::move(moment);
  return fit;
}

ProbdrSettings settings_with(Index latent_dim) {
  ProbdrSettings settings;
  settings.latent_dim = latent_dim;
  return settings;
}

Matrix gathered(const Matrix& local, const Communicator& comm) {
  return comm.allgather_rows(ConstMatrixRef(local));
}

Matrix span_projector(const Matrix& V) {
  const Matrix Q = Eigen::HouseholderQR<Matrix>(V).householderQ() * Matrix::Identity(V.rows(), V.cols());
  return Q * Q.transpose();
}

// The largest relative difference of two matrices' columns up to each column's sign.
double column_difference_up_to_sign(const Matrix& a, const Matrix& b) {
  double worst = 0.0;
  for (Index j = 0; j < b.cols(); ++j)
    worst = std::max(worst,
                     std::min((a.col(j) - b.col(j)).norm(), (a.col(j) + b.col(j)).norm()) / b.col(j).norm());
  return worst;
}

// scikit-learn's PCA and KernelPCA (rbf, gamma = 1 / D) and a NumPy eigendecomposition of
// -1/2 H D2 H, each n x l, of the test data; computed by rank 0, shared through one allreduce, once.
const std::vector<Matrix>& references(const Communicator& comm) {
  static std::vector<Matrix> out;
  static bool done = false;
  if (done) return out;
  done = true;
  const Index count = 3 * kN * kLatent;
  Vector numbers = Vector::Zero(count + 1);
  if (comm.rank() == 0) {
    const std::vector<double> ref = testing::python_reference(
        "from sklearn.decomposition import PCA, KernelPCA\n"
        "Y = M[0]; n, D = Y.shape\n"
        "P = PCA(n_components=2).fit_transform(Y)\n"
        "K = KernelPCA(n_components=2, kernel='rbf', gamma=1.0 / D).fit_transform(Y)\n"
        "D2 = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(-1)\n"
        "H = np.eye(n) - 1.0 / n\n"
        "w, V = np.linalg.eigh(-0.5 * H @ D2 @ H)\n"
        "C = V[:, ::-1][:, :2] * np.sqrt(w[::-1][:2])\n"
        "print(' '.join(map(repr, np.concatenate([P.ravel(), K.ravel(), C.ravel()]).tolist())))\n",
        {Matrix(test_data())});
    if (ref.size() == static_cast<std::size_t>(count)) {
      numbers.head(count) = Eigen::Map<const Vector>(ref.data(), count);
      numbers[count] = 1.0;
    }
  }
  comm.allreduce_sum(numbers.data(), numbers.size());
  if (numbers[count] == 0.0) return out;
  for (Index m = 0; m < 3; ++m)
    out.push_back(Eigen::Map<const RowMatrix>(numbers.data() + m * kN * kLatent, kN, kLatent));
  return out;
}

TEST(ProbdrMethods, AreRegistered) {
  const std::vector<std::string> names = registered_probdr_methods();
  for (const char* name : {"cmds", "kpca", "le", "pca"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  EXPECT_EQ(probdr_method("pca").form, MomentForm::covariance);
  EXPECT_FALSE(probdr_method("kpca").summary.empty());
}

TEST(ProbdrMethods, ClassicalCoordinatesMatchScikitLearnAndNumPy) {
  const Communicator comm;
  const std::vector<Matrix>& reference = references(comm);
  if (reference.empty()) GTEST_SKIP() << "no Python with NumPy and scikit-learn";
  for (int m = 0; m < 3; ++m) {
    const SpectralFit fit =
        fit_method(kMethods[m], test_data(), settings_with(kLatent), WishartNoise::estimated(), comm);
    const Matrix classical = gathered(fit.classical, comm), latents = gathered(fit.optimum.latents, comm);
    const double projector = (span_projector(classical) - span_projector(reference[m])).cwiseAbs().maxCoeff();
    const double columns = column_difference_up_to_sign(classical, reference[m]);
    // The ProbDR latents span the same subspace; only each axis's scale differs.
    const double latent_projector =
        (span_projector(latents) - span_projector(reference[m])).cwiseAbs().maxCoeff();
    EXPECT_LT(projector, 1e-8) << kMethods[m];
    EXPECT_LT(columns, 1e-8) << kMethods[m];
    EXPECT_LT(latent_projector, 1e-8) << kMethods[m];
    if (comm.rank() == 0)
      std::printf(
          "[ measured ] %s: projector difference %.2e, columns up to sign %.2e, latents' projector %.2e\n",
          kMethods[m], projector, columns, latent_projector);
  }
}

TEST(ProbdrMethods, FitIsAStationaryPointOfTheWishartCovarianceObjective) {
  const Communicator comm;
  ProbdrSettings nystrom = settings_with(kLatent);
  nystrom.landmarks = 40;
  for (const auto& [method, settings] :
       {std::pair<std::string, ProbdrSettings>{"pca", settings_with(kLatent)},
        {"cmds", settings_with(kLatent)},
        {"kpca", settings_with(kLatent)},
        {"kpca", nystrom}}) {
    MomentEstimate moment;
    const SpectralFit fit =
        fit_method(method, test_data(), settings, WishartNoise::estimated(), comm, &moment);
    const WishartCovariance objective(comm, *moment.covariance, moment.degrees_of_freedom);
    const Matrix random = testing::local_block(testing::gaussian_rows(kN, kLatent, 5), comm);
    const WishartEvaluation at_fit = objective.evaluate(fit.optimum.latents, fit.optimum.noise);
    const WishartEvaluation elsewhere = objective.evaluate(random, fit.optimum.noise);
    const double ratio = std::sqrt(comm.allreduce_sum(at_fit.d_latents.squaredNorm()) /
                                   comm.allreduce_sum(elsewhere.d_latents.squaredNorm()));
    EXPECT_LT(ratio, 1e-8) << method;
    EXPECT_LT(std::abs(at_fit.d_log_noise), 1e-8 * std::abs(elsewhere.d_log_noise)) << method;
    EXPECT_NEAR(objective.trace(), fit.trace, 1e-12 * fit.trace) << method;
    if (comm.rank() == 0)
      std::printf("[ measured ] %s (landmarks %ld): |grad X| ratio %.2e, d/dlog s2 %.2e, s2 %.4g\n",
                  method.c_str(), static_cast<long>(settings.landmarks), ratio, at_fit.d_log_noise,
                  fit.optimum.noise);
  }
}

TEST(ProbdrMethods, EveryRankCountEqualsOneRank) {
  const Communicator world, self(MPI_COMM_SELF);
  ProbdrSettings nystrom = settings_with(kLatent);
  nystrom.landmarks = 40;
  nystrom.seed = 9;
  for (const auto& [method, settings] :
       {std::pair<std::string, ProbdrSettings>{"pca", settings_with(kLatent)},
        {"cmds", settings_with(kLatent)},
        {"kpca", settings_with(kLatent)},
        {"kpca", nystrom}}) {
    const SpectralFit distributed =
        fit_method(method, test_data(), settings, WishartNoise::estimated(), world);
    const SpectralFit serial = fit_method(method, test_data(), settings, WishartNoise::estimated(), self);
    const Matrix expected = testing::local_block(RowMatrix(serial.optimum.latents), world);
    const double error =
        std::sqrt(world.allreduce_sum((distributed.optimum.latents - expected).squaredNorm())) /
        serial.optimum.latents.norm();
    EXPECT_LT(error, 1e-9) << method;
    EXPECT_NEAR(distributed.optimum.noise, serial.optimum.noise, 1e-11 * serial.optimum.noise) << method;
    EXPECT_LT((distributed.optimum.eigenvalues - serial.optimum.eigenvalues).cwiseAbs().maxCoeff(),
              1e-11 * serial.optimum.eigenvalues[0])
        << method;
    if (world.rank() == 0)
      std::printf("[ measured ] %s (landmarks %ld): latents vs one rank %.2e (relative)\n", method.c_str(),
                  static_cast<long>(settings.landmarks), error);
  }
}

// PCA's factor F = Y_c / sqrt(D) goes the d x d route; the same S_hat = F F^T as dense rows goes
// through the shell matrix and Krylov-Schur. Same eigenpairs, same sign convention, same fit.
TEST(SpectralFit, FactorRouteEqualsKrylovRouteOnTheSameMatrix) {
  const Communicator comm;
  const RowMatrix y = test_data();
  RowMatrix f = y.rowwise() - y.colwise().mean();
  f /= std::sqrt(static_cast<double>(kWidth));
  const Matrix s = f * f.transpose();
  MomentEstimate dense;
  dense.covariance =
      std::make_unique<DenseRowCovariance>(comm, Matrix(testing::local_block(RowMatrix(s), comm)));
  const SpectralFit krylov = spectral_fit(dense, fit_options(3), comm);
  const SpectralFit factor = fit_method("pca", y, settings_with(3), WishartNoise::estimated(), comm);
  const double error =
      std::sqrt(comm.allreduce_sum((krylov.optimum.latents - factor.optimum.latents).squaredNorm()) /
                comm.allreduce_sum(factor.optimum.latents.squaredNorm()));
  EXPECT_LT(error, 1e-9);
  EXPECT_LT((krylov.optimum.eigenvalues - factor.optimum.eigenvalues).cwiseAbs().maxCoeff(),
            1e-11 * factor.optimum.eigenvalues[0]);
  EXPECT_NEAR(krylov.optimum.noise, factor.optimum.noise, 1e-11 * factor.optimum.noise);
  EXPECT_GT(krylov.iterations, 0);
  if (comm.rank() == 0) std::printf("[ measured ] Krylov vs factor route: latents %.2e (relative)\n", error);
}

// A dense precision without null vectors through the shell route, against the dense serial closed form.
TEST(SpectralFit, DensePrecisionThroughTheShellEqualsTheDenseClosedForm) {
  const Communicator comm;
  const Matrix gamma_hat = testing::wishart_test_precision(kN, 31);
  MomentEstimate moment;
  moment.form = MomentForm::precision;
  moment.precision =
      std::make_unique<DenseRowPrecision>(comm, Matrix(testing::local_block(RowMatrix(gamma_hat), comm)));
  const SpectralFit fit = spectral_fit(moment, fit_options(kLatent, 0.05), comm);
  const WishartOptimum dense = spectral_precision_fit(gamma_hat, 0.05, kLatent, WishartNoise::estimated());
  const double error = column_difference_up_to_sign(gathered(fit.optimum.latents, comm), dense.latents);
  EXPECT_LT(error, 1e-9);
  EXPECT_NEAR(fit.optimum.noise, dense.noise, 1e-11 * dense.noise);
  EXPECT_LT((fit.optimum.eigenvalues - dense.eigenvalues).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_EQ(fit.dropped.size(), 0);
  if (comm.rank() == 0)
    std::printf("[ measured ] shell precision vs dense closed form: latents %.2e\n", error);
}

// Spec: a random 8 x 3 configuration P; B = -1/2 H D2 H has rank 3 and its rank-3 reconstruction is
// (HP)(HP)^T; with the noise fixed near 0 the ProbDR optimum is the CMDS coordinates up to rotation.
TEST(ProbdrMethods, CmdsOfAPlanarConfigurationReconstructsIt) {
  const Communicator comm;
  const RowMatrix p = testing::gaussian_rows(8, 3, 17);
  const RowMatrix hp = p.rowwise() - p.colwise().mean();
  const Matrix gram = hp * hp.transpose();
  const SpectralFit fit = fit_method("cmds", p, settings_with(3), WishartNoise::fixed(1e-12), comm);
  const Matrix classical = gathered(fit.classical, comm), latents = gathered(fit.optimum.latents, comm);
  const double reconstruction = (classical * classical.transpose() - gram).norm() / gram.norm();
  const double probdr = (latents * latents.transpose() - gram).norm() / gram.norm();
  EXPECT_LT(reconstruction, 1e-11);
  EXPECT_LT(probdr, 1e-11);
  // With the noise estimated, S_hat has rank l: the estimate is 0 and the objective unbounded.
  EXPECT_EQ(testing::input_error_of([&] {
              fit_method("cmds", p, settings_with(3), WishartNoise::estimated(), comm);
            }).key,
            kFixedNoiseKey);
  if (comm.rank() == 0)
    std::printf(
        "[ measured ] CMDS of 8 x 3: |C C^T - (HP)(HP)^T| %.2e, ProbDR (s2 = 1e-12) %.2e (relative)\n",
        reconstruction, probdr);
}

TEST(ProbdrMethods, RefuseBadInputOnEveryRank) {
  const Communicator comm;
  const RowMatrix small = testing::gaussian_rows(8, 3, 19);
  for (const char* method : kMethods) {
    // l >= n.
    EXPECT_EQ(testing::input_error_of([&] {
                fit_method(method, small, settings_with(8), WishartNoise::estimated(), comm);
              }).key,
              "model.latent_dim")
        << method;
    // NaN in the last row (on the last rank).
    RowMatrix bad = test_data();
    bad(kN - 1, 2) = std::numeric_limits<double>::quiet_NaN();
    const testing::ThrownInput nan = testing::input_error_of(
        [&] { fit_method(method, bad, settings_with(kLatent), WishartNoise::estimated(), comm); });
    EXPECT_EQ(nan.key, "rows") << method;
    EXPECT_NE(nan.message.find("row " + std::to_string(kN - 1)), std::string::npos) << nan.message;
  }
  ProbdrSettings limited = settings_with(kLatent);
  limited.dense_limit = 50;
  for (const char* method : {"cmds", "kpca"})
    EXPECT_EQ(testing::input_error_of([&] {
                fit_method(method, test_data(), limited, WishartNoise::estimated(), comm);
              }).key,
              "probdr.dense_limit")
        << method;
  ProbdrSettings unknown = settings_with(kLatent);
  unknown.kernel = "no_such_kernel";
  EXPECT_EQ(testing::input_error_of([&] {
              fit_method("kpca", test_data(), unknown, WishartNoise::estimated(), comm);
            }).key,
            "probdr.kernel");
  ProbdrSettings landmarks = settings_with(kLatent);
  landmarks.landmarks = kN + 1;
  EXPECT_EQ(testing::input_error_of([&] {
              fit_method("kpca", test_data(), landmarks, WishartNoise::estimated(), comm);
            }).key,
            "probdr.landmarks");
}

}  // namespace

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace gplvm
