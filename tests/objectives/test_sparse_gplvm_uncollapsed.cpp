// The uncollapsed (explicit q(u)) sparse GPLVM bound: equal to the collapsed bound at the optimal
// q(u) and below it elsewhere, gradients against finite differences, and the minibatch estimate:
// N/B times a batch's statistics gives, for B = N, the full-batch bound, and averaged over a
// partition of the rows into batches, exactly the full-data bound and gradient (U is linear in
// the statistics).
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/objectives/collapsed_bound.hpp"
#include "gplvm/objectives/sparse_gplvm.hpp"
#include "gplvm/objectives/uncollapsed_bound.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

struct Problem {
  testing::GpProblem gp;
  Matrix Z;
};

Problem make_problem(Index n, Index d, Index m, std::uint64_t seed) {
  return {testing::sample_gp_problem(EqArdKernel{1.1, (Vector(2) << 0.9, 1.4).finished()}, 0.2, n, d, seed),
          random_normal(m, 2, seed + 100)};
}

Matrix kzz(const Kernel& kernel, const Matrix& Z) {
  Matrix K;
  kernel.cross(Z, Z, K);
  return K;
}

SparseStatistics statistics_of(const Problem& p, Index first, Index count) {
  PsiStatistics psi;
  return point_rows_statistics(p.gp.kernel, p.Z, p.gp.X.middleRows(first, count),
                               p.gp.Y.middleRows(first, count), psi);
}

// Some q(u) away from the optimum: the optimum's means perturbed, a random lower factor.
InducingPosterior perturbed(const InducingPosterior& optimum, std::uint64_t seed) {
  InducingPosterior q = optimum;
  q.mean += 0.3 * random_normal(q.mean.rows(), q.mean.cols(), seed);
  q.scale = q.scale.triangularView<Eigen::Lower>();
  q.scale +=
      0.1 *
      Matrix(random_normal(q.scale.rows(), q.scale.cols(), seed + 1).triangularView<Eigen::StrictlyLower>());
  q.scale.diagonal().array() *= (0.2 * random_normal(q.scale.rows(), 1, seed + 2).array()).exp();
  return q;
}

TEST(UncollapsedBound, EqualsCollapsedBoundAtOptimalPosteriorAndIsBelowElsewhere) {
  const Problem p = make_problem(50, 4, 10, 1);
  const SparseStatistics s = statistics_of(p, 0, 50);
  const Matrix K = kzz(p.gp.kernel, p.Z);
  const double collapsed = collapsed_bound(s, K, p.gp.noise).value;
  const InducingPosterior optimum = optimal_inducing_posterior(s, K, p.gp.noise);
  const UncollapsedBound at_optimum = uncollapsed_bound(s, K, p.gp.noise, optimum);
  EXPECT_NEAR(at_optimum.value, collapsed, 1e-9 * std::abs(collapsed));
  // The optimum is stationary in q(u).
  EXPECT_LT(at_optimum.d_mean.norm(), 1e-7 * (1 + std::abs(collapsed)));
  EXPECT_LT(at_optimum.d_scale.norm(), 1e-7 * (1 + std::abs(collapsed)));
  for (std::uint64_t seed = 10; seed < 15; ++seed)
    EXPECT_LT(uncollapsed_bound(s, K, p.gp.noise, perturbed(optimum, seed)).value, collapsed);
}

// Everything the bound depends on, in one vector: X, Z, hyperparameters, log noise, q(u).
struct Layout {
  Index n, m, q, d, h;
  Index size() const { return n * q + m * q + h + 1 + InducingPosterior::packed_size(m, d); }
  Vector pack(const Problem& p, const InducingPosterior& post) const {
    Vector v(size());
    v << Eigen::Map<const Vector>(p.gp.X.data(), n * q), Eigen::Map<const Vector>(p.Z.data(), m * q),
        p.gp.kernel.hyperparameters(), std::log(p.gp.noise),
        Vector::Zero(InducingPosterior::packed_size(m, d));
    post.pack(v.data() + n * q + m * q + h + 1);
    return v;
  }
};

// U at the packed parameters and, if asked, its gradient in the same layout (rows' backward
// through the point Psi-statistics, K_ZZ's through the kernel).
double evaluate(const Layout& l, const Vector& v, const RowMatrix& Y, EqArdKernel kernel, Vector* gradient) {
  const Matrix X = Eigen::Map<const Matrix>(v.data(), l.n, l.q);
  const Matrix Z = Eigen::Map<const Matrix>(v.data() + l.n * l.q, l.m, l.q);
  kernel.set_hyperparameters(v.segment(l.n * l.q + l.m * l.q, l.h));
  const double noise = std::exp(v(l.n * l.q + l.m * l.q + l.h));
  const InducingPosterior post =
      InducingPosterior::unpack(v.data() + l.n * l.q + l.m * l.q + l.h + 1, l.m, l.d);
  PsiStatistics psi;
  const SparseStatistics s = point_rows_statistics(kernel, Z, X, Y, psi);
  const Matrix K = kzz(kernel, Z);
  const UncollapsedBound u = uncollapsed_bound(s, K, noise, post);
  if (gradient) {
    Matrix dX = Matrix::Zero(l.n, l.q);
    SharedGradient shared = SharedGradient::zero(l.m, l.q, l.h);
    point_rows_backward(kernel, Z, X, Y, psi, u.adjoint, dX, shared);
    inducing_kernel_backward(kernel, Z, K, u.d_inducing_kernel, shared);
    gradient->resize(l.size());
    *gradient << Eigen::Map<const Vector>(dX.data(), dX.size()),
        Eigen::Map<const Vector>(shared.d_inducing.data(), shared.d_inducing.size()), shared.d_kernel,
        u.d_log_noise, Vector::Zero(InducingPosterior::packed_size(l.m, l.d));
    u.pack_posterior_gradient(gradient->data() + l.n * l.q + l.m * l.q + l.h + 1);
  }
  return u.value;
}

