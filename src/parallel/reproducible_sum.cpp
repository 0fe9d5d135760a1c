#include "gplvm/parallel/reproducible_sum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gplvm/core/threads.hpp"

namespace gplvm {
namespace {

constexpr int kBins = 3;
constexpr int kBinBits = 40;                  // 2^(53 - 40) blocks may be added without rounding
constexpr Index kElementsPerShareUnit = 512;  // a thread's share of the values

template <typename Scalar>
double largest_magnitude(const BlockPartials<Scalar>& blocks) {
  double largest = 0.0;
  for (Index b = 0; b < blocks.num_blocks; ++b) {
    const Scalar* block = blocks.data + b * blocks.stride;
    for (Index i = 0; i < blocks.length; ++i) {
      const double v = std::abs(static_cast<double>(block[i]));
      if (!(v <= largest)) largest = v;  // a NaN wins, so that it is seen below
    }
  }
  return largest;
}

// The constants 1.5 * 2^52 * u_k of the bins' grids u_k = 2^(e - 40 (k + 1)).
struct BinGrids {
  double rounding[kBins];
  explicit BinGrids(int e) {
    for (int k = 0; k < kBins; ++k) rounding[k] = std::ldexp(1.5, 52 + e - kBinBits * (k + 1));
  }
};

// parts[3 i + k] += part k of every block's value i, for i in [i0, i1). The additions are exact.
template <typename Scalar>
void add_parts(const BlockPartials<Scalar>& blocks, const BinGrids& grids, Index i0, Index i1,
               double* parts) {
  for (Index b = 0; b < blocks.num_blocks; ++b) {
    const Scalar* block = blocks.data + b * blocks.stride;
    for (Index i = i0; i < i1; ++i) {
      double rest = static_cast<double>(block[i]);
      for (int k = 0; k < kBins; ++k) {
        // Exact: rest + c stays in [2^52 u, 2^53 u), so rounding to its ulp u is the only rounding
        // (the build uses no -ffast-math, which could fold (x + c) - c).
        const double part = (rest + grids.rounding[k]) - grids.rounding[k];
        parts[kBins * i + k] += part;
        rest -= part;
      }
    }
  }
}

// Non-finite terms: an ordinary sum, which carries the NaN or Inf to the caller's checks.
template <typename Scalar>
void ordinary_sum(const Communicator& comm, const BlockPartials<Scalar>& blocks, Scalar* out,
                  const std::vector<int>* slices) {
  std::fill_n(out, blocks.length, Scalar(0));
  for (Index b = 0; b < blocks.num_blocks; ++b)
    for (Index i = 0; i < blocks.length; ++i) out[i] += blocks.data[b * blocks.stride + i];
  if (slices)
    comm.reduce_scatter_sum(out, *slices);
  else
    comm.allreduce_sum(out, blocks.length);
}

}  // namespace

template <typename Scalar>
void reproducible_sum(const Communicator& comm, const BlockPartials<Scalar>& blocks, Scalar* out,
                      const std::vector<int>* slices) {
  const Index n = blocks.length;
  const double largest = comm.allreduce_max(largest_magnitude(blocks));
  if (!std::isfinite(largest)) return ordinary_sum(comm, blocks, out, slices);
  if (largest == 0.0) {  // every term of every rank is zero
    std::fill_n(out, n, Scalar(0));
    return;
  }
  int e = 0;
  std::frexp(largest, &e);  // largest < 2^e
  const BinGrids grids(e);
  std::vector<double> parts(static_cast<std::size_t>(kBins * n), 0.0);
  for_each_thread_share(n, kElementsPerShareUnit,
                        [&](Index i0, Index i1) { add_parts(blocks, grids, i0, i1, parts.data()); });
  if (slices) {
    std::vector<int> part_counts(*slices);
    for (int& c : part_counts) c *= kBins;
    comm.reduce_scatter_sum(parts.data(), part_counts);
  } else {
    comm.allreduce_sum(parts.data(), kBins * n);
  }
  for_each_thread_share(n, kElementsPerShareUnit, [&](Index i0, Index i1) {
    for (Index i = i0; i < i1; ++i) {
      const double* p = parts.data() + kBins * i;
      out[i] = static_cast<Scalar>((p[0] + p[1]) + p[2]);
    }
  });
}

template void reproducible_sum<double>(const Communicator&, const BlockPartials<double>&, double*,
                                       const std::vector<int>*);
template void reproducible_sum<float>(const Communicator&, const BlockPartials<float>&, float*,
                                      const std::vector<int>*);

}  // namespace gplvm
