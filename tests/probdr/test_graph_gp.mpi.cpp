// The graph GP (probdr/graph_gp_*.hpp) at 1-4 ranks: its covariances against dense matrix functions
// of the Laplacian (SciPy's expm and fractional_matrix_power through /usr/bin/python3, skipped where
// SciPy is missing, and Eigen's inverse), the eigen-route log marginal against a dense Cholesky one
// (SciPy), its gradient against central differences, the prediction against the Schur complement and
// the sparse precision form, and the recovery of known hyperparameters from data sampled from the
// model, within a tolerance from the Fisher information.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/probdr/graph_gp_fit.hpp"
#include "gplvm/probdr/graph_gp_kernel.hpp"
#include "gplvm/probdr/graph_gp_marginal.hpp"
#include "gplvm/probdr/graph_gp_prediction.hpp"
#include "gplvm/probdr/graph_gp_spectrum.hpp"
#include "gplvm/probdr/laplacian_eigenmaps.hpp"
#include "graph/graph_test_data.hpp"
#include "support/petsc_environment.hpp"
#include "support/python_reference.hpp"

namespace gplvm {
namespace {

constexpr Index kSmallN = 60;
const GraphGpHyperparameters kHyper{1.3, 0.8, 0.05};

// Matern nu = 1 (the ProbDR paper's), Matern nu = 2.5 and heat.
std::vector<GraphKernel> kernels() {
  return {{GraphKernelKind::matern, 1.0}, {GraphKernelKind::matern, 2.5}, {GraphKernelKind::heat, 1.0}};
}

std::string name(const GraphKernel& kernel) {
  return kernel.kind == GraphKernelKind::heat ? "heat" : "matern-" + std::to_string(kernel.nu).substr(0, 3);
}

// The symmetric normalised Laplacian of a binary 6-NN graph of 60 Gaussian points, on every rank.
Matrix small_laplacian(const Communicator& comm) {
  const RowMatrix points = testing::gaussian_rows(kSmallN, 3, 11);
  const SparseGraph graph = binary_knn_graph(testing::local_block(points, comm), 6, comm);
  const MatHandle laplacian = graph_laplacian(graph, LaplacianKind::symmetric, comm);
  return Matrix(comm.allgather_rows(DataRef(copy_local_rows(laplacian.get()))));
}

// Rank 0 runs the script and broadcasts its `count` numbers; empty on every rank when it printed
// another count (no Python or SciPy).
std::vector<double> python_on_root(const std::string& script, const std::vector<Matrix>& inputs, Index count,
                                   const Communicator& comm) {
  Vector values = Vector::Zero(count + 1);
  if (comm.rank() == 0) {
    const std::vector<double> ref = testing::python_reference(script, inputs);
    if (static_cast<Index>(ref.size()) == count) {
      values.head(count) = Eigen::Map<const Vector>(ref.data(), count);
      values[count] = 1.0;
    }
  }
  comm.broadcast(values.data(), values.size());
  if (values[count] == 0.0) return {};
  return {values.data(), values.data() + count};
}

// SciPy's dense covariances: Matern by fractional_matrix_power, heat by expm, each symmetrised.
constexpr const char* kScipyCovariances =
    "import scipy.linalg as sl\n"
    "L, Y, P = M[0], M[1], M[2][0]\n"
    "kappa, ss, sn = P\n"
    "n, d = Y.shape\n"
    "def covariances():\n"
    "    for nu in (1.0, 2.5):\n"
    "        yield ss * np.real(sl.fractional_matrix_power(2 * nu / kappa**2 * np.eye(n) + L, -nu))\n"
    "    yield ss * sl.expm(-kappa**2 / 2 * L)\n";

TEST(GraphGpCovariance, MaternAndHeatAreSymmetricPositiveDefiniteAndEqualDenseMatrixFunctions) {
  const Communicator comm;
  const Matrix L = small_laplacian(comm);
  const GraphSpectrum spectrum = graph_spectrum(L);
  GraphGpHyperparameters noiseless = kHyper;
  noiseless.noise_variance = 0.0;
  // Matern-1 without the eigendecomposition: sigma_s^2 (L + 2/kappa^2 I)^-1.
  const Matrix direct =
      kHyper.signal_variance *
      (L + 2.0 / (kHyper.kappa * kHyper.kappa) * Matrix::Identity(kSmallN, kSmallN)).inverse();
  const Matrix matern1 = graph_gp_covariance(spectrum, kernels()[0], noiseless, false, false);
  EXPECT_LT((matern1 - direct).cwiseAbs().maxCoeff(), 1e-12 * direct.cwiseAbs().maxCoeff());

  const Matrix parameters{{kHyper.kappa, kHyper.signal_variance, 0.0}};
  const std::vector<double> scipy = python_on_root(
      std::string(kScipyCovariances) +
          "for K in covariances():\n"
          "    print(np.linalg.eigvalsh((K + K.T) / 2).min(), ' '.join(map(repr, K.ravel().tolist())))\n",
      {L, Matrix::Zero(kSmallN, 1), parameters}, 3 * (1 + kSmallN * kSmallN), comm);
  for (std::size_t k = 0; k < kernels().size(); ++k) {
    for (bool normalise : {false, true}) {
      const Matrix c = graph_gp_covariance(spectrum, kernels()[k], noiseless, normalise, false);
      const double smallest = Eigen::SelfAdjointEigenSolver<Matrix>(c).eigenvalues().minCoeff();
      EXPECT_GT(smallest, 0.0) << name(kernels()[k]);
      EXPECT_LT((c - c.transpose()).cwiseAbs().maxCoeff(), 1e-14 * c.cwiseAbs().maxCoeff());
      if (normalise) {
        EXPECT_LT((c.diagonal().array() - kHyper.signal_variance).abs().maxCoeff(), 1e-13);
      }
      if (comm.rank() == 0)
        std::printf("[ measured ] %s%s: smallest eigenvalue %.3e\n", name(kernels()[k]).c_str(),
                    normalise ? " normalised" : "", smallest);
    }
    if (scipy.empty()) continue;
    const double* at = scipy.data() + k * (1 + kSmallN * kSmallN);
    const Matrix reference = Eigen::Map<const RowMatrix>(at + 1, kSmallN, kSmallN);
    const Matrix c = graph_gp_covariance(spectrum, kernels()[k], noiseless, false, false);
    const double difference = (c - reference).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
    EXPECT_GT(at[0], 0.0) << "SciPy's smallest eigenvalue, " << name(kernels()[k]);
    EXPECT_LT(difference, 1e-10) << name(kernels()[k]);
    if (comm.rank() == 0)
      std::printf("[ measured ] %s: max |C - SciPy| / max |C| = %.2e\n", name(kernels()[k]).c_str(),
                  difference);
  }
  if (scipy.empty()) GTEST_SKIP() << "no Python with SciPy (the Eigen checks ran)";
}

// Every rank holds the same random Y (n x d) and passes its rows.
Matrix random_y(Index n, Index d, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  Matrix y(n, d);
  for (Index j = 0; j < d; ++j)
    for (Index i = 0; i < n; ++i) y(i, j) = normal(engine);
  return y;
}

Matrix local_rows(const Matrix& all, const Communicator& comm) {
  return Matrix(testing::local_block(RowMatrix(all), comm));
}

TEST(GraphGpMarginal, EigenRouteEqualsDenseCholeskyAndTheSerialProduct) {
  const Communicator comm;
  const Matrix L = small_laplacian(comm);
  const GraphSpectrum spectrum = graph_spectrum(L);
  const Matrix y = random_y(kSmallN, 4, 5);
  const Matrix parameters{{kHyper.kappa, kHyper.signal_variance, kHyper.noise_variance}};
  const std::vector<double> scipy = python_on_root(std::string(kScipyCovariances) +
                                                       "for K in covariances():\n"
                                                       "    C = (K + K.T) / 2 + sn * np.eye(n)\n"
                                                       "    c = sl.cho_factor(C, lower=True)\n"
                                                       "    logdet = 2 * np.log(np.diag(c[0])).sum()\n"
                                                       "    print(repr(-n * d / 2 * np.log(2 * np.pi) - d / "
                                                       "2 * logdet - np.sum(Y * sl.cho_solve(c, Y)) / 2))\n",
                                                   {L, y, parameters}, 3, comm);
  for (std::size_t k = 0; k < kernels().size(); ++k) {
    // Distributed: Q^T Y from each rank's rows and one allreduce; serial: the whole product here.
    const GraphGpMarginal distributed = graph_gp_marginal(spectrum, local_rows(y, comm), kernels()[k], comm);
    const Matrix projected = spectrum.vectors.transpose() * y;
    const GraphGpMarginal serial(spectrum.eigenvalues, projected.rowwise().squaredNorm(), 4, kernels()[k]);
    const double value = distributed.evaluate(kHyper).log_marginal;
    EXPECT_LT(std::abs(value - serial.evaluate(kHyper).log_marginal), 1e-12 * std::abs(value));
    if (scipy.empty()) continue;
    const double difference = std::abs(value - scipy[k]) / std::abs(scipy[k]);
    EXPECT_LT(difference, 1e-10) << name(kernels()[k]);
    if (comm.rank() == 0)
      std::printf("[ measured ] %s: log p %.10f, relative difference to SciPy's Cholesky %.2e\n",
                  name(kernels()[k]).c_str(), value, difference);
  }
  if (scipy.empty()) GTEST_SKIP() << "no Python with SciPy (the serial comparison ran)";
}

TEST(GraphGpMarginal, GradientMatchesCentralDifferences) {
  const Communicator comm;
  const GraphSpectrum spectrum = graph_spectrum(small_laplacian(comm));
  const Matrix y = random_y(kSmallN, 4, 6);
  constexpr double kStep = 1e-5;
  for (const GraphKernel& kernel : kernels()) {
    const GraphGpMarginal marginal = graph_gp_marginal(spectrum, local_rows(y, comm), kernel, comm);
    const Vector theta = to_log_parameters(kHyper);
    const Vector analytic = marginal.evaluate(kHyper).d_log_parameters;
    double worst = 0.0;
    for (Index a = 0; a < 3; ++a) {
      Vector up = theta, down = theta;
      up[a] += kStep;
      down[a] -= kStep;
      const double fd = (marginal.evaluate(from_log_parameters(up)).log_marginal -
                         marginal.evaluate(from_log_parameters(down)).log_marginal) /
                        (2 * kStep);
      const double error = std::abs(fd - analytic[a]) / std::max(std::abs(analytic[a]), 1.0);
      EXPECT_LT(error, 1e-6) << name(kernel) << ", parameter " << a;
      worst = std::max(worst, error);
    }
    if (comm.rank() == 0)
      std::printf("[ measured ] %s: gradient (%.4f, %.4f, %.4f), worst relative FD error %.2e\n",
                  name(kernel).c_str(), analytic[0], analytic[1], analytic[2], worst);
  }
}

std::vector<Index> every_fourth(Index n, bool take) {
  std::vector<Index> out;
  for (Index i = 0; i < n; ++i)
    if ((i % 4 == 0) == take) out.push_back(i);
  return out;
}

Matrix rows_of(const Matrix& m, const std::vector<Index>& rows) {
  Matrix out(static_cast<Index>(rows.size()), m.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) out.row(static_cast<Index>(i)) = m.row(rows[i]);
  return out;
}

TEST(GraphGpPrediction, EqualsTheSchurComplementAndWithoutNoiseThePrecisionForm) {
  const Communicator comm;
  const Matrix L = small_laplacian(comm);
  const GraphSpectrum spectrum = graph_spectrum(L);
  const std::vector<Index> train = every_fourth(kSmallN, false), test = every_fourth(kSmallN, true);
  const Matrix y_train = rows_of(random_y(kSmallN, 3, 7), train);
  const GraphKernel matern1{GraphKernelKind::matern, 1.0};
  const GraphGpPrediction noisy = predict_graph_gp(spectrum, matern1, kHyper, false, train, test, y_train);

  // NumPy's Schur complement of sigma_s^2 (L + 2/kappa^2 I)^-1 with the noise on the training block.
  Matrix indices(2, kSmallN);
  indices.setConstant(-1.0);
  for (std::size_t i = 0; i < train.size(); ++i)
    indices(0, static_cast<Index>(i)) = static_cast<double>(train[i]);
  for (std::size_t i = 0; i < test.size(); ++i)
    indices(1, static_cast<Index>(i)) = static_cast<double>(test[i]);
  const Matrix parameters{{kHyper.kappa, kHyper.signal_variance, kHyper.noise_variance}};
  const Index count = static_cast<Index>(test.size()) * (y_train.cols() + 1);
  const std::vector<double> numpy = python_on_root(
      "L, I, P, Yr = M[0], M[1], M[2][0], M[3]\n"
      "r = I[0][I[0] >= 0].astype(int); t = I[1][I[1] >= 0].astype(int)\n"
      "K = P[1] * np.linalg.inv(L + 2 / P[0]**2 * np.eye(len(L)))\n"
      "A = K[np.ix_(r, r)] + P[2] * np.eye(len(r))\n"
      "mean = K[np.ix_(t, r)] @ np.linalg.solve(A, Yr)\n"
      "var = np.diag(K[np.ix_(t, t)] - K[np.ix_(t, r)] @ np.linalg.solve(A, K[np.ix_(r, t)]))\n"
      "print(' '.join(map(repr, np.hstack([mean, var[:, None]]).ravel().tolist())))\n",
      {L, indices, parameters, y_train}, count, comm);
  if (!numpy.empty()) {
    const RowMatrix reference =
        Eigen::Map<const RowMatrix>(numpy.data(), static_cast<Index>(test.size()), y_train.cols() + 1);
    const double mean_error = (noisy.mean - reference.leftCols(y_train.cols())).cwiseAbs().maxCoeff() /
                              reference.leftCols(y_train.cols()).cwiseAbs().maxCoeff();
    const double variance_error =
        (noisy.variance - reference.rightCols(1)).cwiseAbs().maxCoeff() / reference.rightCols(1).maxCoeff();
    EXPECT_LT(mean_error, 1e-10);
    EXPECT_LT(variance_error, 1e-10);
    if (comm.rank() == 0)
      std::printf("[ measured ] noisy prediction vs NumPy: mean %.2e, variance %.2e (relative)\n", mean_error,
                  variance_error);
  }

  // Without noise the Matern-1 precision Q = (L + 2/kappa^2 I) / sigma_s^2 (sparse, as L) gives the
  // conditional mean -Q_tt^-1 Q_tr Y_r and variance diag(Q_tt^-1).
  GraphGpHyperparameters noiseless = kHyper;
  noiseless.noise_variance = 0.0;
  const GraphGpPrediction exact = predict_graph_gp(spectrum, matern1, noiseless, false, train, test, y_train);
  const Matrix Q =
      (L + 2.0 / (kHyper.kappa * kHyper.kappa) * Matrix::Identity(kSmallN, kSmallN)) / kHyper.signal_variance;
  Matrix q_tt(test.size(), test.size()), q_tr(test.size(), train.size());
  for (std::size_t i = 0; i < test.size(); ++i) {
    for (std::size_t j = 0; j < test.size(); ++j) q_tt(i, j) = Q(test[i], test[j]);
    for (std::size_t j = 0; j < train.size(); ++j) q_tr(i, j) = Q(test[i], train[j]);
  }
  const Eigen::LDLT<Matrix> q_tt_factor(q_tt);
  const Matrix precision_mean = -q_tt_factor.solve(q_tr * y_train);
  const Vector precision_variance = q_tt_factor.solve(Matrix::Identity(q_tt.rows(), q_tt.cols())).diagonal();
  const double mean_error =
      (exact.mean - precision_mean).cwiseAbs().maxCoeff() / precision_mean.cwiseAbs().maxCoeff();
  const double variance_error =
      (exact.variance - precision_variance).cwiseAbs().maxCoeff() / precision_variance.maxCoeff();
  EXPECT_EQ(exact.jitter, 0.0);
  EXPECT_LT(mean_error, 1e-9);
  EXPECT_LT(variance_error, 1e-9);
  if (comm.rank() == 0)
    std::printf("[ measured ] noiseless prediction vs the precision form: mean %.2e, variance %.2e\n",
                mean_error, variance_error);
  if (numpy.empty()) GTEST_SKIP() << "no Python with NumPy (the precision form ran)";
}

// A binary 8-NN graph of 400 points around a circle (noisy radius): a long cycle-like graph whose
// normalised Laplacian has eigenvalues spread over [0, about 1.3].
GraphSpectrum circle_spectrum(Index n, const Communicator& comm) {
  std::mt19937_64 engine(21);
  std::normal_distribution<double> normal;
  RowMatrix points(n, 2);
  for (Index i = 0; i < n; ++i) {
    const double angle = 2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n);
    const double radius = 1.0 + 0.01 * normal(engine);
    points.row(i) << radius * std::cos(angle), radius * std::sin(angle);
  }
  const SparseGraph graph = binary_knn_graph(testing::local_block(points, comm), 8, comm);
  return graph_spectrum(graph, LaplacianKind::symmetric, comm);
}

// Y = Q diag(v)^1/2 Z, Z standard normal: d columns drawn from N(0, C) exactly.
Matrix sample_from_model(const GraphSpectrum& spectrum, const GraphKernel& kernel,
                         const GraphGpHyperparameters& hyper, Index d, unsigned seed) {
  const Vector v =
      (hyper.signal_variance * spectral_values(kernel, hyper.kappa, spectrum.eigenvalues)).array() +
      hyper.noise_variance;
  return spectrum.vectors * v.cwiseSqrt().asDiagonal() * random_y(spectrum.size(), d, seed);
}

// The Fisher information of d columns of N(0, Q diag(v) Q^T) in the log parameters theta:
// d/2 sum_i (dlog v_i/dtheta_a)(dlog v_i/dtheta_b).
Matrix fisher_information(const GraphSpectrum& spectrum, const GraphKernel& kernel,
                          const GraphGpHyperparameters& hyper, Index d) {
  const Vector s = spectral_values(kernel, hyper.kappa, spectrum.eigenvalues);
  const Vector v = (hyper.signal_variance * s).array() + hyper.noise_variance;
  Matrix jacobian(spectrum.size(), 3);
  jacobian.col(0) = hyper.signal_variance *
                    spectral_log_kappa_derivative(kernel, hyper.kappa, spectrum.eigenvalues).cwiseQuotient(v);
  jacobian.col(1) = hyper.signal_variance * s.cwiseQuotient(v);
  jacobian.col(2) = hyper.noise_variance * v.cwiseInverse();
  return 0.5 * static_cast<double>(d) * jacobian.transpose() * jacobian;
}

TEST(GraphGpFit, RecoversTheHyperparametersOfDataSampledFromTheModel) {
  const Communicator comm;
  constexpr Index kN = 400, kColumns = 40;
  const GraphSpectrum spectrum = circle_spectrum(kN, comm);
  const std::vector<std::pair<GraphKernel, GraphGpHyperparameters>> cases = {
      {{GraphKernelKind::matern, 1.0}, {4.0, 1.0, 0.5}},
      {{GraphKernelKind::matern, 2.5}, {3.0, 0.5, 0.05}},
      {{GraphKernelKind::heat, 1.0}, {3.0, 2.0, 0.1}}};
  // Each case keeps the smallest signal variance sigma_s^2 s(lambda_max) near the noise, so that the
  // spectrum's tail identifies sigma_n^2 (standard errors 0.01-0.22 in log): with the noise far
  // below the signal everywhere, sigma_n^2 is barely determined (a standard error above 1).
  unsigned seed = 31;
  for (const auto& [kernel, truth] : cases) {
    const Matrix y = sample_from_model(spectrum, kernel, truth, kColumns, seed++);
    const GraphGpMarginal marginal = graph_gp_marginal(spectrum, local_rows(y, comm), kernel, comm);
    const GraphGpFit fit = fit_graph_gp(marginal, comm);
    EXPECT_TRUE(fit.converged) << name(kernel) << ": " << to_string(fit.reason);
    // The maximum likelihood is at least the likelihood of the truth, and a fit started there finds
    // the same maximum (not another local one).
    EXPECT_GE(fit.at_optimum.log_marginal, marginal.evaluate(truth).log_marginal);
    GraphGpFitOptions from_truth;
    from_truth.start = truth;
    const Vector other = to_log_parameters(fit_graph_gp(marginal, comm, from_truth).hyper);
    EXPECT_LT((other - to_log_parameters(fit.hyper)).cwiseAbs().maxCoeff(), 1e-4) << name(kernel);
    const Vector error = to_log_parameters(fit.hyper) - to_log_parameters(truth);
    const Matrix fisher = fisher_information(spectrum, kernel, truth, kColumns);
    const Vector se = fisher.inverse().diagonal().cwiseSqrt();  // asymptotic standard errors
    // Jointly: (theta_hat - theta)^T I (theta_hat - theta) is asymptotically chi-squared with 3
    // degrees of freedom, whose 0.9999 quantile is 21.1.
    const double mahalanobis = error.dot(fisher * error);
    EXPECT_LT(mahalanobis, 21.1) << name(kernel);
    // Four standard errors: a false failure has probability about 2e-4 per parameter, and the
    // errors are small enough (below 0.25 in log) for the recovery to mean something.
    for (Index a = 0; a < 3; ++a) {
      EXPECT_LT(std::abs(error[a]), 4 * se[a]) << name(kernel) << ", log parameter " << a;
      EXPECT_LT(se[a], 0.25) << name(kernel) << ", log parameter " << a;
    }
    if (comm.rank() == 0)
      std::printf(
          "[ measured ] %s: %d iterations; kappa %.4f (true %.2f), sigma_s^2 %.4f (%.2f), sigma_n^2 %.5f "
          "(%.2f); "
          "log errors (%.3f, %.3f, %.3f), standard errors (%.3f, %.3f, %.3f), chi-squared %.2f\n",
          name(kernel).c_str(), fit.iterations, fit.hyper.kappa, truth.kappa, fit.hyper.signal_variance,
          truth.signal_variance, fit.hyper.noise_variance, truth.noise_variance, error[0], error[1], error[2],
          se[0], se[1], se[2], mahalanobis);
  }
}

TEST(GraphGpInputs, BadInputsAreRefusedNamingTheirKey) {
  const Communicator comm;
  EXPECT_EQ(testing::input_error_of([] { parse_graph_kernel("rbf"); }).key, kGraphGpKernelKey);
  EXPECT_EQ(testing::input_error_of([] {
              require_valid(GraphKernel{GraphKernelKind::matern, 0.0});
            }).key,
            kGraphGpSmoothnessKey);
  EXPECT_EQ(testing::input_error_of([] {
              require_valid(GraphGpHyperparameters{-1.0, 1.0, 0.1});
            }).key,
            kGraphGpLengthscaleKey);
  EXPECT_EQ(testing::input_error_of([] {
              require_valid(GraphGpHyperparameters{1.0, 1.0, -0.1});
            }).key,
            kGraphGpNoiseKey);
  EXPECT_EQ(testing::input_error_of([] { graph_spectrum(Matrix{{1.0, 0.5}, {0.0, 1.0}}); }).key, "laplacian");
  EXPECT_EQ(testing::input_error_of([] {
              graph_spectrum(Matrix{{-1.0, 0.0}, {0.0, 1.0}});
            }).key,
            "laplacian");
  const Matrix L = small_laplacian(comm);
  const GraphSpectrum spectrum = graph_spectrum(L);
  // One row too many on rank 0 only: every rank throws.
  const Index extra = comm.rank() == 0 ? 1 : 0;
  const Matrix y = Matrix::Zero(local_rows(random_y(kSmallN, 2, 1), comm).rows() + extra, 2);
  EXPECT_EQ(testing::input_error_of([&] { project_onto_spectrum(spectrum, y, comm); }).key, "y");
  const RowMatrix points = testing::gaussian_rows(kSmallN, 3, 11);
  const SparseGraph graph = binary_knn_graph(testing::local_block(points, comm), 6, comm);
  EXPECT_EQ(testing::input_error_of([&] { graph_spectrum(graph, LaplacianKind::random_walk, comm); }).key,
            "graph.laplacian");
  const GraphKernel matern1{GraphKernelKind::matern, 1.0};
  EXPECT_EQ(testing::input_error_of([&] {
              predict_graph_gp(spectrum, matern1, kHyper, false, {0, 1, 2}, {2, 3}, Matrix::Zero(3, 1));
            }).key,
            "test");
  EXPECT_EQ(testing::input_error_of([&] {
              predict_graph_gp(spectrum, matern1, kHyper, false, {0, 1, 2}, {3}, Matrix::Zero(2, 1));
            }).key,
            "y_train");
  const GraphGpMarginal marginal(spectrum.eigenvalues, Vector::Ones(kSmallN), 1,
                                 GraphKernel{GraphKernelKind::heat});
  EXPECT_EQ(testing::input_error_of([&] { marginal.evaluate({1.0, 0.0, 0.0}); }).key, kGraphGpNoiseKey);
}

}  // namespace

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace gplvm
