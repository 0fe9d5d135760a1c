// A kernel with a kind of hyperparameter no built-in has (the rational quadratic's alpha), defined
// and registered in this file only, with the configuration key its initial value comes from: the
// key is unknown before the registration, and after it the train configuration accepts it, hands
// its value to the kernel and trains through the CLI's own commands at every rank count.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/run/train_config.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr const char* kAlphaKey = "model.kernel_alpha";
constexpr double kDefaultAlpha = 2.0;

// k(x, x') = s (1 + r^2 / (2 alpha l^2))^-alpha, r = |x - x'|, parametrised by log s, log l and
// log alpha: a scale mixture of squared exponentials, which alpha -> infinity turns into one.
class RationalQuadraticKernel final : public Kernel {
 public:
  RationalQuadraticKernel(Index dim, double scale, double lengthscale, double alpha)
      : dim_(dim), log_(Vector(3)) {
    log_ << std::log(scale), std::log(lengthscale), std::log(alpha);
  }
  std::unique_ptr<Kernel> clone() const override { return std::make_unique<RationalQuadraticKernel>(*this); }
  std::string name() const override { return "rational_quadratic"; }
  bool is_stationary() const override { return true; }
  Index input_dim() const override { return dim_; }
  Index num_hyperparameters() const override { return 3; }
  std::string hyperparameter_name(Index i) const override {
    return i == 0 ? "log_variance" : i == 1 ? "log_lengthscale" : "log_alpha";
  }
  Vector hyperparameters() const override { return log_; }
  void set_hyperparameters(const ConstVectorRef& v) override { log_ = v; }
  std::vector<NamedHyperparameter> named_hyperparameters() const override {
    return {{"variance", Vector::Constant(1, s())},
            {"lengthscale", Vector::Constant(1, std::exp(log_[1]))},
            {"alpha", Vector::Constant(1, alpha())}};
  }
  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override {
    K.resize(X1.rows(), X2.rows());
    for (Index j = 0; j < X2.rows(); ++j)
      for (Index i = 0; i < X1.rows(); ++i) K(i, j) = s() * std::pow(u(X1.row(i), X2.row(j)), -alpha());
  }
  void diagonal(const ConstMatrixRef& X, Vector& k) const override { k = Vector::Constant(X.rows(), s()); }
  // With u = 1 + r^2 / (2 alpha l^2): dk/dlog l = 2 alpha k (u - 1) / u,
  // dk/dlog alpha = alpha k ((u - 1) / u - log u), dk/dx1 = -k (x1 - x2) / (u l^2).
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override {
    const double a = alpha(), l2 = std::exp(2 * log_[1]);
    for (Index j = 0; j < X2.rows(); ++j)
      for (Index i = 0; i < X1.rows(); ++i) {
        const double uij = u(X1.row(i), X2.row(j)), gk = G(i, j) * K(i, j);
        d_hyper[0] += gk;
        d_hyper[1] += gk * 2 * a * (uij - 1) / uij;
        d_hyper[2] += gk * a * ((uij - 1) / uij - std::log(uij));
        const auto diff = (X1.row(i) - X2.row(j)).eval();
        if (dX1) dX1->row(i) -= gk / (uij * l2) * diff;
        if (dX2) dX2->row(j) += gk / (uij * l2) * diff;
      }
  }
  void diagonal_backward(const ConstMatrixRef&, const Vector& g, Matrix*, VectorRef d_hyper) const override {
    d_hyper[0] += g.sum() * s();
  }

 private:
  double s() const { return std::exp(log_[0]); }
  double alpha() const { return std::exp(log_[2]); }
  template <typename A, typename B>
  double u(const A& x1, const B& x2) const {
    return 1 + (x1 - x2).squaredNorm() / (2 * alpha() * std::exp(2 * log_[1]));
  }
  Index dim_;
  Vector log_;
};

void register_rational_quadratic() {
  register_kernel("rational_quadratic",
                  [](Index dim, const KernelInit& init) -> std::unique_ptr<Kernel> {
                    return std::make_unique<RationalQuadraticKernel>(dim, init.variance, init.lengthscale,
                                                                     init.setting(kAlphaKey, kDefaultAlpha));
                  },
                  kEuclideanKernelDomain,
                  {{kAlphaKey, kDefaultAlpha, "initial alpha of rational_quadratic"}});
}

