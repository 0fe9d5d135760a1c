#include "gplvm/core/counter_rng.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

constexpr std::uint32_t kMul0 = 0xD2511F53u;
constexpr std::uint32_t kMul1 = 0xCD9E8D57u;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;
constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;

inline void mul_hi_lo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
}

// 53 random bits from two words, mapped to the open interval (0, 1).
inline double open_unit(std::uint32_t hi_word, std::uint32_t lo_word) {
  const std::uint64_t bits = ((static_cast<std::uint64_t>(hi_word) << 32) | lo_word) >> 11;
  return (static_cast<double>(bits) + 0.5) * 0x1.0p-53;
}

}  // namespace

CounterRng::Block CounterRng::philox(Block c, std::array<std::uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    mul_hi_lo(kMul0, c[0], hi0, lo0);
    mul_hi_lo(kMul1, c[2], hi1, lo1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    k[0] += kWeyl0;
    k[1] += kWeyl1;
  }
  return c;
}

CounterRng::Block CounterRng::block(RngPurpose purpose, std::uint64_t epoch, std::uint64_t step,
                                    std::uint64_t index) const {
  if (epoch >= (1ull << 24))
    throw InputError("RNG epoch out of range (max 2^24 - 1)", {"", "epoch", std::to_string(epoch)});
  if (step >= (1ull << 32))
    throw InputError("RNG step out of range (max 2^32 - 1)", {"", "step", std::to_string(step)});
  // Counter = (index, step, purpose:epoch); key = seed. Distinct tuples give distinct counters,
  // and Philox is a bijection of the counter, so no two draws share a block.
  const Block counter = {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                         static_cast<std::uint32_t>(step),
                         (static_cast<std::uint32_t>(purpose) << 24) | static_cast<std::uint32_t>(epoch)};
  return philox(counter, {static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32)});
}

double CounterRng::uniform(RngPurpose purpose, std::uint64_t epoch, std::uint64_t step,
                           std::uint64_t index) const {
  const Block b = block(purpose, epoch, step, index);
  return open_unit(b[0], b[1]);
}

double CounterRng::normal(RngPurpose purpose, std::uint64_t epoch, std::uint64_t step,
                          std::uint64_t index) const {
  const Block b = block(purpose, epoch, step, index);
  const double u1 = open_unit(b[0], b[1]);
  const double u2 = open_unit(b[2], b[3]);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace gplvm
