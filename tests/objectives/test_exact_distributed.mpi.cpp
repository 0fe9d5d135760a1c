// The exact GPLVM on ScaLAPACK, under mpirun at 1-4 ranks: against the dense serial reference
// (exact_log_marginal_likelihood) on every grid the rank count allows (smaller grids leave ranks
// idle) and block sizes that do not divide N; predictions against a dense Eigen LLT computation;
// the Jacobian of the predictive mean and its covariance against the replicated GpPosterior
// (itself tested against finite differences); the gradient against central finite differences; the shared
// jitter policy; bad input.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/models/gp_posterior.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/objectives/gp_marginal.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::CapturedLog;
using testing::contains;
using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

std::vector<std::pair<int, int>> grid_shapes(int ranks) {
  std::vector<std::pair<int, int>> out;
  for (auto [r, c] : {std::pair{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}})
    if (r * c <= ranks) out.emplace_back(r, c);
  return out;
}

using Problem = testing::GpProblem;

EqArdKernel problem_kernel() {
  return EqArdKernel{0.8, (Vector(2) << 0.7, 1.1).finished()};
}

Problem make_problem(Index n, Index d, std::uint64_t seed) {
  return testing::sample_gp_problem(problem_kernel(), 0.1, n, d, seed);
}

// This rank's rows of Y in the training code's layout.
DataRef local_rows(const RowMatrix& Y, const RowPartition& part, int rank) {
  return Y.middleRows(static_cast<Index>(part.begin(rank)), static_cast<Index>(part.count(rank)));
}

ExactDistributedOptions options_for(int rows, int cols, int block) {
  ExactDistributedOptions o;
  o.grid_rows = rows;
  o.grid_cols = cols;
  o.block_size = block;
  return o;
}

double relative(double a, double b) {
  return std::abs(a - b) / std::abs(b);
}

// Worst errors over a test's configurations, printed once by rank 0 for the record.
struct WorstErrors {
  double value = 0, latents = 0, hyper = 0, noise = 0;
  void print(const char* what, const Communicator& comm) const {
    if (comm.is_root())
      std::printf("[ errors   ] %s: value %.2e, latents %.2e, hyperparameters %.2e, log noise %.2e\n", what,
                  value, latents, hyper, noise);
  }
};

TEST(ExactDistributed, MatchesDenseReferenceOnEveryGridAndUnevenBlocks) {
  const Communicator comm;
  const Problem p = make_problem(157, 4, 1);
  const RowPartition part(157, comm.size());
  const GpGradient ref = exact_log_marginal_likelihood(p.kernel, p.noise, p.X, p.Y);
  WorstErrors worst;
  for (auto [r, c] : grid_shapes(comm.size()))
    for (int block : {16, 50, 64}) {
      SCOPED_TRACE(std::to_string(r) + "x" + std::to_string(c) + " block " + std::to_string(block));
      const GpGradient g = exact_log_marginal_likelihood_distributed(
          p.kernel, p.noise, p.X, local_rows(p.Y, part, comm.rank()), part, comm, options_for(r, c, block));
      worst.value = std::max(worst.value, relative(g.value, ref.value));
      EXPECT_LT(relative(g.value, ref.value), 1e-10);
      const double latents = max_relative_error(g.d_latents.reshaped(), ref.d_latents.reshaped());
      worst.latents = std::max(worst.latents, latents);
      EXPECT_LT(latents, 1e-8);
      ASSERT_EQ(g.d_kernel.size(), ref.d_kernel.size());
      for (Index h = 0; h < ref.d_kernel.size(); ++h) {
        worst.hyper = std::max(worst.hyper, relative(g.d_kernel[h], ref.d_kernel[h]));
        EXPECT_LT(relative(g.d_kernel[h], ref.d_kernel[h]), 1e-8) << p.kernel.hyperparameter_name(h);
      }
      worst.noise = std::max(worst.noise, relative(g.d_log_noise, ref.d_log_noise));
      EXPECT_LT(relative(g.d_log_noise, ref.d_log_noise), 1e-8);
    }
  worst.print("N=157 vs dense reference", comm);
}

