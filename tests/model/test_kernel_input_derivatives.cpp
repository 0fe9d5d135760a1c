// The input derivatives behind the Jacobian of a GP's predictive mean (Kernel::input_gradients and
// Kernel::gradient_covariance) against finite differences of the kernel's own values, for every
// registered differentiable kernel and for sums and products of them.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::contains;
using testing::random_normal;

struct KernelCase {
  std::string expression;
  bool on_sphere = false;  // inputs unit vectors (sphere_eq)
};

void PrintTo(const KernelCase& c, std::ostream* os) {
  *os << c.expression;
}

constexpr Index kQ = 3;

// The kernel with hyperparameters moved off their defaults (distinct lengthscales), so that a
// formula that confuses dimensions or forgets a factor cannot pass.
std::unique_ptr<Kernel> kernel_for(const KernelCase& c) {
  auto k = make_kernel(c.expression, kQ, KernelInit{1.3, 0.8, 2.5});
  const Vector h = k->hyperparameters() + 0.3 * random_normal(k->num_hyperparameters(), 1, 11).col(0);
  k->set_hyperparameters(h);
  return k;
}

Matrix points_for(const KernelCase& c, Index rows, std::uint64_t seed) {
  Matrix X = random_normal(rows, kQ, seed) * 0.7;
  if (c.on_sphere) X.rowwise().normalize();
  return X;
}

double k_at(const Kernel& k, const Matrix& a, const Matrix& b) {
  Matrix K;
  k.cross(a, b, K);
  return K(0, 0);
}

class KernelInputDerivatives : public ::testing::TestWithParam<KernelCase> {};

TEST_P(KernelInputDerivatives, GradientsAreFiniteDifferencesOfTheKernel) {
  const auto k = kernel_for(GetParam());
  const Matrix x = points_for(GetParam(), 1, 21), Z = points_for(GetParam(), 6, 22);
  const Matrix G = k->input_gradients(x, Z);
  ASSERT_EQ(G.rows(), Z.rows());
  ASSERT_EQ(G.cols(), kQ);
  for (Index m = 0; m < Z.rows(); ++m) {
    const auto f = [&](const Vector& v) { return k_at(*k, v.transpose(), Z.row(m)); };
    const Vector fd = testing::finite_difference_gradient(f, x.row(0).transpose());
    EXPECT_LT(testing::max_relative_error(G.row(m).transpose(), fd), 1e-6) << "row " << m;
  }
}

TEST_P(KernelInputDerivatives, GradientCovarianceIsTheMixedSecondDerivativeAtCoincidentInputs) {
  const auto k = kernel_for(GetParam());
  for (std::uint64_t seed : {31u, 32u}) {
    const Matrix x = points_for(GetParam(), 1, seed);
    const Matrix H = k->gradient_covariance(x);
    ASSERT_EQ(H.rows(), kQ);
    ASSERT_EQ(H.cols(), kQ);
    Matrix fd(kQ, kQ);
    for (Index a = 0; a < kQ; ++a)
      for (Index b = 0; b < kQ; ++b)
        fd(a, b) = testing::mixed_second_difference(
            [&](const Matrix& u, const Matrix& v) { return k_at(*k, u, v); }, x, a, b, 1e-3);
    const Eigen::Map<const Vector> h(H.data(), H.size()), f(fd.data(), fd.size());
    EXPECT_LT(testing::max_relative_error(h, f), 1e-6) << "H =\n" << H << "\nFD =\n" << fd;
    // A covariance: symmetric and positive semi-definite.
    EXPECT_LT((H - H.transpose()).cwiseAbs().maxCoeff(), 1e-14 * H.cwiseAbs().maxCoeff());
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Matrix>(H).eigenvalues().minCoeff(), -1e-12 * H.norm());
  }
}

