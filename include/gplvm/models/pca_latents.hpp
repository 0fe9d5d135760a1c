#pragma once
// Initial latents from the data's principal components, computed over distributed rows: the
// exact GPLVM and the sparse and Bayesian GPLVMs start their free latents here.
#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

// PCA initial latents for this rank's rows (count x Q): the centred data projected onto the top Q
// principal directions, each column scaled to unit variance (Z^T Z / N = I over all rows).
// Two allreduces: the column sums (D), then the centred scatter matrix Y_c^T Y_c (D x D; the
// N x N Gram matrix Y Y^T is never formed). The eigendecomposition is computed on every rank but
// rank 0's directions are broadcast, so every rank projects onto bit-identical directions. Signs
// are fixed (the largest-magnitude entry of each direction is positive), so the result does not
// depend on the rank count beyond rounding. With reproducible_sums (train.reproducible) the sums
// are formed over fixed blocks of global rows (256 rows, or N / 4096 when more) and added exactly
// (parallel/reproducible_sum.hpp), and each latent is projected on its own, so the latents are the
// same bits at any rank count; the rows of the blocks cut by rank boundaries move (one alltoallv of
// the data, one of the latents back), and the scatter's sum holds 3 D (D + 1) / 2 doubles plus one
// block's D x D (15 MB at D = 784). InputError on every rank if Q is not in [1, D], N < 2, the
// data hold NaN/Inf, or fewer than Q directions carry variance (ratio to the top <= 1e-12).
Matrix pca_latents(const DataRef& Y_local, const RowPartition& partition, const Communicator& comm,
                   Index latent_dim, bool reproducible_sums = false);

// The checks pca_latents makes of its data (collective): this rank's block is its partition
// block, finite, with at least one column and the same column count on every rank. InputError on
// every rank otherwise.
void require_partitioned_data(const DataRef& Y_local, const RowPartition& partition,
                              const Communicator& comm);

}  // namespace gplvm
