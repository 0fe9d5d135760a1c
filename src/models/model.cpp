#include "gplvm/models/model.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

LatentKind parse_latent_kind(const std::string& name) {
  if (name == "amortised") return LatentKind::amortised;
  if (name == "free") return LatentKind::free;
  throw InputError("unknown latent kind (expected 'amortised' or 'free')", {"", "model.latents", name});
}

std::string to_string(LatentKind kind) {
  return kind == LatentKind::amortised ? "amortised" : "free";
}

std::unique_ptr<Kernel> kernel_with_hyperparameters(const Kernel& prototype, const Vector& params,
                                                    Index offset) {
  std::unique_ptr<Kernel> k = prototype.clone();
  k->set_hyperparameters(params.segment(offset, prototype.num_hyperparameters()));
  return k;
}

void write_gp_parameters(Hdf5ResultWriter& out, const Kernel& kernel, double noise_variance) {
  for (const NamedHyperparameter& h : kernel.named_hyperparameters()) {
    const std::string path = "/params/kernel/" + h.name;
    if (h.values.size() == 1)
      out.write_scalar(path, h.values[0]);
    else
      out.write_vector(path, h.values);
  }
  out.write_scalar("/params/noise_variance", noise_variance);
}

}  // namespace gplvm