TEST(ExactDistributed, MatchesDenseReferenceAtN500OnTheDefaultGrid) {
  const Communicator comm;
  const Problem p = make_problem(500, 3, 12);
  const RowPartition part(500, comm.size());
  const GpGradient ref = exact_log_marginal_likelihood(p.kernel, p.noise, p.X, p.Y);
  const GpGradient g = exact_log_marginal_likelihood_distributed(
      p.kernel, p.noise, p.X, local_rows(p.Y, part, comm.rank()), part, comm);
  WorstErrors e;
  e.value = relative(g.value, ref.value);
  e.latents = max_relative_error(g.d_latents.reshaped(), ref.d_latents.reshaped());
  for (Index h = 0; h < ref.d_kernel.size(); ++h)
    e.hyper = std::max(e.hyper, relative(g.d_kernel[h], ref.d_kernel[h]));
  e.noise = relative(g.d_log_noise, ref.d_log_noise);
  EXPECT_LT(e.value, 1e-10);
  EXPECT_LT(e.latents, 1e-8);
  EXPECT_LT(e.hyper, 1e-8);
  EXPECT_LT(e.noise, 1e-8);
  e.print("N=500 default grid and block", comm);
}

TEST(ExactDistributed, ValueOnlyAndRanksWithoutRows) {
  const Communicator comm;
  // N = 3 at 4 ranks: a rank owns no data row; blocks of 2 leave most grid processes empty too.
  const Problem p = make_problem(3, 2, 2);
  const RowPartition part(3, comm.size());
  const double ref = exact_log_marginal_likelihood(p.kernel, p.noise, p.X, p.Y, false).value;
  for (auto [r, c] : grid_shapes(comm.size())) {
    ExactDistributedOptions o = options_for(r, c, 2);
    o.with_gradient = false;
    const GpGradient g = exact_log_marginal_likelihood_distributed(
        p.kernel, p.noise, p.X, local_rows(p.Y, part, comm.rank()), part, comm, o);
    EXPECT_LT(relative(g.value, ref), 1e-12);
    EXPECT_EQ(g.d_latents.size(), 0);
  }
}

// Dense predictive written directly with Eigen's LLT.
ExactPrediction dense_prediction(const Problem& p, const Matrix& X_star) {
  Matrix K, Ks;
  p.kernel.cross(p.X, p.X, K);
  K.diagonal().array() += p.noise;
  p.kernel.cross(p.X, X_star, Ks);
  const Eigen::LLT<Matrix> llt(K);
  ExactPrediction out;
  out.mean = Ks.transpose() * llt.solve(Matrix(p.Y));
  const Matrix half = llt.matrixL().solve(Ks);
  out.variance = Vector::Constant(X_star.rows(), p.kernel.variance() + p.noise) -
                 Vector(half.colwise().squaredNorm().transpose());
  return out;
}

TEST(ExactDistributed, PredictiveMeanAndVarianceMatchDenseLlt) {
  const Communicator comm;
  const Problem p = make_problem(157, 3, 3);
  const Matrix X_star = 1.5 * random_normal(70, 2, 4);  // more than one chunk of test points
  const ExactPrediction ref = dense_prediction(p, X_star);
  const RowPartition part(157, comm.size());
  double worst_mean = 0, worst_var = 0;
  for (auto [r, c] : grid_shapes(comm.size()))
    for (int block : {16, 50}) {
      ExactDistributedGp gp(p.kernel, p.noise, p.X, local_rows(p.Y, part, comm.rank()), part, comm,
                            options_for(r, c, block));
      const ExactPrediction got = gp.predict(X_star);
      const double mean_error = max_relative_error(got.mean.reshaped(), ref.mean.reshaped());
      const double var_error = max_relative_error(got.variance, ref.variance);
      worst_mean = std::max(worst_mean, mean_error);
      worst_var = std::max(worst_var, var_error);
      EXPECT_LT(mean_error, 1e-10);
      EXPECT_LT(var_error, 1e-10);
      // After gradient() the factor is gone: predicting again is an error, not a wrong answer.
      gp.gradient();
      EXPECT_THROW(gp.predict(X_star), Error);
    }
  if (comm.is_root())
    std::printf("[ errors   ] predictive: mean %.2e, variance %.2e\n", worst_mean, worst_var);
}

