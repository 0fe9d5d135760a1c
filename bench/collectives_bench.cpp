// Time of the collectives a SAS step makes, by message size, through the project's Communicator:
// allreduce (the partials and, unsharded, the encoder gradient), allgatherv (active rows, whitened
// data, V), reduce-scatter and the slices' allgather (sharded Adam's encoder gradient). The
// latency-bandwidth (alpha-beta) parameters of scripts/cost_model.py are fitted to these times.
//
// Each figure is the median over --repeats calls of the slowest rank's time of one call (a
// barrier before each, so that no rank starts late); sizes are the whole vector's bytes, as the
// cost model counts them. One line per (collective, bytes) as CSV on rank 0.
//
//   mpirun -n P bench_collectives [--repeats 41] [--max-bytes 8388608]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace {

using namespace gplvm;
using Clock = std::chrono::steady_clock;

// Elements per rank of an n-element vector split as evenly as the step splits its columns.
std::vector<int> even_counts(Index n, int ranks) {
  std::vector<int> counts(ranks, static_cast<int>(n / ranks));
  for (int r = 0; r < n % ranks; ++r) ++counts[r];
  return counts;
}

double median_call_seconds(const Communicator& comm, int repeats, const std::function<void()>& call) {
  call();  // first-touch and connection set-up out of the timings
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    comm.barrier();
    const auto t0 = Clock::now();
    call();
    times.push_back(comm.allreduce_max(std::chrono::duration<double>(Clock::now() - t0).count()));
  }
  std::nth_element(times.begin(), times.begin() + repeats / 2, times.end());
  return times[repeats / 2];
}

void time_size(const Communicator& comm, Index n, int repeats) {
  const std::vector<int> counts = even_counts(n, comm.size());
  std::vector<double> buffer(n, 1.0);
  Matrix own = Matrix::Ones(1, counts[comm.rank()]);  // one row: its columns are this rank's elements
  const std::pair<const char*, std::function<void()>> calls[] = {
      {"allreduce", [&] { comm.allreduce_sum(buffer.data(), n); }},
      {"allgatherv", [&] { comm.allgather_columns(own, counts); }},
      {"reduce_scatter", [&] { comm.reduce_scatter_sum(buffer.data(), counts); }},
      {"allgather_slices", [&] { comm.allgather_slices(buffer.data(), counts); }},
  };
  for (const auto& [name, call] : calls) {
    const double seconds = median_call_seconds(comm, repeats, call);
    if (comm.is_root()) std::printf("%s,%d,%ld,%.9f\n", name, comm.size(), static_cast<long>(8 * n), seconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MpiEnvironment mpi(&argc, &argv);
  // As gplvm does: otherwise every large temporary (Open MPI's reduce-scatter buffers, the slice)
  // is a fresh mmap, and a 4 MB reduce-scatter takes 20 ms instead of 0.5 (2 ranks, Zen5-2).
  keep_freed_memory_for_reuse();
  int repeats = 41;
  Index max_bytes = 8 << 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats"))
      repeats = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-bytes"))
      max_bytes = std::atol(argv[i + 1]);
  }
  const Communicator comm;
  if (comm.is_root()) std::printf("collective,ranks,bytes,seconds\n");
  for (Index bytes = 8 * comm.size(); bytes <= max_bytes; bytes *= 4) time_size(comm, bytes / 8, repeats);
  return 0;
}
