// The sparse and Bayesian hGP-LVM (SparseGplvmModel on model.latent_space = "lorentz") in one
// process: the bounds' derivatives along exponential-map curves of the latents, of the means and of
// Z against central finite differences, the Euclidean blocks (kernel, noise, q(u), log s) likewise;
// the collapsed bound at M = N, Z = X against the exact GP log marginal likelihood computed here;
// the Bayesian bound's s -> 0 limit; the KL modes against NumPy; refusals by key.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include <cmath>
#include <numeric>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/objectives/inducing_jitter.hpp"
#include "gplvm/objectives/wrapped_psi.hpp"
#include "support/lorentz_points.hpp"
#include "support/python_reference.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::derivative_along;
using testing::relative_error;

constexpr Index kRows = 20, kDim = 4, kInducing = 6, kQ = 2;

SparseGplvmConfig lorentz_config(bool bayesian, KlMode kl_mode = KlMode::exact) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = kQ;
  c.bayesian = bayesian;
  c.latents = LatentKind::free;
  c.latent_space = "lorentz";
  c.decoder.kernel = "hyperboloid_exp";
  c.decoder.init.variance = 1.3;
  c.decoder.init.lengthscale = 2.0;  // kappa
  c.decoder.noise_variance = 0.2;
  c.free_latent_variance = 0.05;
  c.num_inducing = kInducing;
  c.inducing_init = InducingInit::random;
  c.psi_samples = 3;
  c.kl_mode = kl_mode;
  c.seed = 5;
  return c;
}

struct Fixture {
  Communicator comm{MPI_COMM_SELF};
  RowPartition partition{kRows, 1};
  RowMatrix Y = testing::random_normal(kRows, kDim, 21);
  SparseGplvmModel model;
  Vector params;
  explicit Fixture(const SparseGplvmConfig& c) : model(c, kRows, 0, kRows) {
    model.initialise_from_data(comm, partition, DataRef(Y));
    params = model.initial_parameters();
    // Z off the latents (the kernel's cusp at coincident points has no derivative), hyperparameters
    // and q(u) moved off their start.
    set_inducing(testing::random_lorentz_points(kInducing, kQ, 31, 0.8));
    params.segment(model.kernel_offset(), model.encoder_offset() - model.kernel_offset()) +=
        0.05 * testing::random_normal(model.encoder_offset() - model.kernel_offset(), 1, 3);
  }
  void set_inducing(const Matrix& Z) { Eigen::Map<Matrix>(params.data(), kInducing, kQ + 1) = Z; }
  Matrix points(const Vector& p) const { return model.local_block_rows(p).leftCols(kQ + 1); }
  Vector with_points(Vector p, const Matrix& X) const {
    RowMatrix rows = model.local_block_rows(p);
    rows.leftCols(kQ + 1) = X;
    model.set_local_block_rows(p, rows);
    return p;
  }
  Vector with_inducing(Vector p, const Matrix& Z) const {
    Eigen::Map<Matrix>(p.data(), kInducing, kQ + 1) = Z;
    return p;
  }
};

// Evaluates one bound of the model at p (the minibatch step's uncollapsed bound on a batch, or the
// collapsed bound over every row).
struct Bound {
  const Fixture& f;
  SparseGplvmModel::Bound kind;
  std::vector<Index> rows;
  double scale;
  double operator()(const Vector& p, Vector& gradient) const {
    RowMatrix data(static_cast<Index>(rows.size()), kDim);
    for (std::size_t i = 0; i < rows.size(); ++i) data.row(static_cast<Index>(i)) = f.Y.row(rows[i]);
    return f.model.evaluate_rows(f.comm, p, rows, DataRef(data), scale, kind, gradient, {3, 7}).objective;
  }
  double operator()(const Vector& p) const {
    Vector g;
    return (*this)(p, g);
  }
};

Bound minibatch_bound(const Fixture& f) {
  std::vector<Index> rows(8);
  std::iota(rows.begin(), rows.end(), 5);
  return {f, SparseGplvmModel::Bound::uncollapsed, rows, static_cast<double>(kRows) / 8.0};
}

Bound collapsed_bound_of(const Fixture& f) {
  std::vector<Index> rows(kRows);
  std::iota(rows.begin(), rows.end(), 0);
  return {f, SparseGplvmModel::Bound::collapsed, rows, 1.0};
}

