// A kernel defined only in this file trains end to end through the CLI's own code (generate,
// train, exact, as `gplvm <command>` runs them, at every rank count): registering it is the only
// thing a new kernel needs. The run file names its hyperparameters as the kernel does.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "gplvm/apps/commands.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

// k(x, x') = s exp(-|x - x'|^2 / (2 l^2)) with ONE lengthscale for every dimension, parametrised
// by log s and log l: not a built-in, so only the registration below makes it usable.
class IsotropicEqKernel final : public Kernel {
 public:
  IsotropicEqKernel(Index dim, double variance, double lengthscale)
      : dim_(dim), log_variance_(std::log(variance)), log_lengthscale_(std::log(lengthscale)) {}
  std::unique_ptr<Kernel> clone() const override { return std::make_unique<IsotropicEqKernel>(*this); }
  std::string name() const override { return "test_isotropic_eq"; }
  bool is_stationary() const override { return true; }
  Index input_dim() const override { return dim_; }
  Index num_hyperparameters() const override { return 2; }
  std::string hyperparameter_name(Index i) const override { return i == 0 ? "log_scale" : "log_width"; }
  Vector hyperparameters() const override {
    return (Vector(2) << log_variance_, log_lengthscale_).finished();
  }
  void set_hyperparameters(const ConstVectorRef& v) override {
    log_variance_ = v[0];
    log_lengthscale_ = v[1];
  }
  std::vector<NamedHyperparameter> named_hyperparameters() const override {
    return {{"scale", Vector::Constant(1, std::exp(log_variance_))},
            {"width", Vector::Constant(1, std::exp(log_lengthscale_))}};
  }
  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override {
    const double s = std::exp(log_variance_), l2 = std::exp(2 * log_lengthscale_);
    K.resize(X1.rows(), X2.rows());
    for (Index j = 0; j < X2.rows(); ++j)
      for (Index i = 0; i < X1.rows(); ++i)
        K(i, j) = s * std::exp(-0.5 * (X1.row(i) - X2.row(j)).squaredNorm() / l2);
  }
  void diagonal(const ConstMatrixRef& X, Vector& k) const override {
    k = Vector::Constant(X.rows(), std::exp(log_variance_));
  }
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override {
    const double l2 = std::exp(2 * log_lengthscale_);
    for (Index j = 0; j < X2.rows(); ++j)
      for (Index i = 0; i < X1.rows(); ++i) {
        const double gk = G(i, j) * K(i, j);
        const auto diff = (X1.row(i) - X2.row(j)).eval();
        d_hyper[0] += gk;
        d_hyper[1] += gk * diff.squaredNorm() / l2;
        if (dX1) dX1->row(i) -= gk / l2 * diff;
        if (dX2) dX2->row(j) += gk / l2 * diff;
      }
  }
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix*,
                         VectorRef d_hyper) const override {
    d_hyper[0] += g.sum() * std::exp(log_variance_);
  }

 private:
  Index dim_;
  double log_variance_, log_lengthscale_;
};

void register_test_kernel() {
  register_kernel("test_isotropic_eq", [](Index dim, const KernelInit& init) -> std::unique_ptr<Kernel> {
    return std::make_unique<IsotropicEqKernel>(dim, init.variance, init.lengthscale);
  });
}

// A folder every rank agrees on, removed at the end.
struct SharedScratch {
  explicit SharedScratch(const Communicator& comm) : comm(comm) {
    dir =
        comm.broadcast((fs::temp_directory_path() / ("gplvm-plugin-" + std::to_string(::getpid()))).string());
    if (comm.is_root()) fs::create_directories(dir);
    comm.barrier();
  }
  ~SharedScratch() {
    comm.barrier();
    if (comm.is_root()) fs::remove_all(dir);
  }
  std::string path(const std::string& name) const { return (fs::path(dir) / name).string(); }
  const Communicator& comm;
  std::string dir;
};

TEST(KernelPlugin, AKernelDefinedInTheTestTrainsThroughTheCommands) {
  const Communicator comm;
  register_test_kernel();
  const SharedScratch scratch(comm);
  const std::string data = scratch.path("data.h5"), config = scratch.path("config.toml"),
                    run = scratch.path("out/run.h5");
  ASSERT_EQ(
      generate_command({"--kind", "gp", "--n", "240", "--d", "6", "--seed", "3", "--output", data}, comm),
      kExitOk);
  if (comm.is_root()) {
    std::ofstream(config)
        << "[data]\npath = \"" << data << "\"\n[model]\nkernel = \"test_isotropic_eq\"\n"
        << "latents = \"free\"\nlengthscale = 1.0\n[sas]\nbatch_size = 60\nactive_size = 20\n"
        << "[train]\nepochs = 30\nlearning_rate = 0.02\nprogress_seconds = 1000\n"
        << "[output]\npath = \"" << run << "\"\n";
  }
  comm.barrier();
  ASSERT_EQ(train_command({"--config", config}, comm), kExitOk);

  {
    const Hdf5ResultReader out(run, comm.raw());
    EXPECT_EQ(out.read_attribute_string("/", "kernel"), "test_isotropic_eq");
    const Vector shared = out.read_vector("/params/shared");
    // The kernel's own names, in natural units, from its trained hyperparameters.
    EXPECT_NEAR(out.read_scalar("/params/kernel/scale"), std::exp(shared[0]), 1e-12);
    EXPECT_NEAR(out.read_scalar("/params/kernel/width"), std::exp(shared[1]), 1e-12);
    EXPECT_NEAR(out.read_scalar("/params/noise_variance"), std::exp(shared[2]), 1e-12);
    const Matrix curve = out.read_matrix("/train/curve");
    ASSERT_GT(curve.rows(), 10);
    const Index tenth = curve.rows() / 10;
    EXPECT_GT(curve.col(2).tail(tenth).mean(), curve.col(2).head(tenth).mean());  // it trained
  }

  // exact evaluates the trained model with the same kernel.
  ASSERT_EQ(exact_command({"--run", run, "--data", data}, comm), kExitOk);
}

TEST(KernelPlugin, AnUnregisteredNameIsAnInputErrorNamingTheKey) {
  const Communicator comm;
  const SharedScratch scratch(comm);
  const std::string data = scratch.path("data.h5");
  ASSERT_EQ(generate_command({"--kind", "gp", "--n", "50", "--d", "3", "--output", data}, comm), kExitOk);
  try {
    train_command(
        {"--data.path=" + data, "--model.kernel=not_a_kernel", "--output.path=" + scratch.path("run.h5")},
        comm);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(testing::contains(e.what(), "model.kernel")) << e.what();
    EXPECT_TRUE(testing::contains(e.what(), "not_a_kernel")) << e.what();
  }
}

}  // namespace
}  // namespace gplvm
