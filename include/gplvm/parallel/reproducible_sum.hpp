#pragma once
// Sums over ranks whose bits do not depend on the rank count.
//
// A floating-point sum depends on the order of its additions, and an MPI_Allreduce adds each
// rank's partial sum, so rows split over 3 ranks give other last bits than rows on 1 (and Adam
// amplifies those bits in near-zero gradients). Here the caller cuts its terms into blocks that
// are the same at every rank count (fixed row or column blocks, each computed whole by one rank),
// and the blocks' partial vectors are summed exactly, so neither the order nor the rank that holds a
// block matters:
//   - one allreduce of the largest |value| over every block of every rank gives 2^e > |value|;
//   - each value is split into kBins parts on the fixed grids u_k = 2^(e - 40 (k + 1)), k = 0, 1, 2
//     (part k = value rounded to a multiple of u_k, by adding and subtracting 1.5 * 2^52 * u_k, minus
//     the parts before it), so a part is a multiple of its grid with at most 40 + 1 significant bits;
//   - parts of one grid are added in double: every partial sum is a multiple of u_k below 2^53 u_k
//     (up to 2^12 blocks), hence exact, in any order, within a rank and in the MPI reduction;
//   - the result is (part_0 + part_1) + part_2 of the reduced parts, the same bits everywhere.
// What is dropped is the value below u_2 = 2^(e - 120): 1e-36 of the largest term, far below the
// rounding of an ordinary sum. Non-finite terms skip the splitting (an ordinary sum then carries
// the NaN or Inf).
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// num_blocks partial vectors of `length` values held by this rank, block b at data + b * stride.
template <typename Scalar>
struct BlockPartials {
  const Scalar* data = nullptr;
  Index num_blocks = 0;
  Index length = 0;
  Index stride = 0;
};

// Collective: out[i] = the sum of block[i] over every block of every rank (length values; every
// rank passes the same length, any number of blocks, possibly none). With slice counts (one per
// rank over [0, length), as reduce_scatter_sum takes them) only this rank's slice of out holds
// the total, the rest this rank's own blocks' sum: a reduce-scatter of the parts instead of an
// allreduce, for sharded Adam. Traffic: 3 doubles per value.
template <typename Scalar>
void reproducible_sum(const Communicator& comm, const BlockPartials<Scalar>& blocks, Scalar* out,
                      const std::vector<int>* slices = nullptr);

// The ordinary sum of the same blocks, for callers that may trade the bits for speed: this rank's
// blocks added in order, then one allreduce (or reduce-scatter with slices) of doubles or floats.
template <typename Scalar>
void per_rank_sum(const Communicator& comm, const BlockPartials<Scalar>& blocks, Scalar* out,
                  const std::vector<int>* slices = nullptr);

// The same exact sum for partials formed one block at a time, when holding every block's partial
// at once would not fit (a D x D scatter per row block at D = 784 is 4.9 MB): the grids are fixed
// beforehand from `largest`, a bound on |every term of every block of every rank| that every rank
// passes with the same bits (an allreduce_max of bounds computed per block, say), so each block's
// parts are added as soon as the block is formed, and the partial is dropped. Up to 2^12 blocks
// in all when every term is below `largest` (2^13 when below half of it). Memory: 3 doubles per
// value. A non-finite term makes the sum NaN.
class ReproducibleAccumulator {
 public:
  ReproducibleAccumulator(Index length, double largest);
  // Adds one block's `length` values (exact).
  void add(const double* block);
  // Collective, once: out[i] = the sum of value i over every block added on every rank (one allreduce
  // of 3 * length doubles), the same bits at any rank count.
  void sum(const Communicator& comm, double* out);

 private:
  Index length_;
  double rounding_[3];         // 1.5 * 2^52 * u_k of the three grids
  std::vector<double> parts_;  // bin after bin
};

}  // namespace gplvm
