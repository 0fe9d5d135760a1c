// The core's floating-point peak, measured: independent chains of fused multiply-adds on the
// widest vectors the build targets (64-byte GCC vectors: one AVX-512 register, or two AVX2 ones),
// nothing loaded or stored, in fp32 and fp64. This is the ceiling for every rate in
// docs/benchmarks.md: a GEMM at this rate is at the machine's limit, and a step's FLOPs divided by
// it give the least time the step can take.
//
//   bench_fma_peak [--repeats 5] [--seconds 0.5]
// Prints the best and the median GFLOP/s of the repeats for each precision, one thread.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Enough independent accumulators to cover the FMA latency (4-5 cycles) on two pipes.
constexpr int kChains = 12;

typedef float Float64Bytes __attribute__((vector_size(64)));
typedef double Double64Bytes __attribute__((vector_size(64)));
template <typename Scalar>
struct Vector64Bytes;
template <>
struct Vector64Bytes<float> {
  using type = Float64Bytes;
};
template <>
struct Vector64Bytes<double> {
  using type = Double64Bytes;
};

template <typename Scalar>
struct Fma {
  using Vec = typename Vector64Bytes<Scalar>::type;
  static constexpr int lanes = 64 / sizeof(Scalar);

  // GFLOP/s of `iterations` rounds of kChains FMAs. The chains feed a sum that main() prints, and
  // without -ffast-math the compiler may not reassociate them, so every FMA runs.
  static double rate(long iterations, double& sink) {
    Vec acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = Vec{} + static_cast<Scalar>(1e-3 * c);
    const Vec a = Vec{} + static_cast<Scalar>(0.999), b = Vec{} + static_cast<Scalar>(1e-7);
    const auto t0 = Clock::now();
    for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
      for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * a + b;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    // Summed as whole vectors first: reading lanes of acc[] directly would keep it in memory.
    Vec total = acc[0];
    for (int c = 1; c < kChains; ++c) total += acc[c];
    for (int l = 0; l < lanes; ++l) sink += total[l];
    return 2.0 * lanes * kChains * iterations / seconds / 1e9;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename Scalar>
void report(const char* name, int repeats, double seconds, double& sink) {
  // Calibrate the iteration count to about `seconds` per repeat.
  long iterations = 1 << 20;
  while (true) {
    const auto t0 = Clock::now();
    Fma<Scalar>::rate(iterations, sink);
    if (std::chrono::duration<double>(Clock::now() - t0).count() > seconds / 4) break;
    iterations *= 2;
  }
  iterations *= 4;
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) rates.push_back(Fma<Scalar>::rate(iterations, sink));
  std::printf("%-8s FMA peak, one thread: best %.1f GFLOP/s, median %.1f (%d repeats)\n", name,
              *std::max_element(rates.begin(), rates.end()), median(rates), repeats);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  double seconds = 0.5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeats" && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "bench_fma_peak: unknown option %s (usage: bench_fma_peak [--repeats N] [--seconds S])\n",
                   a.c_str());
      return 2;
    }
  }
  double sink = 0;
  report<float>("float32", repeats, seconds, sink);
  report<double>("float64", repeats, seconds, sink);
  std::printf("(checksum %g)\n", sink);
  return 0;
}
