#pragma once
// The GP decoder a GPLVM-family model holds (sas, bayesian_sas, exact, sparse_gplvm,
// bayesian_gplvm): a kernel from the kernel registry and Gaussian noise, with their parameter
// blocks ("kernel": log hyperparameters, some possibly fixed; "noise_variance": its log) in the
// model's layout. Models without a GP decoder (a VAE) hold none, and Model::gp_decoder() is null.
// What the decoder is conditioned on (an active set, inducing points, all rows) stays the model's.
#include <memory>
#include <string>
#include <vector>

#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/models/gp_posterior.hpp"
#include "gplvm/models/parameter_layout.hpp"

namespace gplvm {

// The decoder's settings, as model.* keys give them: the one settings struct of every GP-decoder
// kind (SasModelConfig, SparseGplvmConfig, ExactTrainingOptions hold one).
struct GpDecoderSettings {
  std::string kernel = "eq_ard";  // a kernel-registry expression
  KernelInit init;                // the kernel's initial hyperparameters
  double noise_variance = 0.5;    // initial
  // Kernel hyperparameters held at their initial values (models/fixed_hyperparameters.hpp).
  std::vector<std::string> fixed_hyperparameters = {};
};

class GpDecoder {
 public:
  // A decoder on inputs of input_dim coordinates (the latent space's ambient dimension) whose
  // latent space is `latent_space` (InputError naming model.kernel when the kernel does not fit it),
  // appending its blocks to `layout`.
  GpDecoder(const GpDecoderSettings& settings, Index input_dim, const std::string& latent_space,
            ParameterLayout& layout);

  const Kernel& prototype() const noexcept { return *prototype_; }  // the initial hyperparameters
  Index kernel_offset() const noexcept { return kernel_offset_; }
  Index noise_offset() const noexcept { return noise_offset_; }
  // Kernel hyperparameters and log noise, which every rank computes identically.
  Index num_parameters() const noexcept { return prototype_->num_hyperparameters() + 1; }

  // The kernel and noise under params.
  std::unique_ptr<Kernel> kernel(const Vector& params) const;
  double noise_variance(const Vector& params) const;
  // The decoder under params conditioned on observed rows Y at latents Z (M x ambient): its
  // predictive, the Jacobian of the predictive mean and that Jacobian's covariance.
  GpPosterior condition(const Vector& params, const ConstMatrixRef& Z, const ConstMatrixRef& Y) const {
    return GpPosterior::given_observations(*kernel(params), Z, Y, noise_variance(params));
  }
  // Writes the initial hyperparameters and log noise into params.
  void initialise(Vector& params) const;
  // /params/kernel/<name> for each named hyperparameter and /params/noise_variance.
  void write_parameters(Hdf5ResultWriter& out, const Vector& params) const;

 private:
  std::shared_ptr<const Kernel> prototype_;  // shared by copies of the model
  double initial_noise_variance_ = 0.5;
  Index kernel_offset_ = 0, noise_offset_ = 0;
};

}  // namespace gplvm