// The ambient gradient's pairing with tangent fields Xi (rows) against the derivative along
// Exp_X(t Xi): for the latents (local block) and for Z.
void expect_point_derivatives(const Fixture& f, const Bound& bound) {
  Vector gradient;
  bound(f.params, gradient);
  const Matrix X = f.points(f.params), dX = f.points(gradient);
  const Matrix Xi = testing::random_tangents(X, 41);
  const double along_x =
      derivative_along([&](const Matrix& Y) { return bound(f.with_points(f.params, Y)); }, X, Xi);
  EXPECT_LT(relative_error(dX.cwiseProduct(Xi).sum(), along_x), 1e-6) << along_x;
  // One row alone, so that a wrong row is not hidden by the sum.
  Matrix one = Matrix::Zero(Xi.rows(), Xi.cols());
  one.row(bound.rows[2]) = Xi.row(bound.rows[2]);
  const double along_one =
      derivative_along([&](const Matrix& Y) { return bound(f.with_points(f.params, Y)); }, X, one);
  EXPECT_LT(relative_error(dX.cwiseProduct(one).sum(), along_one), 1e-6) << along_one;

  const Matrix Z = Eigen::Map<const Matrix>(f.params.data(), kInducing, kQ + 1);
  const Matrix dZ = Eigen::Map<const Matrix>(gradient.data(), kInducing, kQ + 1);
  const Matrix Zeta = testing::random_tangents(Z, 43);
  const double along_z =
      derivative_along([&](const Matrix& W) { return bound(f.with_inducing(f.params, W)); }, Z, Zeta);
  EXPECT_LT(relative_error(dZ.cwiseProduct(Zeta).sum(), along_z), 1e-6) << along_z;
}

// Euclidean entries: [begin, end) of the flat vector by central differences.
void expect_block_gradient(const Fixture& f, const Bound& bound, IndexRange block, const std::string& name) {
  Vector gradient;
  bound(f.params, gradient);
  const Index n = block.end - block.begin;
  Vector fd(n);
  for (Index i = 0; i < n; ++i) {
    const double h = 1e-5;
    Vector up = f.params, down = f.params;
    up[block.begin + i] += h;
    down[block.begin + i] -= h;
    fd[i] = (bound(up) - bound(down)) / (2 * h);
  }
  EXPECT_LT(testing::max_relative_error(gradient.segment(block.begin, n), fd, 1e-8), 1e-6) << name;
}

TEST(LorentzSparseGplvm, BoundsDifferentiateAlongExpMapCurvesOfLatentsAndInducingInputs) {
  const Fixture f(lorentz_config(false));
  for (const Bound& bound : {minibatch_bound(f), collapsed_bound_of(f)}) {
    expect_point_derivatives(f, bound);
    expect_block_gradient(f, bound, {f.model.kernel_offset(), f.model.noise_offset() + 1},
                          "kernel and noise");
  }
  expect_block_gradient(f, minibatch_bound(f), {f.model.posterior_offset(), f.model.encoder_offset()},
                        "q(u)");
}

TEST(LorentzSparseGplvm, PointsAndInducingInputsStartOnTheSheetAsASubsetOfTheLatents) {
  const Fixture f(lorentz_config(false));
  const Vector p = f.model.initial_parameters();
  const Matrix X = f.points(p), Z = f.model.inducing_inputs(p);
  EXPECT_LT(lorentz::max_sheet_deviation(X), 1e-12);
  ASSERT_EQ(Z.cols(), kQ + 1);
  for (Index k = 0; k < Z.rows(); ++k) {
    Index matches = 0;
    for (Index n = 0; n < X.rows(); ++n) matches += (X.row(n) == Z.row(k)) ? 1 : 0;
    EXPECT_EQ(matches, 1) << "inducing input " << k << " is not one of the initial latents";
  }
  EXPECT_EQ(f.model.curved_point_space()->name(), "lorentz");
  EXPECT_EQ(f.model.curved_shared_points().rows, kInducing);
  EXPECT_EQ(f.model.local_values_per_row(), kQ + 1);
}