TEST(UncollapsedBound, GradientsMatchFiniteDifferences) {
  const Problem p = make_problem(18, 3, 5, 2);
  const Layout l{18, 5, 2, 3, p.gp.kernel.num_hyperparameters()};
  const SparseStatistics s = statistics_of(p, 0, 18);
  const InducingPosterior post =
      perturbed(optimal_inducing_posterior(s, kzz(p.gp.kernel, p.Z), p.gp.noise), 3);
  const Vector x = l.pack(p, post);
  Vector analytic;
  evaluate(l, x, p.gp.Y, p.gp.kernel, &analytic);
  const Vector numeric = finite_difference_gradient(
      [&](const Vector& v) { return evaluate(l, v, p.gp.Y, p.gp.kernel, nullptr); }, x);
  EXPECT_LT(max_relative_error(analytic, numeric), 1e-6);
  const Index q_first = l.n * l.q + l.m * l.q + l.h + 1;
  const Index blocks[][2] = {{0, l.n * l.q},
                             {l.n * l.q, l.m * l.q},
                             {l.n * l.q + l.m * l.q, l.h + 1},
                             {q_first, l.m * l.d},
                             {q_first + l.m * l.d, l.m * (l.m + 1) / 2}};
  for (const auto& b : blocks)
    EXPECT_LT(max_relative_error(analytic.segment(b[0], b[1]), numeric.segment(b[0], b[1])), 1e-6)
        << "block at " << b[0];
}

TEST(UncollapsedBound, PosteriorPackingRoundTrips) {
  InducingPosterior q{random_normal(4, 3, 1), Matrix(random_normal(4, 4, 2).triangularView<Eigen::Lower>())};
  q.scale.diagonal() = q.scale.diagonal().cwiseAbs().array() + 0.1;
  std::vector<double> buffer(InducingPosterior::packed_size(4, 3));
  ASSERT_EQ(buffer.size(), 12u + 10u);
  q.pack(buffer.data());
  const InducingPosterior back = InducingPosterior::unpack(buffer.data(), 4, 3);
  EXPECT_LT((back.mean - q.mean).norm(), 1e-15);
  EXPECT_LT((back.scale - q.scale).norm(), 1e-14);
}

TEST(UncollapsedBound, FullBatchScaledByOneEqualsFullData) {
  const Problem p = make_problem(40, 3, 6, 4);
  const Matrix K = kzz(p.gp.kernel, p.Z);
  SparseStatistics batch = statistics_of(p, 0, 40);
  const SparseStatistics full = batch;
  batch.scale(40.0 / 40.0);
  const InducingPosterior q = perturbed(optimal_inducing_posterior(full, K, p.gp.noise), 5);
  EXPECT_EQ(uncollapsed_bound(batch, K, p.gp.noise, q).value,
            uncollapsed_bound(full, K, p.gp.noise, q).value);
}

TEST(UncollapsedBound, MinibatchEstimatesAverageToFullDataValueAndGradient) {
  const Index n = 60, b = 15;
  const Problem p = make_problem(n, 3, 7, 6);
  const Matrix K = kzz(p.gp.kernel, p.Z);
  const SparseStatistics full = statistics_of(p, 0, n);
  const InducingPosterior q = perturbed(optimal_inducing_posterior(full, K, p.gp.noise), 7);
  const UncollapsedBound reference = uncollapsed_bound(full, K, p.gp.noise, q);
  double mean_value = 0.0, mean_noise = 0.0;
  Matrix mean_d_mean = Matrix::Zero(7, 3), mean_d_kernel = Matrix::Zero(7, 7);
  const double batches = static_cast<double>(n / b);
  for (Index first = 0; first < n; first += b) {
    SparseStatistics batch = statistics_of(p, first, b);
    batch.scale(static_cast<double>(n) / b);
    const UncollapsedBound u = uncollapsed_bound(batch, K, p.gp.noise, q);
    mean_value += u.value / batches;
    mean_noise += u.d_log_noise / batches;
    mean_d_mean += u.d_mean / batches;
    mean_d_kernel += u.d_inducing_kernel / batches;
  }
  EXPECT_NEAR(mean_value, reference.value, 1e-12 * std::abs(reference.value));
  EXPECT_NEAR(mean_noise, reference.d_log_noise, 1e-11 * std::abs(reference.d_log_noise));
  EXPECT_LT((mean_d_mean - reference.d_mean).norm(), 1e-11 * reference.d_mean.norm());
  EXPECT_LT((mean_d_kernel - reference.d_inducing_kernel).norm(), 1e-11 * reference.d_inducing_kernel.norm());
}

}  // namespace
}  // namespace gplvm
