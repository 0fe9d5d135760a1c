#include "gplvm/core/keyed_permutation.hpp"

#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {
constexpr int kFeistelRounds = 8;
}

KeyedPermutation::KeyedPermutation(std::uint64_t n, std::uint64_t seed, std::uint64_t epoch)
    : n_(n), epoch_(epoch), rng_(seed) {
  require(n > 0, "cannot permute an empty index set", {"", "n", "0"});
  require(n <= (1ull << 62), "permutation size too large", {"", "n", std::to_string(n)});
  unsigned bits = 2;
  while (bits < 64 && (1ull << bits) < n) bits += 2;  // even, so both halves have equal width
  half_bits_ = bits / 2;
  half_mask_ = (1ull << half_bits_) - 1;
}

std::uint64_t KeyedPermutation::feistel(std::uint64_t x) const {
  std::uint64_t left = x >> half_bits_;
  std::uint64_t right = x & half_mask_;
  for (int r = 0; r < kFeistelRounds; ++r) {
    const auto b = rng_.block(RngPurpose::permutation, epoch_, static_cast<std::uint64_t>(r), right);
    const std::uint64_t f = ((static_cast<std::uint64_t>(b[1]) << 32) | b[0]) & half_mask_;
    const std::uint64_t next_right = left ^ f;
    left = right;
    right = next_right;
  }
  return (left << half_bits_) | right;
}

std::uint64_t KeyedPermutation::operator()(std::uint64_t i) const {
  if (i >= n_) throw InputError("permutation position out of range", {"", "position", std::to_string(i)});
  // Cycle walking: the Feistel map is a bijection of [0, 4^h); iterating it from a point in [0, n)
  // until it lands in [0, n) again is a bijection of [0, n). Expected walks < 4.
  std::uint64_t y = feistel(i);
  while (y >= n_) y = feistel(y);
  return y;
}

}  // namespace gplvm
