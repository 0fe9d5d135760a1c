#pragma once
// Initial inducing inputs Z of the sparse GPLVMs, chosen from the initial latents: k-means
// centres (the usual start: Z covers the latents' bulk where the data are) or a random subset.
//
// Every rank must hold the same Z, bit for bit, at any rank count: the rows are subsampled by
// keyed draws per global row (so the sample does not depend on the partition), the sample is
// allgathered in global row order, and every rank runs the same deterministic k-means on it.
#include <cstdint>
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

enum class InducingInit { kmeans, random };
InducingInit parse_inducing_init(const std::string& name);  // "kmeans" | "random"

// At most this many latent rows (about; at least 20 M) are gathered for the choice.
inline constexpr Index kInducingSampleRows = 4000;

// M x Q inducing inputs from this rank's latents (partition.count(rank) x Q, of the rows
// partition gives it). Collective; the same result on every rank. InputError if M exceeds N.
Matrix initial_inducing_inputs(const Communicator& comm, const RowPartition& partition,
                               const ConstMatrixRef& local_latents, Index num_inducing, InducingInit init,
                               std::uint64_t seed);

// Lloyd's k-means with k-means++ seeding (keyed by seed), at most max_iterations rounds: the k
// centres (k x Q) of the rows of points. Deterministic. Needs k <= points.rows().
Matrix kmeans_centres(const ConstMatrixRef& points, Index k, std::uint64_t seed, int max_iterations = 100);

}  // namespace gplvm
