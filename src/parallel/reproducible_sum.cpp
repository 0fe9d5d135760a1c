#include "gplvm/parallel/reproducible_sum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"

namespace gplvm {
namespace {

constexpr int kBins = 3;
constexpr int kBinBits = 40;                  // 2^(53 - 40) blocks may be added without rounding
constexpr Index kElementsPerShareUnit = 512;  // a thread's share of the values

// The largest |value| of every block, or infinity if any value is not finite.
template <typename Scalar>
double largest_magnitude(const BlockPartials<Scalar>& blocks) {
  double largest = 0.0;
  int nonfinite = 0;
  for (Index b = 0; b < blocks.num_blocks; ++b) {
    const Scalar* block = blocks.data + b * blocks.stride;
#pragma omp simd reduction(max : largest) reduction(| : nonfinite)
    for (Index i = 0; i < blocks.length; ++i) {
      const double v = std::abs(static_cast<double>(block[i]));
      largest = std::max(largest, v);
      nonfinite |= !(v <= std::numeric_limits<double>::max());  // Inf or NaN
    }
  }
  return nonfinite ? std::numeric_limits<double>::infinity() : largest;
}

// The constants 1.5 * 2^52 * u_k of the bins' grids u_k = 2^(e - 40 (k + 1)).
struct BinGrids {
  double rounding[kBins];
  explicit BinGrids(int e) {
    for (int k = 0; k < kBins; ++k) rounding[k] = std::ldexp(1.5, 52 + e - kBinBits * (k + 1));
  }
};

// The parts of values [first, first + count) (one rank's slice): kBins arrays of count values,
// bin after bin, so that the slices stay contiguous for a reduce-scatter and the loops vectorise.
struct SliceParts {
  Index first, count;
  double* parts;
  double* bin(int k) const { return parts + k * count; }
};

// Adds part k of every block's values [i0, i1) of the slice to bin k. The additions are exact.
template <typename Scalar>
void add_parts(const BlockPartials<Scalar>& blocks, const BinGrids& grids, const SliceParts& slice, Index i0,
               Index i1) {
  double* const p0 = slice.bin(0);
  double* const p1 = slice.bin(1);
  double* const p2 = slice.bin(2);
  const double c0 = grids.rounding[0], c1 = grids.rounding[1], c2 = grids.rounding[2];
  for (Index b = 0; b < blocks.num_blocks; ++b) {
    const Scalar* x = blocks.data + b * blocks.stride + slice.first;
    // Exact: rest + c stays in [2^52 u, 2^53 u), so rounding to its ulp u is the only rounding
    // (the build uses no -ffast-math, which could fold (x + c) - c).
#pragma omp simd
    for (Index i = i0; i < i1; ++i) {
      double rest = static_cast<double>(x[i]);
      const double part0 = (rest + c0) - c0;
      rest -= part0;
      const double part1 = (rest + c1) - c1;
      rest -= part1;
      p0[i] += part0;
      p1[i] += part1;
      p2[i] += (rest + c2) - c2;
    }
  }
}

// out[i] = (bin 0 + bin 1) + bin 2 of the slice's value i: the one rounding of the exact sum.
template <typename Scalar>
void combine_bins(const SliceParts& slice, Scalar* out) {
  for_each_thread_share(slice.count, kElementsPerShareUnit, [&](Index i0, Index i1) {
    for (Index i = i0; i < i1; ++i)
      out[slice.first + i] = static_cast<Scalar>((slice.bin(0)[i] + slice.bin(1)[i]) + slice.bin(2)[i]);
  });
}

}  // namespace

template <typename Scalar>
void reproducible_sum(const Communicator& comm, const BlockPartials<Scalar>& blocks, Scalar* out,
                      const std::vector<int>* slices) {
  const Index n = blocks.length;
  const double largest = comm.allreduce_max(largest_magnitude(blocks));
  if (!std::isfinite(largest)) return per_rank_sum(comm, blocks, out, slices);  // carries the NaN or Inf
  if (largest == 0.0) {  // every term of every rank is zero
    std::fill_n(out, n, Scalar(0));
    return;
  }
  int e = 0;
  std::frexp(largest, &e);  // largest < 2^e
  const BinGrids grids(e);
  // The values in slices (one for an allreduce), each slice's parts contiguous.
  const std::vector<int> counts = slices ? *slices : std::vector<int>{static_cast<int>(n)};
  std::vector<double> parts(static_cast<std::size_t>(kBins * n), 0.0);
  std::vector<SliceParts> slice_parts;
  for (Index first = 0; const int count : counts) {
    slice_parts.push_back({first, count, parts.data() + kBins * first});
    first += count;
  }
  for (const SliceParts& slice : slice_parts)
    for_each_thread_share(slice.count, kElementsPerShareUnit,
                          [&](Index i0, Index i1) { add_parts(blocks, grids, slice, i0, i1); });
  if (slices) {
    std::vector<int> part_counts(counts);
    for (int& c : part_counts) c *= kBins;
    comm.reduce_scatter_sum(parts.data(), part_counts);
  } else {
    comm.allreduce_sum(parts.data(), kBins * n);
  }
  for (const SliceParts& slice : slice_parts) combine_bins(slice, out);
}

ReproducibleAccumulator::ReproducibleAccumulator(Index length, double largest)
    : length_(length), parts_(static_cast<std::size_t>(kBins * length), 0.0) {
  require(std::isfinite(largest) && largest >= 0.0, "the bound of a reproducible sum must be finite",
          {"", "largest", std::to_string(largest)});
  int e = 0;
  std::frexp(largest, &e);  // largest < 2^e (any e when largest is 0: every term is then 0)
  const BinGrids grids(e);
  std::copy_n(grids.rounding, kBins, rounding_);
}

void ReproducibleAccumulator::add(const double* block) {
  BinGrids grids(0);
  std::copy_n(rounding_, kBins, grids.rounding);
  const SliceParts all{0, length_, parts_.data()};
  const BlockPartials<double> one{block, 1, length_, length_};
  for_each_thread_share(length_, kElementsPerShareUnit,
                        [&](Index i0, Index i1) { add_parts(one, grids, all, i0, i1); });
}

void ReproducibleAccumulator::sum(const Communicator& comm, double* out) {
  comm.allreduce_sum(parts_.data(), kBins * length_);
  combine_bins(SliceParts{0, length_, parts_.data()}, out);
}

template <typename Scalar>
void per_rank_sum(const Communicator& comm, const BlockPartials<Scalar>& blocks, Scalar* out,
                  const std::vector<int>* slices) {
  std::fill_n(out, blocks.length, Scalar(0));
  for (Index b = 0; b < blocks.num_blocks; ++b)
    for (Index i = 0; i < blocks.length; ++i) out[i] += blocks.data[b * blocks.stride + i];
  if (slices)
    comm.reduce_scatter_sum(out, *slices);
  else
    comm.allreduce_sum(out, blocks.length);
}

template void per_rank_sum<double>(const Communicator&, const BlockPartials<double>&, double*,
                                   const std::vector<int>*);
template void per_rank_sum<float>(const Communicator&, const BlockPartials<float>&, float*,
                                  const std::vector<int>*);
template void reproducible_sum<double>(const Communicator&, const BlockPartials<double>&, double*,
                                       const std::vector<int>*);
template void reproducible_sum<float>(const Communicator&, const BlockPartials<float>&, float*,
                                      const std::vector<int>*);

}  // namespace gplvm
