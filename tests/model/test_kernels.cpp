// Every kernel against the same checks: its values written out, finite-difference adjoints,
// positive definiteness, natural-unit hyperparameters, stationarity and clones.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <functional>
#include <numbers>
#include <set>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/linear_kernel.hpp"
#include "gplvm/model/matern_kernel.hpp"
#include "gplvm/model/periodic_kernel.hpp"
#include "gplvm/model/product_kernel.hpp"
#include "gplvm/model/sum_kernel.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

constexpr Index kQ = 3;
using Reference = std::function<double(const Vector&, const Vector&)>;

Vector lengthscales() {
  Vector l(kQ);
  l << 0.7, 1.3, 2.1;
  return l;
}

// The kernels' definitions, written out term by term.
double eq_ard_reference(const Vector& x, const Vector& y) {
  double r2 = 0;
  for (Index q = 0; q < kQ; ++q) r2 += std::pow((x[q] - y[q]) / lengthscales()[q], 2);
  return 1.7 * std::exp(-0.5 * r2);
}

double scaled_distance(const Vector& x, const Vector& y, const Vector& l) {
  double r2 = 0;
  for (Index q = 0; q < kQ; ++q) r2 += std::pow((x[q] - y[q]) / l[q], 2);
  return std::sqrt(r2);
}

double matern32_reference(const Vector& x, const Vector& y) {
  const double r = scaled_distance(x, y, lengthscales());
  return 0.8 * (1 + std::sqrt(3.0) * r) * std::exp(-std::sqrt(3.0) * r);
}

double matern52_reference(const Vector& x, const Vector& y) {
  const double r = scaled_distance(x, y, 1.5 * lengthscales());
  return 1.2 * (1 + std::sqrt(5.0) * r + 5.0 * r * r / 3.0) * std::exp(-std::sqrt(5.0) * r);
}

Vector linear_variances() {
  Vector a(kQ);
  a << 0.5, 1.5, 0.9;
  return a;
}

double linear_reference(const Vector& x, const Vector& y) {
  double k = 0;
  for (Index q = 0; q < kQ; ++q) k += linear_variances()[q] * x[q] * y[q];
  return k;
}

double periodic_reference(const Vector& x, const Vector& y) {
  double s = 0;
  for (Index q = 0; q < kQ; ++q)
    s += std::pow(std::sin(std::numbers::pi * (x[q] - y[q]) / 2.5), 2) / std::pow(lengthscales()[q], 2);
  return 0.9 * std::exp(-2.0 * s);
}

struct KernelCase {
  std::string label;
  std::function<std::unique_ptr<Kernel>()> make;
  Reference reference;
  bool stationary;
  std::vector<std::string> groups;  // the named hyperparameters, in order
};

void PrintTo(const KernelCase& c, std::ostream* os) {
  *os << c.label;
}

std::unique_ptr<Kernel> eq_ard() {
  return std::make_unique<EqArdKernel>(1.7, lengthscales());
}
std::unique_ptr<Kernel> matern32() {
  return std::make_unique<MaternArdKernel>(MaternSmoothness::three_halves, 0.8, lengthscales());
}
std::unique_ptr<Kernel> matern52() {
  return std::make_unique<MaternArdKernel>(MaternSmoothness::five_halves, 1.2, 1.5 * lengthscales());
}
std::unique_ptr<Kernel> linear() {
  return std::make_unique<LinearArdKernel>(linear_variances());
}
std::unique_ptr<Kernel> periodic() {
  return std::make_unique<PeriodicKernel>(0.9, lengthscales(), 2.5);
}

