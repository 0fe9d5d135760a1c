#pragma once
// A pseudo-random bijection of {0, ..., n-1} keyed by (seed, epoch), in O(1) memory.
//
// A balanced Feistel network on the smallest even number of bits that covers n, with
// Philox-derived round functions, restricted to [0, n) by cycle walking. Every rank evaluates the
// same permutation without communicating or storing it, so the epoch's batches are identical at
// any rank count and for any N, including N far beyond one rank's memory.
#include <cstdint>

#include "gplvm/core/counter_rng.hpp"

namespace gplvm {

class KeyedPermutation {
 public:
  KeyedPermutation(std::uint64_t n, std::uint64_t seed, std::uint64_t epoch);
  std::uint64_t size() const noexcept { return n_; }
  // The element at position i of the permuted sequence (i < n).
  std::uint64_t operator()(std::uint64_t i) const;

 private:
  std::uint64_t feistel(std::uint64_t x) const;

  std::uint64_t n_;
  std::uint64_t epoch_;
  CounterRng rng_;
  unsigned half_bits_;
  std::uint64_t half_mask_;
};

}  // namespace gplvm
