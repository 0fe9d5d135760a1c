#pragma once
// Values split into two parts on fixed power-of-two grids, so that sums of the parts are exact in
// any order (within a rank, across threads, in an MPI allreduce): sums whose bits do not depend on
// how the terms are spread over ranks, when each sum adds its terms one by one into a place of its
// own (a grid node's charge: parallel/reproducible_sum.hpp's block sums would pass the whole grid per
// block of rows).
//
// Given a bound |v| <= bound < 2^e and at most `terms` terms per sum, with b = 52 - bit_width(terms):
//   high = v rounded to a multiple of u0 = 2^(e - b)        (|high| <= 2^e = 2^b u0)
//   low  = (v - high) rounded to a multiple of u1 = 2^(e - 2b)
// each by adding and subtracting 1.5 * 2^52 * u. Any partial sum of highs is a multiple of u0 below
// terms * 2^b u0 <= 2^52 u0, so it is exact; the same for the lows. A value keeps 2b + 1 bits below
// 2^e (at 10^7 terms, 57), and (sum of highs) + (sum of lows) rounds once, the same everywhere.
// Needs round-to-nearest and no -ffast-math (which could fold (v + c) - c).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace gplvm {

class OrderIndependentSplit {
 public:
  // Every rank must pass the same bits. bound >= |every value|; terms >= the terms of any one sum
  // (at most 2^32).
  OrderIndependentSplit(double bound, std::uint64_t terms) {
    int e = 0;
    std::frexp(std::max(bound, 0x1p-900), &e);  // bound < 2^e; kept far from the subnormals
    const int b = 52 - static_cast<int>(std::bit_width(std::max<std::uint64_t>(terms, 1)));
    rounding_[0] = std::ldexp(1.5, 52 + e - b);
    rounding_[1] = std::ldexp(1.5, 52 + e - 2 * b);
  }
  static constexpr std::uint64_t kMostTerms = std::uint64_t{1} << 32;

  void split(double v, double& high, double& low) const {
    high = (v + rounding_[0]) - rounding_[0];
    const double rest = v - high;
    low = (rest + rounding_[1]) - rounding_[1];
  }

 private:
  double rounding_[2];
};

}  // namespace gplvm
