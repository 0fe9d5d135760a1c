// A latent space defined in this file alone, with a kernel registered for its points, trains through
// the train command at every rank count: the space's registration adds it to model.latent_space's
// accepted values, its kernel is refused on other spaces and other kernels on it, and the run file
// says where its latents live. The space is R^Q under another name (every map forwarded to the
// built-in euclidean space), so a run on it must give the bits of the same run on "euclidean".
#include <gtest/gtest.h>

#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/run/train_config.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

class PlaneLatentSpace final : public LatentSpace {
 public:
  explicit PlaneLatentSpace(Index q) : flat_(q) {}
  std::string name() const override { return "plane"; }
  const Manifold& manifold() const override { return flat_.manifold(); }
  void from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const override {
    flat_.from_origin_tangent(V, X);
  }
  void from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                    MatrixRef dV) const override {
    flat_.from_origin_tangent_backward(V, dX, dV);
  }
  void sample_posterior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                        const ConstMatrixRef& eps, Matrix& X) const override {
    flat_.sample_posterior(location, variance, eps, X);
  }
  void sample_posterior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                 const ConstMatrixRef& eps, const ConstMatrixRef& dX, MatrixRef d_location,
                                 MatrixRef d_variance) const override {
    flat_.sample_posterior_backward(location, variance, eps, dX, d_location, d_variance);
  }
  bool has_closed_form_kl() const override { return true; }
  double kl_to_prior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                     const ConstMatrixRef& samples) const override {
    return flat_.kl_to_prior(location, variance, samples);
  }
  void kl_to_prior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                            const ConstMatrixRef& samples, double scale, MatrixRef d_location,
                            MatrixRef d_variance, Matrix* d_samples) const override {
    flat_.kl_to_prior_backward(location, variance, samples, scale, d_location, d_variance, d_samples);
  }

 private:
  EuclideanLatentSpace flat_;
};

void register_plane() {
  register_latent_space("plane", [](Index q) { return std::make_unique<PlaneLatentSpace>(q); });
  register_kernel(
      "plane_eq",
      [](Index q, const KernelInit& init) -> std::unique_ptr<Kernel> {
        return std::make_unique<EqArdKernel>(init.variance, init.lengthscale, q);
      },
      "plane");
}

class PluginLatentSpace : public ::testing::Test {
 protected:
  const Communicator comm_;
  const testing::SharedScratchDir scratch_{comm_, "gplvm-plugin-latent-space"};
};

TEST_F(PluginLatentSpace, IsUnknownUntilRegisteredThenTrainsAsTheSpaceItForwardsTo) {
  const std::string data = scratch_ / "data.h5";
  ASSERT_EQ(
      generate_command({"--kind", "gp", "--n", "90", "--d", "5", "--seed", "4", "--output", data}, comm_),
      kExitOk);
  const auto train = [&](const std::string& kind, const std::string& space, const std::string& kernel,
                         const std::string& run) {
    return train_command(
        {"--data.path=" + data, "--model.kind=" + kind, "--model.latents=free",
         "--model.latent_space=" + space, "--model.kernel=" + kernel, "--model.lengthscale=1.0",
         "--sas.batch_size=30", "--sas.active_size=10", "--train.max_steps=12", "--train.reproducible=true",
         "--train.progress_seconds=1000", "--output.path=" + run},
        comm_);
  };
  EXPECT_THROW(train("sas", "plane", "eq_ard", scratch_ / "early.h5"), InputError);
  register_plane();
  const ConfigKey* key = train_config_schema().find("model.latent_space");
  ASSERT_NE(key, nullptr);
  // Listed with what its points are (its manifold's description), and with its kernel.
  EXPECT_TRUE(testing::contains(key->description, "plane (R^n")) << key->description;
  const ConfigKey* kernel = train_config_schema().find("model.kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_TRUE(testing::contains(kernel->description, "plane: plane_eq")) << kernel->description;
  // A kernel of R^Q on the plane, and the plane's kernel on R^Q, read the wrong points.
  EXPECT_THROW(train("sas", "plane", "eq_ard", scratch_ / "mixed.h5"), InputError);
  EXPECT_THROW(train("sas", "euclidean", "plane_eq", scratch_ / "mixed.h5"), InputError);

  for (const std::string kind : {"sas", "bayesian_sas"}) {
    const std::string plane = scratch_ / (kind + "-plane.h5"), flat = scratch_ / (kind + "-euclidean.h5");
    ASSERT_EQ(train(kind, "plane", "plane_eq", plane), kExitOk);
    ASSERT_EQ(train(kind, "euclidean", "eq_ard", flat), kExitOk);
    const Hdf5ResultReader a(plane, comm_.raw()), b(flat, comm_.raw());
    EXPECT_EQ(a.read_attribute_string("/", "latent_space"), "plane");
    EXPECT_EQ(a.read_attribute_string("/latent/mean", "latent_space"), "plane");
    EXPECT_TRUE(a.read_matrix("/latent/mean") == b.read_matrix("/latent/mean")) << kind;
    EXPECT_TRUE(a.read_vector("/params/shared") == b.read_vector("/params/shared")) << kind;
    EXPECT_TRUE(a.read_matrix("/train/curve").col(2) == b.read_matrix("/train/curve").col(2)) << kind;
  }
}

}  // namespace
}  // namespace gplvm
