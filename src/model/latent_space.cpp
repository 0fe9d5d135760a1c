#include "gplvm/model/latent_space.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"

namespace gplvm {

std::unique_ptr<LatentSpace> make_latent_space(const std::string& name, Index intrinsic_dim) {
  if (name == "euclidean") return std::make_unique<EuclideanLatentSpace>(intrinsic_dim);
  if (name == "lorentz") return std::make_unique<LorentzLatentSpace>(intrinsic_dim);
  throw InputError("unknown latent space (known: euclidean, lorentz)", {"", "model.latent_space", name});
}

}  // namespace gplvm