// Central differences of the (separately tested) input gradients along each input coordinate.
TEST_P(KernelInputDerivatives, HessiansAreFiniteDifferencesOfTheInputGradients) {
  const auto k = kernel_for(GetParam());
  const Matrix x = points_for(GetParam(), 1, 41), Z = points_for(GetParam(), 5, 42);
  const std::vector<Matrix> H = k->input_hessians(x, Z);
  ASSERT_EQ(static_cast<Index>(H.size()), Z.rows());
  constexpr double h = 1e-5;
  for (Index m = 0; m < Z.rows(); ++m) {
    ASSERT_EQ(H[m].rows(), kQ);
    ASSERT_EQ(H[m].cols(), kQ);
    Matrix fd(kQ, kQ);
    for (Index j = 0; j < kQ; ++j) {
      Matrix up = x, down = x;
      up(0, j) += h;
      down(0, j) -= h;
      fd.col(j) =
          (k->input_gradients(up, Z.row(m)) - k->input_gradients(down, Z.row(m))).transpose() / (2 * h);
    }
    const Eigen::Map<const Vector> got(H[m].data(), H[m].size()), want(fd.data(), fd.size());
    // Scaled by the kernel's own H, so a Hessian that is zero (linear) is judged on that scale.
    EXPECT_LT(testing::max_relative_error(got, want, k->gradient_covariance(x).norm()), 1e-6)
        << "row " << m << "\nH =\n"
        << H[m] << "\nFD =\n"
        << fd;
    EXPECT_LT((H[m] - H[m].transpose()).cwiseAbs().maxCoeff(), 1e-14 * (1 + H[m].cwiseAbs().maxCoeff()));
  }
}

// dH(x)/dx_j against central differences of gradient_covariance; a kernel whose H varies and that
// gives no derivative (a product with a non-stationary child) is refused, naming model.kernel.
TEST_P(KernelInputDerivatives, GradientCovarianceDerivativesAreFiniteDifferencesOrRefused) {
  const auto k = kernel_for(GetParam());
  const Matrix x = points_for(GetParam(), 1, 51);
  const bool declared = GetParam().expression.find('*') == std::string::npos || k->is_stationary();
  if (!declared) {
    try {
      (void)k->gradient_covariance_derivatives(x);
      FAIL() << GetParam().expression << " gives no derivative of H";
    } catch (const InputError& e) {
      EXPECT_EQ(e.context().key, "model.kernel");
    }
    return;
  }
  const std::vector<Matrix> dH = k->gradient_covariance_derivatives(x);
  ASSERT_EQ(static_cast<Index>(dH.size()), kQ);
  constexpr double h = 1e-5;
  for (Index j = 0; j < kQ; ++j) {
    Matrix up = x, down = x;
    up(0, j) += h;
    down(0, j) -= h;
    const Matrix fd = (k->gradient_covariance(up) - k->gradient_covariance(down)) / (2 * h);
    const Eigen::Map<const Vector> got(dH[j].data(), dH[j].size()), want(fd.data(), fd.size());
    EXPECT_LT(testing::max_relative_error(got, want, k->gradient_covariance(x).norm()), 1e-6) << "j = " << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, KernelInputDerivatives,
                         ::testing::Values(KernelCase{"eq_ard"}, KernelCase{"matern32"},
                                           KernelCase{"matern52"}, KernelCase{"linear"},
                                           KernelCase{"periodic"}, KernelCase{"sphere_eq", true},
                                           KernelCase{"eq_ard+linear"}, KernelCase{"eq_ard*periodic"},
                                           KernelCase{"linear*matern52"},
                                           KernelCase{"(eq_ard+linear)*linear"}),
                         [](const ::testing::TestParamInfo<KernelCase>& info) {
                           std::string name;
                           for (char ch : info.param.expression)
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

TEST(KernelInputDerivatives, AKernelWithACuspAtCoincidentInputsIsRefusedNamingModelKernel) {
  const auto k = make_kernel("hyperboloid_exp", kQ + 1);
  Matrix x = Matrix::Zero(1, kQ + 1);
  x(0, 0) = 1.0;  // the hyperboloid's origin
  try {
    (void)k->gradient_covariance(x);
    FAIL() << "hyperboloid_exp has no second input derivative";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "model.kernel");
    EXPECT_TRUE(contains(e.what(), "hyperboloid_exp")) << e.what();
  }
  // A product with it is refused too, by the child that has none.
  EXPECT_THROW((void)make_kernel("hyperboloid_exp*hyperboloid_exp", kQ + 1)->gradient_covariance(x),
               InputError);
  EXPECT_THROW((void)k->input_hessians(x, x), InputError);
}

}  // namespace
}  // namespace gplvm
