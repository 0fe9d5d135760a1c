#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/model/composite_kernel.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/periodic_kernel.hpp"
#include "gplvm/model/product_kernel.hpp"
#include "gplvm/model/sum_kernel.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::contains;
using testing::random_normal;

template <typename T>
bool is_a(const Kernel& k) {
  return dynamic_cast<const T*>(&k) != nullptr;
}

const CompositeKernel& composite(const Kernel& k) {
  return dynamic_cast<const CompositeKernel&>(k);
}

TEST(KernelRegistry, BuiltInsAreRegistered) {
  const std::vector<std::string> expected = {"eq_ard", "linear", "matern32", "matern52", "periodic"};
  for (const auto& name : expected) {
    EXPECT_TRUE(is_registered_kernel(name)) << name;
    EXPECT_EQ(make_kernel(name, 2)->name(), name);
  }
  const auto names = registered_kernels();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_FALSE(is_registered_kernel("foo"));
}

TEST(KernelRegistry, InitialValuesReachTheKernel) {
  const auto k = make_kernel("periodic", 3, KernelInit{2.0, 0.5, 6.0});
  const auto& p = dynamic_cast<const PeriodicKernel&>(*k);
  EXPECT_EQ(p.input_dim(), 3);
  EXPECT_DOUBLE_EQ(p.variance(), 2.0);
  EXPECT_DOUBLE_EQ(p.lengthscales()[2], 0.5);
  EXPECT_DOUBLE_EQ(p.period(), 6.0);
  const auto e = make_kernel("eq_ard", 2, KernelInit{3.0, 1.5, 1.0});
  EXPECT_DOUBLE_EQ(dynamic_cast<const EqArdKernel&>(*e).lengthscales()[1], 1.5);
}

TEST(KernelRegistry, SumsAndProductsParseWithPrecedence) {
  const auto sum = make_kernel("matern32+linear", 2);
  ASSERT_TRUE(is_a<SumKernel>(*sum));
  EXPECT_EQ(composite(*sum).left().name(), "matern32");
  EXPECT_EQ(composite(*sum).right().name(), "linear");

  // * binds tighter: (eq_ard * periodic) + linear.
  const auto mixed = make_kernel("eq_ard*periodic+linear", 2);
  ASSERT_TRUE(is_a<SumKernel>(*mixed));
  ASSERT_TRUE(is_a<ProductKernel>(composite(*mixed).left()));
  EXPECT_EQ(composite(*mixed).right().name(), "linear");
  EXPECT_EQ(mixed->name(), "eq_ard*periodic+linear");
  const auto other_side = make_kernel("linear+eq_ard*periodic", 2);
  ASSERT_TRUE(is_a<ProductKernel>(composite(*other_side).right()));

  const Matrix X1 = random_normal(4, 2, 1), X2 = random_normal(3, 2, 2);
  Matrix K, K_eq, K_per, K_lin;
  mixed->cross(X1, X2, K);
  make_kernel("eq_ard", 2)->cross(X1, X2, K_eq);
  make_kernel("periodic", 2)->cross(X1, X2, K_per);
  make_kernel("linear", 2)->cross(X1, X2, K_lin);
  EXPECT_LT((K - (K_eq.cwiseProduct(K_per) + K_lin)).norm(), 1e-14);
}

TEST(KernelRegistry, ParenthesesAndWhitespace) {
  const auto k = make_kernel("  ( eq_ard + linear ) *\tperiodic ", 2);
  ASSERT_TRUE(is_a<ProductKernel>(*k));
  ASSERT_TRUE(is_a<SumKernel>(composite(*k).left()));
  EXPECT_EQ(k->name(), "(eq_ard+linear)*periodic");
  EXPECT_EQ(make_kernel("((matern52))", 1)->name(), "matern52");
  // Left-associative, and names parse back into the same tree.
  EXPECT_EQ(make_kernel("eq_ard+linear+periodic", 1)->name(), "eq_ard+linear+periodic");
  EXPECT_EQ(make_kernel("eq_ard+(linear+periodic)", 1)->name(), "eq_ard+(linear+periodic)");
  for (const char* e :
       {"eq_ard*(linear*periodic)", "(eq_ard+linear)*(matern32+periodic)", "eq_ard*linear*periodic"})
    EXPECT_EQ(make_kernel(make_kernel(e, 2)->name(), 2)->name(), make_kernel(e, 2)->name()) << e;
  // Hyperparameters: the left operand's, then the right one's.
  const auto sum = make_kernel("eq_ard+linear", 2);
  EXPECT_EQ(sum->num_hyperparameters(), 3 + 2);
  EXPECT_EQ(sum->hyperparameter_name(0), "0.log_variance");
  EXPECT_EQ(sum->hyperparameter_name(3), "1.log_variance_0");
}