TEST(ExactDistributed, JacobianAndItsCovarianceMatchTheReplicatedPosteriorOnEveryGrid) {
  const Communicator comm;
  const Problem p = make_problem(157, 3, 3);
  const Matrix X_star = 1.5 * random_normal(45, 2, 5);  // several chunks of test points
  const JacobianPrediction ref =
      GpPosterior::given_observations(p.kernel, p.X, p.Y, p.noise).jacobian(X_star);
  const RowPartition part(157, comm.size());
  double worst_mean = 0, worst_cov = 0;
  for (auto [r, c] : grid_shapes(comm.size()))
    for (int block : {16, 50}) {
      ExactDistributedGp gp(p.kernel, p.noise, p.X, local_rows(p.Y, part, comm.rank()), part, comm,
                            options_for(r, c, block));
      const ExactJacobianPrediction got = gp.predict_jacobian(X_star);
      ASSERT_EQ(got.mean.size(), static_cast<std::size_t>(X_star.rows()));
      for (std::size_t i = 0; i < got.mean.size(); ++i) {
        const double mean_error = max_relative_error(got.mean[i].reshaped(), ref.mean[i].reshaped());
        const double cov_error =
            max_relative_error(got.covariance[i].reshaped(), ref.covariance[i].reshaped());
        worst_mean = std::max(worst_mean, mean_error);
        worst_cov = std::max(worst_cov, cov_error);
        EXPECT_LT(mean_error, 1e-10) << "point " << i << " grid " << r << "x" << c << " block " << block;
        EXPECT_LT(cov_error, 1e-9) << "point " << i << " grid " << r << "x" << c << " block " << block;
      }
    }
  if (comm.is_root())
    std::printf("[ errors   ] Jacobian: mean %.2e, covariance %.2e\n", worst_mean, worst_cov);
}

TEST(ExactDistributed, GradientMatchesCentralFiniteDifferences) {
  const Communicator comm;
  const Index n = 30, q = 2;
  const Problem p = make_problem(n, 3, 5);
  const RowPartition part(n, comm.size());
  const DataRef Y_local = local_rows(p.Y, part, comm.rank());
  const Index h = p.kernel.num_hyperparameters();
  // Coordinates: [vec(X), kernel log-hyperparameters, log s2].
  Vector theta(n * q + h + 1);
  theta << p.X.reshaped(), p.kernel.hyperparameters(), std::log(p.noise);
  ExactDistributedOptions o = options_for(0, 0, 8);
  const auto lml = [&](const Vector& t) {
    EqArdKernel kernel = p.kernel;
    kernel.set_hyperparameters(t.segment(n * q, h));
    const Matrix X = t.head(n * q).reshaped(n, q);
    ExactDistributedOptions value_only = o;
    value_only.with_gradient = false;
    return exact_log_marginal_likelihood_distributed(kernel, std::exp(t[n * q + h]), X, Y_local, part, comm,
                                                     value_only)
        .value;
  };
  const GpGradient g =
      exact_log_marginal_likelihood_distributed(p.kernel, p.noise, p.X, Y_local, part, comm, o);
  Vector analytic(theta.size());
  analytic << g.d_latents.reshaped(), g.d_kernel, g.d_log_noise;
  const double error = max_relative_error(analytic, finite_difference_gradient(lml, theta));
  if (comm.is_root()) std::printf("[ errors   ] finite differences: %.2e\n", error);
  EXPECT_LT(error, 1e-6);
}

TEST(ExactDistributed, RankDeficientKernelEscalatesJitterLikeTheSerialHelper) {
  const Communicator comm;
  // 3 distinct latent points, each 20 times, and a noise far below double resolution next to the
  // kernel variance: K + s2 I is singular and a plain Cholesky fails. Y repeats 3 rows likewise,
  // so it lies in K's range and the jittered solve stays well conditioned.
  const Index n = 60;
  const Matrix base = random_normal(3, 2, 6);
  const Matrix base_y = random_normal(3, 2, 7);
  Problem p{problem_kernel(), 1e-300, Matrix(n, 2), RowMatrix(n, 2)};
  for (Index i = 0; i < n; ++i) {
    p.X.row(i) = base.row(i % 3);
    p.Y.row(i) = base_y.row(i % 3);
  }
  const RowPartition part(n, comm.size());
  const GpMarginal serial = gp_marginal(p.kernel, p.noise, p.X, p.Y, "serial");
  const GpGradient ref = exact_log_marginal_likelihood(p.kernel, p.noise, p.X, p.Y);
  ASSERT_GT(serial.factor.jitter(), 0.0);
  for (auto [r, c] : grid_shapes(comm.size())) {
    CapturedLog log;
    ExactDistributedGp gp(p.kernel, p.noise, p.X, local_rows(p.Y, part, comm.rank()), part, comm,
                          options_for(r, c, 16));
    EXPECT_EQ(gp.jitter(), serial.factor.jitter());
    if (comm.is_root()) {
      EXPECT_TRUE(log.any_warning_contains("K_NN + noise I (exact GPLVM, distributed)"));
      EXPECT_TRUE(log.any_warning_contains("it factorised with jitter"));
    } else {
      EXPECT_TRUE(log.warnings().empty());  // one report per job, not one per rank
    }
    EXPECT_LT(relative(gp.log_marginal_likelihood(), ref.value), 1e-10);
    // The gradient goes through K^{-1}, whose eigenvalues reach 1 / jitter ~ 1e6: agreement to
    // ~1e-8 is what the conditioning allows (the value, dominated by log|K|, agrees to ~1e-12).
    const GpGradient g = gp.gradient();
    EXPECT_LT(max_relative_error(g.d_latents.reshaped(), ref.d_latents.reshaped()), 1e-6);
    EXPECT_LT(max_relative_error(g.d_kernel, ref.d_kernel), 1e-6);
    if (comm.is_root())
      std::printf(
          "[ errors   ] jittered %dx%d: jitter %.3e, value %.2e, latents %.2e, hyperparameters %.2e\n", r, c,
          gp.jitter(), relative(gp.log_marginal_likelihood(), ref.value),
          max_relative_error(g.d_latents.reshaped(), ref.d_latents.reshaped()),
          max_relative_error(g.d_kernel, ref.d_kernel));
  }
}