std::vector<KernelCase> all_cases() {
  return {
      {"eq_ard", eq_ard, eq_ard_reference, true, {"variance", "lengthscales"}},
      {"matern32", matern32, matern32_reference, true, {"variance", "lengthscales"}},
      {"matern52", matern52, matern52_reference, true, {"variance", "lengthscales"}},
      {"linear", linear, linear_reference, false, {"variances"}},
      {"periodic", periodic, periodic_reference, true, {"variance", "lengthscales", "period"}},
      {"sum",
       [] { return std::make_unique<SumKernel>(eq_ard(), linear()); },
       [](const Vector& x, const Vector& y) { return eq_ard_reference(x, y) + linear_reference(x, y); },
       false,
       {"0.variance", "0.lengthscales", "1.variances"}},
      {"product",
       [] { return std::make_unique<ProductKernel>(matern52(), periodic()); },
       [](const Vector& x, const Vector& y) { return matern52_reference(x, y) * periodic_reference(x, y); },
       true,
       {"0.variance", "0.lengthscales", "1.variance", "1.lengthscales", "1.period"}},
      {"nested",  // (matern32 + eq_ard) * linear
       [] {
         return std::make_unique<ProductKernel>(std::make_unique<SumKernel>(matern32(), eq_ard()), linear());
       },
       [](const Vector& x, const Vector& y) {
         return (matern32_reference(x, y) + eq_ard_reference(x, y)) * linear_reference(x, y);
       },
       false,
       {"0.0.variance", "0.0.lengthscales", "0.1.variance", "0.1.lengthscales", "1.variances"}},
  };
}

class KernelTest : public ::testing::TestWithParam<KernelCase> {};

TEST_P(KernelTest, CrossAndDiagonalMatchTheDefinition) {
  const auto kernel = GetParam().make();
  const Matrix X1 = random_normal(5, kQ, 1), X2 = random_normal(4, kQ, 2);
  Matrix K;
  kernel->cross(X1, X2, K);
  ASSERT_EQ(K.rows(), 5);
  ASSERT_EQ(K.cols(), 4);
  for (Index i = 0; i < 5; ++i)
    for (Index j = 0; j < 4; ++j)
      EXPECT_NEAR(K(i, j), GetParam().reference(X1.row(i).transpose(), X2.row(j).transpose()), 1e-14);
  Matrix S;
  kernel->cross(X1, X1, S);
  EXPECT_LE((S - S.transpose()).norm(), 1e-15 * S.norm());  // a GEMM's rounding (linear) may differ by an ulp
  Vector diag;
  kernel->diagonal(X1, diag);
  ASSERT_EQ(diag.size(), 5);
  for (Index i = 0; i < 5; ++i)
    EXPECT_NEAR(diag[i], GetParam().reference(X1.row(i).transpose(), X1.row(i).transpose()), 1e-14);
}

// L = sum(G o K(X1, X2)): its finite-difference gradient in X1, X2 and the hyperparameters.
TEST_P(KernelTest, CrossBackwardMatchesFiniteDifferences) {
  const Index n1 = 6, n2 = 5, s1 = n1 * kQ, s2 = n2 * kQ;
  const Matrix X1 = random_normal(n1, kQ, 3), X2 = random_normal(n2, kQ, 4), G = random_normal(n1, n2, 5);
  const auto k0 = GetParam().make();
  const Index nh = k0->num_hyperparameters();
  Vector p(s1 + s2 + nh);
  p << Eigen::Map<const Vector>(X1.data(), s1), Eigen::Map<const Vector>(X2.data(), s2),
      k0->hyperparameters();
  auto loss = [&](const Vector& v) {
    const auto k = k0->clone();
    k->set_hyperparameters(v.tail(nh));
    Matrix K;
    k->cross(Eigen::Map<const Matrix>(v.data(), n1, kQ), Eigen::Map<const Matrix>(v.data() + s1, n2, kQ), K);
    return (G.array() * K.array()).sum();
  };
  Matrix K, dX1 = Matrix::Zero(n1, kQ), dX2 = Matrix::Zero(n2, kQ);
  Vector dh = Vector::Zero(nh);
  k0->cross(X1, X2, K);
  k0->cross_backward(X1, X2, K, G, &dX1, &dX2, dh);
  Vector analytic(p.size());
  analytic << Eigen::Map<const Vector>(dX1.data(), s1), Eigen::Map<const Vector>(dX2.data(), s2), dh;
  EXPECT_LT(max_relative_error(analytic, finite_difference_gradient(loss, p)), 1e-6);

  // Null input adjoints leave the hyperparameter gradient as it was.
  Vector dh_only = Vector::Zero(nh);
  k0->cross_backward(X1, X2, K, G, nullptr, nullptr, dh_only);
  EXPECT_LT((dh_only - dh).norm(), 1e-12 * (1.0 + dh.norm()));
}

