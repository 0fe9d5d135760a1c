#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

EqArdKernel make_kernel() {
  Vector l(3);
  l << 0.7, 1.3, 2.1;
  return EqArdKernel(1.7, l);
}

TEST(EqArdKernel, CrossMatchesTheDefinition) {
  const EqArdKernel k = make_kernel();
  const Matrix X1 = random_normal(5, 3, 1), X2 = random_normal(4, 3, 2);
  Matrix K;
  k.cross(X1, X2, K);
  ASSERT_EQ(K.rows(), 5);
  ASSERT_EQ(K.cols(), 4);
  for (Index i = 0; i < 5; ++i)
    for (Index j = 0; j < 4; ++j) {
      double r2 = 0;
      for (Index q = 0; q < 3; ++q) r2 += std::pow((X1(i, q) - X2(j, q)) / k.lengthscales()[q], 2);
      EXPECT_NEAR(K(i, j), 1.7 * std::exp(-0.5 * r2), 1e-15);
    }
  Matrix S;
  k.cross(X1, X1, S);
  // Symmetric to rounding, not bitwise: K(i, j) and K(j, i) may fall in the SIMD body of one column
  // and the scalar head or tail of another, which can round differently (e.g. under FMA contraction
  // with -march=native).
  EXPECT_LE((S - S.transpose()).norm(), 1e-15 * S.norm());
  Vector diag;
  k.diagonal(X1, diag);
  EXPECT_LT((diag - S.diagonal()).norm(), 1e-15);
}

// The same at a size with whole register blocks of the product (32 rows x 4 columns) and their
// one-column remainders on both sides, against the definition summed here term by term.
TEST(EqArdKernel, CrossMatchesTheDefinitionAcrossItsBlocks) {
  Vector l(50);
  for (Index q = 0; q < 50; ++q) l[q] = 0.5 + 0.05 * static_cast<double>(q);
  const EqArdKernel k(1.3, l);
  const Matrix X1 = random_normal(101, 50, 7), X2 = random_normal(23, 50, 8);
  Matrix K;
  k.cross(X1, X2, K);
  ASSERT_EQ(K.rows(), 101);
  ASSERT_EQ(K.cols(), 23);
  double worst = 0.0;
  for (Index j = 0; j < 23; ++j)
    for (Index i = 0; i < 101; ++i) {
      double r2 = 0.0;
      for (Index q = 0; q < 50; ++q) r2 += std::pow((X1(i, q) - X2(j, q)) / l[q], 2);
      const double expected = 1.3 * std::exp(-0.5 * r2);
      worst = std::max(worst, std::abs(K(i, j) - expected) / expected);
    }
  EXPECT_LT(worst, 1e-13);
}

TEST(EqArdKernel, HyperparametersAreLogParametrised) {
  EqArdKernel k = make_kernel();
  const Vector h = k.hyperparameters();
  EXPECT_DOUBLE_EQ(h[0], std::log(1.7));
  EXPECT_DOUBLE_EQ(h[2], std::log(1.3));
  Vector changed = h;
  changed[1] = 0.0;
  k.set_hyperparameters(changed);
  EXPECT_DOUBLE_EQ(k.lengthscales()[0], 1.0);
  EXPECT_EQ(k.hyperparameter_name(0), "log_variance");
  EXPECT_EQ(k.hyperparameter_name(3), "log_lengthscale_2");
}

TEST(EqArdKernel, InvalidHyperparametersAreErrors) {
  EXPECT_THROW(EqArdKernel(-1.0, 1.0, 2), InputError);
  EXPECT_THROW(EqArdKernel(1.0, 0.0, 2), InputError);
  EXPECT_THROW(EqArdKernel(1.0, 1.0, 0), InputError);
  EqArdKernel k = make_kernel();
  EXPECT_THROW(k.set_hyperparameters(Vector::Zero(2)), InputError);
  Vector bad = k.hyperparameters();
  bad[1] = INFINITY;
  EXPECT_THROW(k.set_hyperparameters(bad), InputError);
  Matrix K;
  EXPECT_THROW(k.cross(Matrix::Zero(2, 2), Matrix::Zero(2, 3), K), InputError);
}

