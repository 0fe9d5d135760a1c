#include "gplvm/models/latent_init.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/models/pca_latents.hpp"

namespace gplvm {

LatentInit parse_latent_init(const std::string& name) {
  if (name == "pca") return LatentInit::pca;
  if (name == "random") return LatentInit::random;
  if (name == "paper_uniform") return LatentInit::paper_uniform;
  throw InputError("unknown latent initialisation (pca, random or paper_uniform)", {"", "model.init", name});
}

double initial_latent_draw(const CounterRng& rng, LatentInit init, std::uint64_t row, Index q, Index j) {
  const std::uint64_t index = row * static_cast<std::uint64_t>(q) + static_cast<std::uint64_t>(j);
  if (init == LatentInit::paper_uniform)
    return 1e-3 * (2.0 * rng.uniform(RngPurpose::latent_init, 0, 0, index) - 1.0);
  return rng.normal(RngPurpose::latent_init, 0, 0, index);
}

Matrix pca_latents_of(const LocalRows& local_rows, const RowPartition& partition, const Communicator& comm,
                      Index latent_dim, bool reproducible_sums) {
  if (const DataRef* rows = std::get_if<DataRef>(&local_rows))
    return pca_latents(*rows, partition, comm, latent_dim, reproducible_sums);
  const RowMatrix widened = std::get<DataRefF>(local_rows).cast<double>();
  return pca_latents(DataRef(widened), partition, comm, latent_dim, reproducible_sums);
}

}  // namespace gplvm