// K(X, X) and the diagonal with the same matrix as both inputs, including two coincident points
// (zero distance, where the Matern kernels' adjoint must be 0 and not NaN).
TEST_P(KernelTest, SameMatrixAndDiagonalBackwardMatchFiniteDifferences) {
  const Index n = 7, s = n * kQ;
  Matrix X = random_normal(n, kQ, 6);
  X.row(1) = X.row(0);
  const Matrix G = random_normal(n, n, 7);
  const Vector g = random_normal(n, 1, 8);
  const auto k0 = GetParam().make();
  const Index nh = k0->num_hyperparameters();
  Vector p(s + nh);
  p << Eigen::Map<const Vector>(X.data(), s), k0->hyperparameters();
  auto loss = [&](const Vector& v) {
    const auto k = k0->clone();
    k->set_hyperparameters(v.tail(nh));
    const Matrix a = Eigen::Map<const Matrix>(v.data(), n, kQ);
    Matrix K;
    Vector d;
    k->cross(a, a, K);
    k->diagonal(a, d);
    return (G.array() * K.array()).sum() + g.dot(d);
  };
  Matrix K, dX = Matrix::Zero(n, kQ);
  Vector dh = Vector::Zero(nh);
  k0->cross(X, X, K);
  k0->cross_backward(X, X, K, G, &dX, &dX, dh);
  k0->diagonal_backward(X, g, &dX, dh);
  ASSERT_TRUE(dX.allFinite());
  ASSERT_TRUE(dh.allFinite());
  Vector analytic(p.size());
  analytic << Eigen::Map<const Vector>(dX.data(), s), dh;
  EXPECT_LT(max_relative_error(analytic, finite_difference_gradient(loss, p)), 1e-6);
}

TEST_P(KernelTest, GramMatrixIsPositiveSemidefinite) {
  const auto kernel = GetParam().make();
  for (std::uint64_t seed : {11, 12, 13}) {
    const Matrix X = 2.0 * random_normal(40, kQ, seed);
    Matrix K;
    kernel->cross(X, X, K);
    const Eigen::SelfAdjointEigenSolver<Matrix> eigen(K, Eigen::EigenvaluesOnly);
    const double largest = eigen.eigenvalues().maxCoeff();
    EXPECT_GT(largest, 0.0);
    EXPECT_GE(eigen.eigenvalues().minCoeff(), -1e-10 * largest) << "seed " << seed;
  }
}

// Every kernel here is log-parametrised: the named groups, flattened in order, are exp of the
// unconstrained hyperparameters, and follow set_hyperparameters.
TEST_P(KernelTest, NamedHyperparametersFollowSetHyperparameters) {
  const auto kernel = GetParam().make();
  const Index nh = kernel->num_hyperparameters();
  const Vector h = 0.3 * random_normal(nh, 1, 14);
  kernel->set_hyperparameters(h);
  EXPECT_LT((kernel->hyperparameters() - h).norm(), 1e-14);
  const auto named = kernel->named_hyperparameters();
  ASSERT_EQ(named.size(), GetParam().groups.size());
  Vector flat(nh);
  Index at = 0;
  for (std::size_t i = 0; i < named.size(); ++i) {
    EXPECT_EQ(named[i].name, GetParam().groups[i]);
    ASSERT_LE(at + named[i].values.size(), nh);
    flat.segment(at, named[i].values.size()) = named[i].values;
    at += named[i].values.size();
  }
  ASSERT_EQ(at, nh);
  EXPECT_LT(max_relative_error(flat, h.array().exp().matrix()), 1e-14);
  // One distinct name per hyperparameter.
  std::set<std::string> names;
  for (Index i = 0; i < nh; ++i) names.insert(kernel->hyperparameter_name(i));
  EXPECT_EQ(static_cast<Index>(names.size()), nh);
}

