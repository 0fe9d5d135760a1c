// The wrapped GPLVM on the sphere with the linear basepoint m(x) = Exp_mu0(B0 A x)
// (docs/math/wrapped_gplvm.md): the derivative of Log in its base point against finite differences
// along exp-map curves and against the Jacobi-field form -diag(1, theta cot theta); the transported
// frame against the parallel-transport formula; the coordinates' Jacobian, and the objective's
// gradient in X, A, the kernel hyperparameters and the log noise, against central differences in
// fp64 (relative error < 1e-6); A = 0 against the constant-basepoint model; predictions on S^n.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "gplvm/manifold/sphere_manifold.hpp"
#include "gplvm/manifold/tangent_chart.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/objectives/wrapped_linear_basepoint.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::random_normal;

Vector unit(Vector v) {
  return v / v.norm();
}

// A tangent vector at m of the given length, in a random direction.
Vector tangent_at(const Vector& m, double length, std::uint64_t seed) {
  Vector v = random_normal(m.size(), 1, seed).col(0);
  v -= m.dot(v) * m;
  return length * unit(v);
}

// Central differences of a vector function of a flat parameter vector.
Matrix central_jacobian(const std::function<Vector(const Vector&)>& f, const Vector& at, double h) {
  const Index rows = f(at).size();
  Matrix J(rows, at.size());
  for (Index k = 0; k < at.size(); ++k) {
    Vector plus = at, minus = at;
    plus[k] += h;
    minus[k] -= h;
    J.col(k) = (f(plus) - f(minus)) / (2 * h);
  }
  return J;
}