// The messages name the key and the offending value (built only when a check fails).
TEST(EqArdKernel, ErrorsNameTheKeyAndTheValue) {
  try {
    EqArdKernel(1.0, -0.5, 2);
    FAIL() << "a negative lengthscale was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "kernel.lengthscale");
    EXPECT_TRUE(testing::contains(e.context().value, "-0.5")) << e.what();
  }
  try {
    EqArdKernel(0.0, 1.0, 2);
    FAIL() << "a zero variance was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "kernel.variance");
  }
  try {
    Matrix K;
    make_kernel().cross(Matrix::Zero(2, 3), Matrix::Zero(2, 2), K);  // Q = 3; X2 has 2
    FAIL() << "inputs of the wrong width were accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "latent_dim");
    EXPECT_EQ(e.context().value, "2");
    EXPECT_TRUE(testing::contains(e.what(), "wrong number of latent dimensions")) << e.what();
  }
}

// L = sum(G o K(X1, X2)) for a fixed random G: its gradient is exactly what cross_backward returns,
// for an n1 x n2 block on `threads` threads.
void check_cross_backward(Index n1, Index n2, int threads) {
  SCOPED_TRACE(::testing::Message() << n1 << " x " << n2 << " on " << threads << " threads");
  const testing::ScopedThreads scoped(threads);
  const Index q_dim = 3;
  const Matrix X1 = random_normal(n1, q_dim, 3), X2 = random_normal(n2, q_dim, 4),
               G = random_normal(n1, n2, 5);
  const EqArdKernel k0 = make_kernel();
  const Index nh = k0.num_hyperparameters(), s1 = n1 * q_dim, s2 = n2 * q_dim;
  Vector p(s1 + s2 + nh);
  p << Eigen::Map<const Vector>(X1.data(), s1), Eigen::Map<const Vector>(X2.data(), s2), k0.hyperparameters();
  auto loss = [&](const Vector& q) {
    EqArdKernel k = k0;
    k.set_hyperparameters(q.tail(nh));
    Matrix K;
    k.cross(Eigen::Map<const Matrix>(q.data(), n1, q_dim), Eigen::Map<const Matrix>(q.data() + s1, n2, q_dim),
            K);
    return (G.array() * K.array()).sum();
  };
  Matrix K, dX1 = Matrix::Zero(n1, q_dim), dX2 = Matrix::Zero(n2, q_dim);
  Vector dh = Vector::Zero(nh);
  k0.cross(X1, X2, K);
  k0.cross_backward(X1, X2, K, G, &dX1, &dX2, dh);
  Vector analytic(p.size());
  analytic << Eigen::Map<const Vector>(dX1.data(), s1), Eigen::Map<const Vector>(dX2.data(), s2), dh;
  EXPECT_LT(max_relative_error(analytic, finite_difference_gradient(loss, p)), 1e-8);
}

TEST(EqArdKernel, CrossBackwardMatchesFiniteDifferences) {
  check_cross_backward(6, 5, 1);
}

// Large enough that both passes split among the threads (rows and columns are shared 16 at a time).
TEST(EqArdKernel, CrossBackwardMatchesFiniteDifferencesOnSeveralThreads) {
  check_cross_backward(40, 50, 3);
}

TEST(EqArdKernel, SymmetricBlockAndDiagonalBackwardMatchFiniteDifferences) {
  const Matrix X = random_normal(7, 3, 6), G = random_normal(7, 7, 7);
  const Vector g = random_normal(7, 1, 8);
  const EqArdKernel k0 = make_kernel();
  const Index nh = k0.num_hyperparameters();
  Vector p(21 + nh);
  p << Eigen::Map<const Vector>(X.data(), 21), k0.hyperparameters();
  auto loss = [&](const Vector& q) {
    EqArdKernel k = k0;
    k.set_hyperparameters(q.tail(nh));
    const Matrix a = Eigen::Map<const Matrix>(q.data(), 7, 3);
    Matrix K;
    Vector d;
    k.cross(a, a, K);
    k.diagonal(a, d);
    return (G.array() * K.array()).sum() + g.dot(d);
  };
  Matrix K, dX = Matrix::Zero(7, 3);
  Vector dh = Vector::Zero(nh);
  k0.cross(X, X, K);
  k0.cross_backward(X, X, K, G, &dX, &dX, dh);
  k0.diagonal_backward(X, g, &dX, dh);
  Vector analytic(p.size());
  analytic << Eigen::Map<const Vector>(dX.data(), 21), dh;
  EXPECT_LT(max_relative_error(analytic, finite_difference_gradient(loss, p)), 1e-8);
}

}  // namespace
}  // namespace gplvm
