#pragma once
// Threads within one MPI rank (OpenMP), for hybrid runs: P ranks x T threads.
//
// Why threads beside ranks: within a node, ranks pay for data parallelism with collectives (the
// encoder gradient, the active rows, the whitened adjoint), a replicated active-set factorisation
// and a replicated copy of the encoder and its Adam moments per core. Threads of one rank share
// all of that; they split the products, the triangular solves and the element-wise passes by
// output columns or rows instead.
//
// Every split here is by output element: each result is computed by one thread with the same
// operations in the same order as on one thread, and nothing is summed across threads. So a run
// gives bit-identical results at any thread count (tests/core/test_threads.cpp and the
// thread-count tests of the products, solves and the training step), given the packed GEMM
// engine: Eigen's fallback picks its blocking from the shape, so its last bits may move.
//
// The count is per process: set_threads_per_rank, or threads_from_environment at program start
// (OMP_NUM_THREADS when set, else 1, so that P ranks on P cores never oversubscribe by default).
#include <algorithm>
#include <string>

#include "gplvm/core/types.hpp"

namespace gplvm {

// Threads the parallel regions of this process use (>= 1).
int threads_per_rank();

// Sets the count; throws InputError (naming `source`, e.g. the config key) unless 1 <= n <= 1024.
void set_threads_per_rank(int n, const char* source = "threads");

// OMP_NUM_THREADS when it is set (its first entry; it must be a positive integer), else 1; applied
// with set_threads_per_rank and returned.
int threads_from_environment();

// Cores this process may run on (its CPU affinity mask: what mpirun's or srun's binding gave it).
int cores_available();

// One line for run headers: "threads per rank: T (cores available to this rank: C)".
std::string thread_note();

// When T > C (the threads would share cores): a warning saying how to give each rank its cores;
// otherwise empty. Every command logs it once at start (apps/main.cpp).
std::string thread_warning();

// True on a thread of a parallel region: nested splits then run on the calling thread alone.
bool inside_parallel_region();

namespace detail {
// Runs call(context, t) for t in [0, parts) on `parts` threads, one call each; the first exception
// a call throws is rethrown on the calling thread once all have returned.
void run_on_threads(int parts, void (*call)(void*, int), void* context);
}  // namespace detail

// Calls body(begin, end) for contiguous shares [begin, end) that together cover [0, n), one share
// per thread, in parallel. Interior boundaries are multiples of `unit` (a SIMD panel's width, say),
// so shares are whole panels; no share is shorter than `unit`, hence one share (body(0, n) on the
// calling thread) when n < 2 * unit, on one thread, or inside a parallel region.
template <typename Body>
void for_each_thread_share(Index n, Index unit, Body&& body) {
  const Index units = unit > 0 ? n / unit : 0;
  const Index parts = std::min<Index>(threads_per_rank(), units);
  if (parts <= 1 || inside_parallel_region()) {
    if (n > 0) body(Index{0}, n);
    return;
  }
  // Share t is units [t * units / parts, (t + 1) * units / parts): shares differ by at most one
  // unit, and the last also takes the ragged tail of n.
  struct Context {
    Body& body;
    Index n, unit, units, parts;
  } context{body, n, unit, units, parts};
  detail::run_on_threads(
      static_cast<int>(parts),
      [](void* c, int t) {
        auto& ctx = *static_cast<Context*>(c);
        const Index begin = t * ctx.units / ctx.parts * ctx.unit;
        const Index end = t == ctx.parts - 1 ? ctx.n : (t + 1) * ctx.units / ctx.parts * ctx.unit;
        ctx.body(begin, end);
      },
      &context);
}

}  // namespace gplvm
