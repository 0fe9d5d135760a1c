#include "gplvm/models/gp_decoder.hpp"

#include <cmath>

#include "gplvm/model/latent_space.hpp"
#include "gplvm/models/fixed_hyperparameters.hpp"
#include "gplvm/models/model.hpp"

namespace gplvm {

GpDecoder::GpDecoder(const GpDecoderSettings& settings, Index input_dim, const std::string& latent_space,
                     ParameterLayout& layout)
    : initial_noise_variance_(settings.noise_variance) {
  require_kernel_fits_latent_space(settings.kernel, latent_space);
  prototype_ = make_kernel(settings.kernel, input_dim, settings.init);
  const Index h = prototype_->num_hyperparameters();
  ParameterBlock kernel{.name = "kernel", .rows = h, .cols = 1, .transform = ParameterTransform::log};
  // Positions inside the block: the kernel's own indices.
  kernel.fixed = fixed_hyperparameter_indices(*prototype_, settings.fixed_hyperparameters, 0);
  kernel_offset_ = layout.add(std::move(kernel));
  noise_offset_ =
      layout.add({.name = "noise_variance", .rows = 1, .cols = 1, .transform = ParameterTransform::log});
}

std::unique_ptr<Kernel> GpDecoder::kernel(const Vector& params) const {
  return kernel_with_hyperparameters(*prototype_, params, kernel_offset_);
}

double GpDecoder::noise_variance(const Vector& params) const {
  return std::exp(params[noise_offset_]);
}

void GpDecoder::initialise(Vector& params) const {
  params.segment(kernel_offset_, prototype_->num_hyperparameters()) = prototype_->hyperparameters();
  params[noise_offset_] = std::log(initial_noise_variance_);
}

void GpDecoder::write_parameters(Hdf5ResultWriter& out, const Vector& params) const {
  write_gp_parameters(out, *kernel(params), noise_variance(params));
}

}  // namespace gplvm