double relative_error(const Matrix& a, const Matrix& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

TEST(SphereLogBaseDerivative, MatchesFiniteDifferencesAlongExpMapCurves) {
  for (const Index dim : {3, 5})
    for (const double theta : {1e-4, 0.4, 1.3, 2.6}) {
      const Vector m = unit(random_normal(dim, 1, 1).col(0));
      const Vector p = sphere::exp_map(m, tangent_at(m, theta, 2));
      const Matrix J = sphere::log_base_derivative(m, p);
      for (std::uint64_t s = 3; s < 6; ++s) {
        const Vector delta = tangent_at(m, 1.0, s);
        const double h = 1e-6;
        const Vector fd = (sphere::log_map(sphere::exp_map(m, h * delta), p) -
                           sphere::log_map(sphere::exp_map(m, -h * delta), p)) /
                          (2 * h);
        EXPECT_LT(relative_error(J * delta, fd), 1e-6) << dim << " " << theta;
      }
    }
}

TEST(SphereLogBaseDerivative, TangentPartIsTheJacobiFieldForm) {
  const Index dim = 4;
  const double theta = 1.1;
  const Vector m = unit(random_normal(dim, 1, 7).col(0));
  const Vector p = sphere::exp_map(m, tangent_at(m, theta, 8));
  // A frame of T_m whose first vector points along Log_m(p).
  Matrix frame(dim, dim - 1);
  frame.col(0) = unit(sphere::log_map(m, p));
  for (Index k = 1; k < dim - 1; ++k) {
    Vector v = random_normal(dim, 1, 20 + k).col(0);
    v -= m.dot(v) * m;
    for (Index j = 0; j < k; ++j) v -= frame.col(j).dot(v) * frame.col(j);
    frame.col(k) = unit(v);
  }
  const Matrix tangent_part = frame.transpose() * sphere::log_base_derivative(m, p) * frame;
  Vector expected = Vector::Constant(dim - 1, -theta * std::cos(theta) / std::sin(theta));
  expected[0] = -1.0;
  EXPECT_LT((tangent_part - Matrix(expected.asDiagonal())).cwiseAbs().maxCoeff(), 1e-13);
}

// mu0, its chart's basis and a map A (n x Q) on S^n.
SphereLinearBasepoint basepoint_on(Index n, Index q, double map_scale, std::uint64_t seed) {
  const auto sphere = std::make_shared<const SphereManifold>(n + 1);
  const Vector mu0 = unit(random_normal(n + 1, 1, seed).col(0));
  const TangentChart chart = TangentChart::at(sphere, mu0);
  return {chart.basepoint, chart.basis, map_scale * random_normal(n, q, seed + 1)};
}

TEST(SphereLinearBasepoint, FrameIsTheParallelTransportOfTheBasisAndPointsLieOnTheSphere) {
  const SphereLinearBasepoint b = basepoint_on(3, 2, 0.5, 30);
  const Vector x = random_normal(2, 1, 31).col(0);
  const Vector m = b.basepoint(x), mu0 = b.mu0();
  const Matrix E = b.frame(x);
  EXPECT_LT((E.transpose() * E - Matrix::Identity(3, 3)).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LT((E.transpose() * m).cwiseAbs().maxCoeff(), 1e-13);
  // Gamma_{p -> q}(v) = v - <q, v> / (1 + <p, q>) (p + q)
  const Matrix transported = b.basis() - (mu0 + m) * (m.transpose() * b.basis()) / (1.0 + mu0.dot(m));
  EXPECT_LT((E - transported).cwiseAbs().maxCoeff(), 1e-13);
  // Exp_{m(x)}(E c) is on the sphere, and the coordinates of a point bring it back.
  const Vector c = 0.7 * random_normal(3, 1, 32).col(0);
  const Vector p = b.point(x, c);
  EXPECT_NEAR(p.norm(), 1.0, 1e-12);
  EXPECT_LT((b.coordinates(x, p, nullptr) - c).norm(), 1e-12);
}

TEST(SphereLinearBasepoint, CoordinateJacobianMatchesFiniteDifferences) {
  for (const double scale : {1e-4, 0.01, 0.6}) {  // |u| below and above the series switch
    const Index n = 3;
    const auto sphere = std::make_shared<const SphereManifold>(n + 1);
    const Vector mu0 = unit(random_normal(n + 1, 1, 40).col(0));
    const TangentChart chart = TangentChart::at(sphere, mu0);
    const SphereLinearBasepoint b(chart.basepoint, chart.basis, Matrix::Identity(n, n));  // x = u
    const Vector u = scale * unit(random_normal(n, 1, 41).col(0));
    const Vector p = sphere::exp_map(b.basepoint(u), tangent_at(b.basepoint(u), 1.2, 42));
    Matrix J;
    b.coordinates(u, p, &J);
    const Matrix fd =
        central_jacobian([&](const Vector& v) { return b.coordinates(v, p, nullptr); }, u, 1e-6);
    EXPECT_LT(relative_error(J, fd), 1e-6) << scale;
  }
}

struct Problem {
  Matrix X;
  RowMatrix points;
  EqArdKernel kernel{0.8, Vector::Constant(2, 1.3)};
  double noise = 0.05;
};

// Points scattered around the linear basepoint's curve on S^n.
Problem problem(const SphereLinearBasepoint& b, Index N, std::uint64_t seed) {
  Problem pr;
  pr.X = random_normal(N, b.latent_dim(), seed);
  pr.points.resize(N, b.mu0().size());
  for (Index j = 0; j < N; ++j)
    pr.points.row(j) =
        b.point(pr.X.row(j).transpose(), 0.3 * random_normal(b.tangent_dim(), 1, seed + 100 + j).col(0))
            .transpose();
  return pr;
}

TEST(WrappedLinearBasepointObjective, GradientMatchesFiniteDifferences) {
  for (const Index n : {2, 3}) {
    const SphereLinearBasepoint b = basepoint_on(n, 2, 0.4, 50 + n);
    Problem pr = problem(b, 10, 60 + n);
    const LinearBasepointGradient g = wrapped_linear_basepoint_lml(pr.kernel, pr.noise, pr.X, pr.points, b);
    const double h = 1e-6;
    // X
    Vector x_flat = Eigen::Map<const Vector>(pr.X.data(), pr.X.size());
    const Matrix fd_x = central_jacobian(
        [&](const Vector& v) {
          const Matrix X = Eigen::Map<const Matrix>(v.data(), pr.X.rows(), pr.X.cols());
          return Vector::Constant(
              1, wrapped_linear_basepoint_lml(pr.kernel, pr.noise, X, pr.points, b, false).gp.value);
        },
        x_flat, h);
    EXPECT_LT(relative_error(Eigen::Map<const Matrix>(g.gp.d_latents.data(), 1, pr.X.size()), fd_x), 1e-6)
        << n;
    // A
    const Vector a_flat = Eigen::Map<const Vector>(b.map().data(), b.map().size());
    const Matrix fd_a = central_jacobian(
        [&](const Vector& v) {
          const SphereLinearBasepoint moved(
              b.mu0(), b.basis(), Eigen::Map<const Matrix>(v.data(), b.map().rows(), b.map().cols()));
          return Vector::Constant(
              1, wrapped_linear_basepoint_lml(pr.kernel, pr.noise, pr.X, pr.points, moved, false).gp.value);
        },
        a_flat, h);
    EXPECT_LT(relative_error(Eigen::Map<const Matrix>(g.d_map.data(), 1, g.d_map.size()), fd_a), 1e-6) << n;
    // kernel log-hyperparameters and log noise
    Vector theta(pr.kernel.num_hyperparameters() + 1);
    theta << pr.kernel.hyperparameters(), std::log(pr.noise);
    const Matrix fd_theta = central_jacobian(
        [&](const Vector& v) {
          EqArdKernel k = pr.kernel;
          k.set_hyperparameters(v.head(v.size() - 1));
          return Vector::Constant(
              1,
              wrapped_linear_basepoint_lml(k, std::exp(v[v.size() - 1]), pr.X, pr.points, b, false).gp.value);
        },
        theta, h);
    Vector analytic(theta.size());
    analytic << g.gp.d_kernel, g.gp.d_log_noise;
    EXPECT_LT(relative_error(analytic.transpose(), fd_theta), 1e-6) << n;
  }
}

TEST(WrappedLinearBasepointObjective, ZeroMapIsTheConstantBasepointModel) {
  const Index n = 3;
  const SphereLinearBasepoint moving = basepoint_on(n, 2, 0.4, 70);
  const SphereLinearBasepoint zero(moving.mu0(), moving.basis(), Matrix::Zero(n, 2));
  const Problem pr = problem(moving, 12, 71);
  const auto sphere = std::make_shared<const SphereManifold>(n + 1);
  const TangentChart chart = TangentChart::at(sphere, moving.mu0());
  const RowMatrix V = chart.coordinates(pr.points);
  const GpGradient constant = exact_log_marginal_likelihood(pr.kernel, pr.noise, pr.X, V);
  const LinearBasepointGradient g = wrapped_linear_basepoint_lml(pr.kernel, pr.noise, pr.X, pr.points, zero);
  EXPECT_NEAR(g.gp.value, constant.value, 1e-12 * std::fabs(constant.value));
  EXPECT_LT((g.gp.d_latents - constant.d_latents).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((g.gp.d_kernel - constant.d_kernel).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NEAR(g.gp.d_log_noise, constant.d_log_noise, 1e-10);
  // At A = 0 the map still has a gradient: moving the basepoint changes the coordinates.
  EXPECT_GT(g.d_map.norm(), 0.0);
}

}  // namespace
}  // namespace gplvm