// The in-place view an optimiser moves the points through is the points' block of local_block_rows.
TEST(LorentzSparseGplvm, LocalPointsOffsetViewsThePointColumnsOfTheLocalBlock) {
  for (const bool bayesian : {false, true}) {
    const Fixture f(lorentz_config(bayesian));
    Vector p = f.model.initial_parameters();
    p.tail(p.size() - f.model.num_shared_parameters()) =
        testing::random_normal(p.size() - f.model.num_shared_parameters(), 1, 9);
    const Eigen::Map<const RowMatrix> view(p.data() + f.model.curved_local_points_offset(), kRows, kQ + 1);
    EXPECT_EQ(Matrix(view), Matrix(f.model.local_block_rows(p).leftCols(kQ + 1)));
  }
}

// With M = N inducing inputs at the latents the collapsed bound is, but for K_ZZ's relative jitter e
// (objectives/inducing_jitter.hpp), the exact GP log marginal likelihood. Computed here densely from
// K = k(X, X): Q = K (K + e mean(diag K) I)^{-1} K, log N(Y | 0, Q + s2 I) - D/(2 s2) tr(K - Q); with
// e = 0 this is the exact log marginal (Q = K).
TEST(LorentzSparseGplvm, CollapsedBoundAtInducingInputsEqualToTheLatentsIsTheDenseTitsiasBound) {
  SparseGplvmConfig c = lorentz_config(false);
  c.num_inducing = kRows;
  Communicator comm{MPI_COMM_SELF};
  const RowMatrix Y = testing::random_normal(kRows, kDim, 22);
  const SparseGplvmModel model(c, kRows, 0, kRows);
  Vector p = model.initial_parameters();
  const Matrix X = testing::random_lorentz_points(kRows, kQ, 51, 1.5);
  RowMatrix rows = model.local_block_rows(p);
  rows.leftCols(kQ + 1) = X;
  model.set_local_block_rows(p, rows);
  Eigen::Map<Matrix>(p.data(), kRows, kQ + 1) = X;
  std::vector<Index> all(kRows);
  std::iota(all.begin(), all.end(), 0);
  Vector g;
  const double bound =
      model.evaluate_rows(comm, p, all, DataRef(Y), 1.0, SparseGplvmModel::Bound::collapsed, g).objective;

  // k(x, x') = sigma exp(-d / kappa), d = arccosh(-<x, x'>_L), written out independently.
  const double sigma = std::exp(p[model.kernel_offset()]), kappa = std::exp(p[model.kernel_offset() + 1]);
  const double noise = model.noise_variance(p);
  Matrix K(kRows, kRows);
  for (Index i = 0; i < kRows; ++i)
    for (Index j = 0; j < kRows; ++j) {
      const double u = X(i, 0) * X(j, 0) - X(i, 1) * X(j, 1) - X(i, 2) * X(j, 2);
      K(i, j) = sigma * std::exp(-std::acosh(std::max(u, 1.0)) / kappa);
    }
  Matrix K_jittered = K;
  K_jittered.diagonal().array() += kInducingRelativeJitter * K.trace() / kRows;
  Matrix C = K * Eigen::LLT<Matrix>(K_jittered).solve(K);  // Q
  const double trace_gap = (K - C).trace();
  C.diagonal().array() += noise;
  const Eigen::LLT<Matrix> llt(C);
  const Matrix alpha = llt.solve(Matrix(Y));
  const double log_det = 2.0 * Matrix(llt.matrixL()).diagonal().array().log().sum();
  const double dense = -0.5 * kRows * kDim * std::log(2 * M_PI) - 0.5 * kDim * log_det -
                       0.5 * (Matrix(Y).cwiseProduct(alpha)).sum() - 0.5 * kDim / noise * trace_gap;
  EXPECT_NEAR(bound, dense, 1e-8 * std::abs(dense));
}

