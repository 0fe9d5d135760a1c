#pragma once
// How free latents start (model.init; docs/math/initialisation.md): the data's principal
// components scaled to unit variance per dimension (the N(0, I) prior's scale), or keyed random
// draws N(0, I), or (paper_uniform) U(-1e-3, 1e-3) draws, the hGP-LVM paper's start (Watanabe et
// al. 2025, A.10) at the origin of the latent space. The same choice gives the PCA targets an
// amortised encoder may be pre-trained to. The draws are tangent coordinates at the origin, which
// the latent space maps to points (R^Q: the identity; the hyperboloid: its exponential map).
#include <string>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

enum class LatentInit { pca, random, paper_uniform };
// "pca" | "random" | "paper_uniform"; InputError naming model.init otherwise.
LatentInit parse_latent_init(const std::string& name);

// The keyed random start of free latent (global row, dimension j of Q), a tangent coordinate at the
// origin: N(0, 1) for random (and as pca's stand-in before initialise_from_data), U(-1e-3, 1e-3)
// for paper_uniform. The same at any rank count.
double initial_latent_draw(const CounterRng& rng, LatentInit init, std::uint64_t row, Index q, Index j);

// pca_latents (models/pca_latents.hpp) of this rank's rows as a model holds them: float32 rows
// are widened to float64 first (PCA accumulates its scatter in float64). reproducible_sums: the same
// bits at any rank count (train.reproducible).
Matrix pca_latents_of(const LocalRows& local_rows, const RowPartition& partition, const Communicator& comm,
                      Index latent_dim, bool reproducible_sums = false);

}  // namespace gplvm