// k(x, x') = s |x - x'|^2: zero diagonal, positive off-diagonal, hence indefinite. With a NaN log
// scale it also serves as a kernel with non-finite hyperparameters.
class SquaredDistanceKernel final : public Kernel {
 public:
  explicit SquaredDistanceKernel(double log_scale) : log_scale_(log_scale) {}
  std::unique_ptr<Kernel> clone() const override { return std::make_unique<SquaredDistanceKernel>(*this); }
  std::string name() const override { return "squared_distance"; }
  bool is_stationary() const override { return true; }
  std::vector<NamedHyperparameter> named_hyperparameters() const override {
    return {{"scale", Vector::Constant(1, std::exp(log_scale_))}};
  }
  Index input_dim() const override { return 2; }
  Index num_hyperparameters() const override { return 1; }
  std::string hyperparameter_name(Index) const override { return "log_scale"; }
  Vector hyperparameters() const override { return Vector::Constant(1, log_scale_); }
  void set_hyperparameters(const ConstVectorRef& v) override { log_scale_ = v[0]; }
  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override {
    K.resize(X1.rows(), X2.rows());
    for (Index j = 0; j < X2.rows(); ++j)
      for (Index i = 0; i < X1.rows(); ++i)
        K(i, j) = std::exp(log_scale_) * (X1.row(i) - X2.row(j)).squaredNorm();
  }
  void diagonal(const ConstMatrixRef& X, Vector& k) const override { k.setZero(X.rows()); }
  void cross_backward(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                      const ConstMatrixRef&, Matrix*, Matrix*, VectorRef) const override {}
  void diagonal_backward(const ConstMatrixRef&, const Vector&, Matrix*, VectorRef) const override {}

 private:
  double log_scale_;
};

// The column number in "... at column 7 ...".
std::string failing_column(const std::string& message) {
  const auto at = message.find("at column ");
  if (at == std::string::npos) return "";
  const auto begin = at + 10, end = message.find_first_not_of("0123456789", begin);
  return message.substr(begin, end - begin);
}

TEST(ExactDistributed, IndefiniteKernelFailsWithNumericalErrorNamingTheColumn) {
  const Communicator comm;
  const SquaredDistanceKernel kernel(0.0);
  const Index n = 40;
  const Matrix X = random_normal(n, 2, 8);
  const RowMatrix Y = random_normal(n, 2, 9);
  const RowPartition part(n, comm.size());
  std::string serial_column;
  try {
    exact_log_marginal_likelihood(kernel, 0.1, X, Y);
  } catch (const NumericalError& e) {
    serial_column = failing_column(e.what());
  }
  ASSERT_FALSE(serial_column.empty());
  for (auto [r, c] : grid_shapes(comm.size())) {
    CapturedLog log;
    try {
      exact_log_marginal_likelihood_distributed(kernel, 0.1, X, local_rows(Y, part, comm.rank()), part, comm,
                                                options_for(r, c, 16));
      ADD_FAILURE() << "expected NumericalError";
    } catch (const NumericalError& e) {
      const std::string what = e.what();
      EXPECT_EQ(failing_column(what), serial_column) << what;
      EXPECT_NE(what.find("K_NN + noise I (exact GPLVM, distributed)"), std::string::npos) << what;
      EXPECT_NE(what.find("after 5 escalations"), std::string::npos) << what;
    }
    EXPECT_TRUE(log.warnings().empty());  // the error says it all, on every rank
  }
}

