#pragma once
// The hGP-LVM's active set (Moreno-Muñoz et al. 2022, as Watanabe et al. 2025 use it): inducing
// inputs that are not optimised but a random subset of the current latents, redrawn between
// full-batch iterations or minibatch steps (Model::active_set, sparse.active_set_refresh).
//
// Refresh r draws M distinct global rows uniformly without replacement, keyed by (seed,
// RngPurpose::active_set, r) alone, so every rank and every rank count draws the same rows; each
// row's latent (the first ambient_dim() columns of its local block row: the point, or the
// Bayesian kind's mean) is copied from its owner into the active set's place in the shared block,
// by one sum of the M chosen rows over the ranks (no rank sees any other latent).
#include <cstdint>
#include <vector>

#include "gplvm/models/model.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// The `count` distinct rows of [0, num_data) of refresh `refresh`, in draw order (a partial
// Fisher-Yates shuffle on keyed uniforms, O(count) memory). InputError unless 1 <= count <= num_data.
std::vector<std::uint64_t> active_set_rows(std::uint64_t num_data, std::uint64_t count, std::uint64_t seed,
                                           std::uint64_t refresh);

// Refresh `refresh`'s rows' latents, M x ambient_dim() (every rank's copy identical: each value is
// its owner's, summed with zeros). Collective; the model must have an active set.
Matrix drawn_active_set(const Model& model, const Communicator& comm, const Vector& params,
                        std::uint64_t refresh);

// Writes drawn_active_set into the model's active set in params and, where that moves Z, lets the
// model carry its state over to the new Z (Model::carry_over_active_set). Collective; a no-op
// without an active set.
void refresh_active_set(const Model& model, const Communicator& comm, Vector& params, std::uint64_t refresh);

}  // namespace gplvm