TEST_P(KernelTest, StationarityFlagMatchesTranslationInvariance) {
  const auto kernel = GetParam().make();
  EXPECT_EQ(kernel->is_stationary(), GetParam().stationary);
  const Matrix X1 = random_normal(6, kQ, 15), X2 = random_normal(5, kQ, 16);
  const Vector shift = random_normal(kQ, 1, 17) + Vector::Constant(kQ, 0.5);
  const Matrix Y1 = X1.rowwise() + shift.transpose(), Y2 = X2.rowwise() + shift.transpose();
  Matrix K, K_shifted;
  kernel->cross(X1, X2, K);
  kernel->cross(Y1, Y2, K_shifted);
  const double change = (K - K_shifted).norm() / K.norm();
  if (kernel->is_stationary())
    EXPECT_LT(change, 1e-12);
  else
    EXPECT_GT(change, 1e-3);
}

TEST_P(KernelTest, CloneIsIndependent) {
  const auto kernel = GetParam().make();
  const auto copy = kernel->clone();
  EXPECT_EQ(copy->name(), kernel->name());
  copy->set_hyperparameters(Vector::Zero(copy->num_hyperparameters()));
  EXPECT_GT((kernel->hyperparameters() - copy->hyperparameters()).norm(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelTest, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return info.param.label; });

TEST(KernelNames, NamesAreTheRegistryExpressions) {
  EXPECT_EQ(matern32()->name(), "matern32");
  EXPECT_EQ(matern52()->name(), "matern52");
  EXPECT_EQ(linear()->name(), "linear");
  EXPECT_EQ(periodic()->name(), "periodic");
  EXPECT_EQ(SumKernel(eq_ard(), linear()).name(), "eq_ard+linear");
  EXPECT_EQ(ProductKernel(std::make_unique<SumKernel>(eq_ard(), linear()), periodic()).name(),
            "(eq_ard+linear)*periodic");
  EXPECT_EQ(SumKernel(eq_ard(), std::make_unique<SumKernel>(linear(), periodic())).name(),
            "eq_ard+(linear+periodic)");
  EXPECT_EQ(SumKernel(std::make_unique<ProductKernel>(eq_ard(), periodic()), linear()).name(),
            "eq_ard*periodic+linear");
}

TEST(KernelErrors, InvalidHyperparametersAndShapesAreErrors) {
  EXPECT_THROW(MaternArdKernel(MaternSmoothness::three_halves, -1.0, lengthscales()), InputError);
  EXPECT_THROW(MaternArdKernel(MaternSmoothness::five_halves, 1.0, Vector()), InputError);
  EXPECT_THROW(LinearArdKernel(Vector::Constant(2, 0.0)), InputError);
  EXPECT_THROW(PeriodicKernel(1.0, lengthscales(), 0.0), InputError);
  EXPECT_THROW(SumKernel(eq_ard(), std::make_unique<LinearArdKernel>(Vector::Ones(2))), InputError);
  const auto kernel = periodic();
  EXPECT_THROW(kernel->set_hyperparameters(Vector::Zero(2)), InputError);
  Matrix K;
  EXPECT_THROW(kernel->cross(Matrix::Zero(2, 2), Matrix::Zero(2, 3), K), InputError);
  const auto sum = std::make_unique<SumKernel>(eq_ard(), linear());
  const Vector before = sum->hyperparameters();
  EXPECT_THROW(sum->set_hyperparameters(Vector::Zero(before.size() + 1)), InputError);
  EXPECT_EQ(sum->hyperparameters(), before);
}

}  // namespace
}  // namespace gplvm
