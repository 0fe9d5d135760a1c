#pragma once
// How free latents start (model.init; docs/math/initialisation.md): the data's principal
// components scaled to unit variance per dimension (the N(0, I) prior's scale), or keyed random
// draws N(0, I). The same choice gives the PCA targets an amortised encoder may be pre-trained to.
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

enum class LatentInit { pca, random };
LatentInit parse_latent_init(const std::string& name);  // "pca" | "random"; InputError naming model.init

// pca_latents (models/pca_latents.hpp) of this rank's rows as a model holds them: float32 rows
// are widened to float64 first (PCA accumulates its scatter in float64). reproducible_sums: the same
// bits at any rank count (train.reproducible).
Matrix pca_latents_of(const LocalRows& local_rows, const RowPartition& partition, const Communicator& comm,
                      Index latent_dim, bool reproducible_sums = false);

}  // namespace gplvm