template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(ExactDistributed, BadInputIsAnInputErrorOnEveryRank) {
  const Communicator comm;
  const Problem p = make_problem(20, 2, 10);
  const RowPartition part(20, comm.size());
  const DataRef Y_local = local_rows(p.Y, part, comm.rank());
  const auto run = [&](const Kernel& kernel, double noise, const Matrix& X, const DataRef& Y,
                       const ExactDistributedOptions& o) {
    exact_log_marginal_likelihood_distributed(kernel, noise, X, Y, part, comm, o);
  };
  const ExactDistributedOptions o;
  const Matrix X_more = random_normal(21, 2, 11);
  EXPECT_TRUE(
      contains(input_error_of([&] { run(p.kernel, p.noise, X_more, Y_local, o); }), "different numbers"));
  for (double noise : {std::nan(""), std::numeric_limits<double>::infinity(), -1.0, 0.0})
    EXPECT_TRUE(contains(input_error_of([&] { run(p.kernel, noise, p.X, Y_local, o); }), "noise variance"));
  const SquaredDistanceKernel nan_kernel(std::nan(""));
  EXPECT_TRUE(
      contains(input_error_of([&] { run(nan_kernel, p.noise, p.X, Y_local, o); }), "hyperparameters"));
  Matrix X_nan = p.X;
  X_nan(3, 1) = std::nan("");
  EXPECT_TRUE(contains(input_error_of([&] { run(p.kernel, p.noise, X_nan, Y_local, o); }), "latents"));

  // The last rank alone holds a wrong number of rows: every rank must still throw (no hang).
  const RowMatrix extra = RowMatrix::Zero(Y_local.rows() + 1, Y_local.cols());
  const bool last = comm.rank() == comm.size() - 1;
  const std::string rows_error =
      input_error_of([&] { run(p.kernel, p.noise, p.X, last ? DataRef(extra) : Y_local, o); });
  EXPECT_TRUE(contains(rows_error, "rank " + std::to_string(comm.size() - 1) + " holds")) << rows_error;

  const std::string grid_error =
      input_error_of([&] { run(p.kernel, p.noise, p.X, Y_local, options_for(comm.size() + 1, 1, 8)); });
  EXPECT_TRUE(contains(grid_error, std::to_string(comm.size() + 1) + "x1")) << grid_error;
  EXPECT_TRUE(contains(grid_error, "only " + std::to_string(comm.size()))) << grid_error;
  EXPECT_TRUE(contains(input_error_of([&] { run(p.kernel, p.noise, p.X, Y_local, options_for(0, 2, 8)); }),
                       "grid shape"));
  EXPECT_TRUE(contains(input_error_of([&] { run(p.kernel, p.noise, p.X, Y_local, options_for(0, 0, 0)); }),
                       "block size"));
}

TEST(ExactDistributed, MemoryEstimateScalesAndRefusesWhatCannotFit) {
  const Communicator comm;
  ExactDistributedOptions o;
  // The N x N matrix dominates: 8 N^2 / P bytes, plus a few percent for panels and Y (on the
  // default 1 x 4 grid the panels are N tall: 2 NB (N + N / 4) words, 10 NB / N of the matrix's
  // N^2 / 4: 6.4% at the default NB = 128).
  const double matrix = 8.0 * 20000 * 20000;
  const double one = exact_distributed_bytes_per_rank(20000, 10, 1, o) / matrix;
  const double four = exact_distributed_bytes_per_rank(20000, 10, 4, o) / (matrix / 4);
  EXPECT_GT(one, 1.0);
  EXPECT_LT(one, 1.05);
  EXPECT_GT(four, 1.0);
  EXPECT_LT(four, 1.0 + 10.0 * o.block_size / 20000 + 0.01);
  EXPECT_GT(available_bytes_per_rank(comm), 0.0);
  EXPECT_NO_THROW(check_exact_distributed_memory(1000, 10, comm, o));
  const std::string error = input_error_of([&] { check_exact_distributed_memory(100'000'000, 10, comm, o); });
  EXPECT_TRUE(contains(error, "GiB per rank")) << error;
  EXPECT_TRUE(contains(error, "GiB available; use more ranks/nodes")) << error;
}

}  // namespace
}  // namespace gplvm