TEST(LorentzSparseGplvm, RefusesAmortisedLatentsKmeansAndMisplacedActiveSetsByKey) {
  auto expect_refused = [](SparseGplvmConfig c, const std::string& key) {
    try {
      SparseGplvmModel(c, kRows, 0, kRows);
      ADD_FAILURE() << "accepted a configuration that " << key << " must refuse";
    } catch (const InputError& e) {
      EXPECT_EQ(e.context().key, key) << e.what();
    }
  };
  SparseGplvmConfig c = lorentz_config(false);
  c.latents = LatentKind::amortised;
  expect_refused(c, "model.latents");
  c = lorentz_config(true);
  c.training = SparseTraining::full_batch;
  SparseGplvmModel(c, kRows, 0, kRows);  // full batch is trained on the sheet
  c.psi_noise = PsiNoise::fresh;         // a draw per iteration, shared by the values compared
  SparseGplvmModel(c, kRows, 0, kRows);
  c = lorentz_config(false);
  c.training = SparseTraining::full_batch;
  c.active_set_refresh = -1;
  expect_refused(c, "sparse.active_set_refresh");
  c.active_set_refresh = 5;
  SparseGplvmModel(c, kRows, 0, kRows);
  c.training = SparseTraining::minibatch;  // redrawn between minibatch steps too
  SparseGplvmModel(c, kRows, 0, kRows);
  c.training = SparseTraining::full_batch;
  c.latent_space = "euclidean";  // L-BFGS has no refresh
  c.decoder.kernel = "eq_ard";
  expect_refused(c, "sparse.active_set_refresh");
  c = lorentz_config(false);
  c.inducing_init = InducingInit::kmeans;
  expect_refused(c, "sparse.inducing_init");
  c = lorentz_config(false);
  c.decoder.kernel = "eq_ard";
  expect_refused(c, "model.kernel");
}

// The Bayesian hGP-LVM with the noise fixed: the ELBO's derivatives along exp-map curves of the
// means and of Z, and in log s, the kernel's and noise's log-parameters and q(u), by finite
// differences, for both KL modes and the exact KL's control variate.
TEST(LorentzBayesianGplvm, ElboDifferentiatesInMeansLogVariancesZAndHyperparameters) {
  for (const KlMode mode : {KlMode::exact, KlMode::paper, KlMode::exact_control_variate}) {
    SCOPED_TRACE(mode == KlMode::exact ? "exact" : mode == KlMode::paper ? "paper" : "control variate");
    Fixture f(lorentz_config(true, mode));
    // Spread the variances, so that each log s entry matters on its own.
    RowMatrix rows = f.model.local_block_rows(f.params);
    rows.rightCols(kQ) += 0.5 * testing::random_normal(kRows, kQ, 61);
    f.model.set_local_block_rows(f.params, rows);
    for (const Bound& bound : {minibatch_bound(f), collapsed_bound_of(f)}) {
      expect_point_derivatives(f, bound);
      expect_block_gradient(f, bound, {f.model.kernel_offset(), f.model.noise_offset() + 1}, "kernel, noise");
      const Index log_s = f.model.num_shared_parameters() + kRows * (kQ + 1);
      expect_block_gradient(f, bound, {log_s, log_s + kRows * kQ}, "log s");
    }
    expect_block_gradient(f, minibatch_bound(f), {f.model.posterior_offset(), f.model.encoder_offset()},
                          "q(u)");
  }
}

// s -> 0: every sample is the mean, so the Psi-statistics are the points' and the ELBO's data term
// (bound + KL) is the sparse hGP-LVM's bound at the means.
TEST(LorentzBayesianGplvm, DataTermTendsToTheSparseBoundAsTheVariancesVanish) {
  Fixture bayes(lorentz_config(true));
  Fixture sparse(lorentz_config(false));
  sparse.params.head(sparse.model.num_shared_parameters()) =
      bayes.params.head(bayes.model.num_shared_parameters());
  sparse.params = sparse.with_points(sparse.params, bayes.points(bayes.params));
  const double point = collapsed_bound_of(sparse)(sparse.params);
  for (const double s : {1e-6, 1e-10}) {
    RowMatrix rows = bayes.model.local_block_rows(bayes.params);
    rows.rightCols(kQ).setConstant(std::log(s));
    bayes.model.set_local_block_rows(bayes.params, rows);
    const Bound b = collapsed_bound_of(bayes);
    RowMatrix data = bayes.Y;
    Vector g;
    const BatchTerms terms = bayes.model.evaluate_rows(bayes.comm, bayes.params, b.rows, DataRef(data), 1.0,
                                                       SparseGplvmModel::Bound::collapsed, g, {});
    // The gap is first order in the samples' distance from the mean, sqrt(s).
    EXPECT_LT(std::abs(terms.sas - point), 50.0 * std::sqrt(s) * std::abs(point)) << s;
  }
}