void expect_expression_error(const std::string& expression, const std::string& part) {
  SCOPED_TRACE(expression);
  try {
    make_kernel(expression, 2);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "model.kernel");
    EXPECT_EQ(e.context().value, expression);
    EXPECT_TRUE(contains(e.what(), "'" + expression + "'")) << e.what();
    EXPECT_TRUE(contains(e.what(), part)) << e.what();
    for (const auto& name : registered_kernels()) EXPECT_TRUE(contains(e.what(), name)) << e.what();
  }
}

TEST(KernelRegistry, BadExpressionsAreInputErrorsNamingTheKey) {
  expect_expression_error("foo", "unknown kernel 'foo'");
  expect_expression_error("eq_ard+foo", "unknown kernel 'foo'");
  expect_expression_error("eq_ard+", "missing");
  expect_expression_error("(eq_ard", "missing ')'");
  expect_expression_error("eq_ard)", "unexpected ')'");
  expect_expression_error("", "missing");
  expect_expression_error("eq_ard linear", "unexpected 'l'");
  expect_expression_error("*linear", "expected before '*'");
  expect_expression_error("EQ_ARD", "expected before 'E'");
}

TEST(KernelRegistry, BadRegistrationsAreErrors) {
  const KernelFactory factory = [](Index q, const KernelInit&) {
    return std::make_unique<EqArdKernel>(1.0, 1.0, q);
  };
  EXPECT_THROW(register_kernel("", factory), InputError);
  EXPECT_THROW(register_kernel("Bad-Name", factory), InputError);
  EXPECT_THROW(register_kernel("no_factory", KernelFactory()), InputError);
}

// A kernel a program adds: a scaled EQ kernel, under a name of its own.
class ScaledEqKernel final : public Kernel {
 public:
  explicit ScaledEqKernel(Index q) : inner_(2.0, 1.0, q) {}
  std::unique_ptr<Kernel> clone() const override { return std::make_unique<ScaledEqKernel>(*this); }
  std::string name() const override { return "scaled_eq"; }
  bool is_stationary() const override { return true; }
  Index input_dim() const override { return inner_.input_dim(); }
  Index num_hyperparameters() const override { return inner_.num_hyperparameters(); }
  std::string hyperparameter_name(Index i) const override { return inner_.hyperparameter_name(i); }
  Vector hyperparameters() const override { return inner_.hyperparameters(); }
  void set_hyperparameters(const ConstVectorRef& v) override { inner_.set_hyperparameters(v); }
  std::vector<NamedHyperparameter> named_hyperparameters() const override {
    return inner_.named_hyperparameters();
  }
  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override {
    inner_.cross(X1, X2, K);
  }
  void diagonal(const ConstMatrixRef& X, Vector& k) const override { inner_.diagonal(X, k); }
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override {
    inner_.cross_backward(X1, X2, K, G, dX1, dX2, d_hyper);
  }
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override {
    inner_.diagonal_backward(X, g, dX, d_hyper);
  }

 private:
  EqArdKernel inner_;
};

TEST(KernelRegistry, ProgramsRegisterTheirOwnKernels) {
  register_kernel("scaled_eq",
                  [](Index q, const KernelInit&) { return std::make_unique<ScaledEqKernel>(q); });
  EXPECT_TRUE(is_registered_kernel("scaled_eq"));
  const auto names = registered_kernels();
  EXPECT_NE(std::find(names.begin(), names.end(), "scaled_eq"), names.end());
  EXPECT_EQ(make_kernel("scaled_eq", 2)->name(), "scaled_eq");
  const auto k = make_kernel("scaled_eq * linear + matern32", 2);
  EXPECT_EQ(k->name(), "scaled_eq*linear+matern32");
  EXPECT_EQ(k->num_hyperparameters(), 3 + 2 + 3);
  // Its Psi-statistics come from the numerical default like every kernel's.
  PsiStatistics psi;
  make_kernel("scaled_eq", 1)
      ->psi_statistics(Matrix::Zero(2, 1), Matrix::Constant(2, 1, 0.1), Matrix::Ones(3, 1), psi);
  EXPECT_NEAR(psi.psi0, 2 * 2.0, 1e-12);
}

}  // namespace
}  // namespace gplvm