// sum_ij G_ij K_ij + sum_i g_i k_i as a function of the hyperparameters and inputs, against its
// gradient from the adjoints, by central differences.
TEST(PluginKernelSetting, TheKernelsGradientsMatchFiniteDifferences) {
  RationalQuadraticKernel k(2, 1.3, 0.7, 1.8);
  const Matrix X1 = testing::random_normal(4, 2, 3), X2 = testing::random_normal(3, 2, 4);
  const Matrix G = testing::random_normal(4, 3, 5);
  Matrix K;
  k.cross(X1, X2, K);
  Matrix dX1 = Matrix::Zero(4, 2), dX2 = Matrix::Zero(3, 2);
  Vector d_hyper = Vector::Zero(3);
  k.cross_backward(X1, X2, K, G, &dX1, &dX2, d_hyper);
  const auto value = [&](const Vector& h, const Matrix& A, const Matrix& B) {
    RationalQuadraticKernel copy = k;
    copy.set_hyperparameters(h);
    Matrix C;
    copy.cross(A, B, C);
    return (G.array() * C.array()).sum();
  };
  const Vector h = k.hyperparameters();
  const Vector fd_h =
      testing::finite_difference_gradient([&](const Vector& v) { return value(v, X1, X2); }, h);
  EXPECT_LT(testing::max_relative_error(d_hyper, fd_h), 1e-6);
  const Vector x1 = Eigen::Map<const Vector>(X1.data(), X1.size());
  const Vector fd_x1 = testing::finite_difference_gradient(
      [&](const Vector& v) { return value(h, Eigen::Map<const Matrix>(v.data(), 4, 2), X2); }, x1);
  EXPECT_LT(testing::max_relative_error(Eigen::Map<const Vector>(dX1.data(), dX1.size()), fd_x1), 1e-6);
  const Vector x2 = Eigen::Map<const Vector>(X2.data(), X2.size());
  const Vector fd_x2 = testing::finite_difference_gradient(
      [&](const Vector& v) { return value(h, X1, Eigen::Map<const Matrix>(v.data(), 3, 2)); }, x2);
  EXPECT_LT(testing::max_relative_error(Eigen::Map<const Vector>(dX2.data(), dX2.size()), fd_x2), 1e-6);
}

class PluginKernelSettingCli : public ::testing::Test {
 protected:
  const Communicator comm_;
  const testing::SharedScratchDir scratch_{comm_, "gplvm-plugin-kernel-setting"};
};

TEST_F(PluginKernelSettingCli, TheKeyIsUnknownUntilRegisteredThenReachesTheKernelAndTrains) {
  const std::string data = (scratch_ / "data.h5"), config = (scratch_ / "config.toml");
  ASSERT_EQ(
      generate_command({"--kind", "gp", "--n", "160", "--d", "5", "--seed", "3", "--output", data}, comm_),
      kExitOk);
  if (comm_.is_root())
    std::ofstream(config) << "[data]\npath = \"" << data << "\"\n[model]\nlatents = \"free\"\n"
                          << "lengthscale = 1.0\n[sas]\nbatch_size = 40\nactive_size = 16\n"
                          << "[train]\nepochs = 20\nlearning_rate = 0.02\nprogress_seconds = 1000\n";
  comm_.barrier();
  const auto train = [&](const std::string& run, std::vector<std::string> extra) {
    std::vector<std::string> args{"--config", config, "--model.kernel=rational_quadratic",
                                  "--model.fixed_hyperparameters=[\"alpha\"]", "--output.path=" + run};
    args.insert(args.end(), extra.begin(), extra.end());
    return train_command(args, comm_);
  };
  try {
    train((scratch_ / "early.h5"), {"--model.kernel_alpha=3.5"});
    ADD_FAILURE() << "an undeclared key was accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(testing::contains(e.what(), kAlphaKey)) << e.what();
  }

  register_rational_quadratic();
  const ConfigKey* key = train_config_schema().find(kAlphaKey);
  ASSERT_NE(key, nullptr) << "the registered kernel's key is not in the train configuration";
  EXPECT_TRUE(testing::contains(train_config_schema().help_text(), kAlphaKey));

  // Given, and left at the declared default: alpha is fixed, so it keeps the initial value the
  // key gave, while the rest trains.
  for (const auto& [run, extra, alpha] :
       {std::tuple{(scratch_ / "given.h5"), std::vector<std::string>{"--model.kernel_alpha=3.5"}, 3.5},
        std::tuple{(scratch_ / "default.h5"), std::vector<std::string>{}, kDefaultAlpha}}) {
    ASSERT_EQ(train(run, extra), kExitOk);
    const Hdf5ResultReader out(run, comm_.raw());
    EXPECT_EQ(out.read_attribute_string("/", "kernel"), "rational_quadratic");
    EXPECT_NEAR(out.read_scalar("/params/kernel/alpha"), alpha, 1e-13 * alpha);
    const Matrix curve = out.read_matrix("/train/curve");
    ASSERT_GT(curve.rows(), 10);
    const Index tenth = curve.rows() / 10;
    EXPECT_GT(curve.col(2).tail(tenth).mean(), curve.col(2).head(tenth).mean()) << "it did not train";
  }
  // The trained run loads in the commands that rebuild its kernel from the stored configuration.
  EXPECT_EQ(exact_command({"--run", (scratch_ / "given.h5"), "--data", data}, comm_), kExitOk);
}

}  // namespace
}  // namespace gplvm