// Both KL modes against NumPy, from the same mu, s and noise: the wrapped normal's log density by
// the change of variables (log N(v) - (Q - 1) log(sinh r / r)) and the prior's closed form at the
// sample (exact), and the tangent Gaussians' log ratio (paper).
TEST(LorentzBayesianGplvm, KlModesMatchNumPyMonteCarloReferences) {
  const Index n = 5, samples = 4;
  const LorentzLatentSpace space(kQ);
  const Matrix mu = testing::random_lorentz_points(n, kQ, 71, 1.2);
  const Matrix s = (0.3 * testing::random_normal(n, kQ, 72)).array().exp().matrix() * 0.4;
  const Matrix eps = testing::random_normal(n, samples * kQ, 73);
  const Vector exact = wrapped_rows_kl(space, mu, s, eps, KlMode::exact);
  const Vector paper = wrapped_rows_kl(space, mu, s, eps, KlMode::paper);
  const std::string script = R"(
mu, s, eps = M
Q = s.shape[1]; L = eps.shape[1] // Q
def mdot(a, b): return -a[0] * b[0] + a[1:] @ b[1:]
def logsinhc(r): return np.log(np.sinh(r) / r) if r > 1e-8 else r * r / 6
out = []
for n in range(mu.shape[0]):
    m = mu[n]; ex = 0.0; pa = 0.0
    for h in range(L):
        v = np.sqrt(s[n]) * eps[n, h * Q:(h + 1) * Q]
        # transport (0, v) from the origin to m, then exp at m
        o = np.zeros(Q + 1); o[0] = 1
        w = np.concatenate([[0.0], v])
        u = w + mdot(m - (-mdot(o, m)) * o, w) / (-mdot(o, m) + 1) * (o + m)
        r = np.sqrt(max(mdot(u, u), 0.0))
        x = np.cosh(r) * m + (np.sinh(r) / r) * u
        logq = -0.5 * Q * np.log(2 * np.pi) - 0.5 * np.sum(np.log(s[n])) - 0.5 * np.sum(v * v / s[n]) \
               - (Q - 1) * logsinhc(np.linalg.norm(v))
        rp = np.arccosh(x[0])
        logp = -0.5 * Q * np.log(2 * np.pi) - 0.5 * rp * rp - (Q - 1) * logsinhc(rp)
        ex += logq - logp
        pa += -0.5 * np.sum(np.log(s[n])) - 0.5 * np.sum(v * v / s[n]) + 0.5 * np.sum(v * v)
    out += [ex / L, pa / L]
print(" ".join(repr(float(v)) for v in out))
)";
  const std::vector<double> ref = testing::python_reference(script, {mu, s, eps});
  if (ref.size() != static_cast<std::size_t>(2 * n)) GTEST_SKIP() << "python3 with numpy is not available";
  for (Index i = 0; i < n; ++i) {
    EXPECT_NEAR(exact[i], ref[2 * i], 1e-10 * (1 + std::abs(ref[2 * i]))) << i;
    EXPECT_NEAR(paper[i], ref[2 * i + 1], 1e-10 * (1 + std::abs(ref[2 * i + 1]))) << i;
  }
}

// The estimates' means: paper mode is the tangent Gaussians' KL 1/2 sum (s - 1 - log s) whatever mu
// is; exact mode at mu = o, s = 1 (q = p) is 0 sample by sample, and positive on average elsewhere.
TEST(LorentzBayesianGplvm, KlEstimatesHaveTheirClosedFormMeans) {
  const Index samples = 20000;
  const LorentzLatentSpace space(kQ);
  const Matrix eps = testing::random_normal(1, samples * kQ, 81);
  Matrix s(1, kQ);
  s << 0.3, 2.0;
  const double closed = 0.5 * (s.array() - 1.0 - s.array().log()).sum();
  const Matrix far = testing::random_lorentz_points(1, kQ, 82, 2.0);
  const double paper = wrapped_rows_kl(space, far, s, eps, KlMode::paper)[0];
  // Its standard error: the per-sample terms' standard deviation is sqrt(sum (s - 1)^2 / 2) here.
  const double error = std::sqrt(0.5 * (s.array() - 1.0).square().sum() / samples);
  EXPECT_NEAR(paper, closed, 4 * error);
  const Matrix o = testing::random_lorentz_points(1, kQ, 83, 0.0);
  EXPECT_NEAR(wrapped_rows_kl(space, o, Matrix::Ones(1, kQ), eps.leftCols(20 * kQ), KlMode::exact)[0], 0.0,
              1e-12);
  EXPECT_GT(wrapped_rows_kl(space, far, s, eps, KlMode::exact)[0], 0.0);
}

// The exact KL's control variate keeps the estimate's expectation: its mean over 20,000 draws
// against a NumPy Monte Carlo mean of the plain estimate log q(x) - log p(x) over 400,000 samples
// of its own (sampler and densities written there), within four standard errors, near the origin
// and far from it; and it lowers the per-sample spread (what is left is second order in the samples).
// The parse: control_variate only with the exact KL, refusals naming model.kl_estimator.
TEST(LorentzBayesianGplvm, KlControlVariateKeepsTheExpectationAndLowersTheSpread) {
  const Index samples = 20000;
  const LorentzLatentSpace space(kQ);
  Matrix mu(3, kQ + 1), s(3, kQ);
  mu.row(0) = lorentz::lift(Vector{{0.2, -0.1}}).transpose();
  mu.row(1) = lorentz::lift(Vector{{1.1, 0.6}}).transpose();
  mu.row(2) = lorentz::lift(Vector{{-2.5, 1.5}}).transpose();
  s << 0.3, 0.5, 0.05, 0.2, 0.6, 0.1;
  const Matrix eps = testing::random_normal(samples, kQ, 91);
  const std::string script = R"(
mu, s = M
Q = s.shape[1]; n = 400000
rng = np.random.default_rng(7)
def logsinhc(r): return np.log(np.sinh(r) / r)
out = []
for k in range(mu.shape[0]):
    m = mu[k]; v = rng.standard_normal((n, Q)) * np.sqrt(s[k])
    a = v @ m[1:]
    u = np.column_stack([a, v + (a / (m[0] + 1))[:, None] * m[1:]])
    r = np.linalg.norm(v, axis=1)
    x = np.cosh(r)[:, None] * m + (np.sinh(r) / r)[:, None] * u
    logq = -0.5 * Q * np.log(2 * np.pi) - 0.5 * np.sum(np.log(s[k])) - 0.5 * np.sum(v * v / s[k], axis=1) \
           - (Q - 1) * logsinhc(r)
    rp = np.arcsinh(np.linalg.norm(x[:, 1:], axis=1))
    logp = -0.5 * Q * np.log(2 * np.pi) - 0.5 * rp * rp - (Q - 1) * logsinhc(rp)
    kl = logq - logp
    out += [kl.mean(), kl.std() / np.sqrt(n)]
print(" ".join(repr(float(v)) for v in out))
)";
  const std::vector<double> ref = testing::python_reference(script, {mu, s});
  if (ref.size() != 6) GTEST_SKIP() << "python3 with numpy is not available";
  for (Index k = 0; k < 3; ++k) {
    SCOPED_TRACE("row " + std::to_string(k));
    // One sample per row of a replicated block: the per-sample estimates.
    const Matrix m = mu.row(k).replicate(samples, 1), v = s.row(k).replicate(samples, 1);
    const Vector plain = wrapped_rows_kl(space, m, v, eps, KlMode::exact);
    const Vector controlled = wrapped_rows_kl(space, m, v, eps, KlMode::exact_control_variate);
    const double mean = controlled.mean();
    const double spread = std::sqrt((controlled.array() - mean).square().sum() / (samples - 1));
    const double plain_spread = std::sqrt((plain.array() - plain.mean()).square().sum() / (samples - 1));
    const double error = std::hypot(spread / std::sqrt(double(samples)), ref[2 * k + 1]);
    EXPECT_NEAR(mean, ref[2 * k], 4 * error) << "plain mean " << plain.mean();
    // The control variate is minus the estimate's first-order term, uncorrelated with its even terms:
    // the spread falls a little near the origin (where the quadratic terms dominate) and by more than
    // half far from it (measured: 0.63 -> 0.60, 0.94 -> 0.85, 1.62 -> 0.64).
    EXPECT_LT(spread, plain_spread);
    if (k == 2) {
      EXPECT_LT(spread, 0.5 * plain_spread);
    }
  }
  EXPECT_EQ(parse_kl_mode("exact", "control_variate"), KlMode::exact_control_variate);
  EXPECT_EQ(parse_kl_mode("paper", "plain"), KlMode::paper);
  for (const auto& [mode, estimator] : {std::pair{"paper", "control_variate"}, std::pair{"exact", "cv"}}) {
    try {
      parse_kl_mode(mode, estimator);
      ADD_FAILURE() << mode << " " << estimator << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.context().key, "model.kl_estimator") << e.what();
    }
  }
}

}  // namespace
}  // namespace gplvm
