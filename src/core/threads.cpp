#include "gplvm/core/threads.hpp"

#include <omp.h>
#include <sched.h>

#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>

#include "gplvm/core/denormals.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/parse_number.hpp"

namespace gplvm {

namespace {
constexpr int kMaxThreads = 1024;
}

int threads_per_rank() {
  return omp_get_max_threads();
}

void set_threads_per_rank(int n, const char* source) {
  if (n < 1 || n > kMaxThreads)
    throw InputError("threads per rank must be between 1 and " + std::to_string(kMaxThreads),
                     {"", source, std::to_string(n)});
  omp_set_num_threads(n);
}

int threads_from_environment() {
  const char* text = std::getenv("OMP_NUM_THREADS");
  int n = 1;
  if (text != nullptr && *text != '\0') {
    // OMP_NUM_THREADS may list counts per nesting level ("4,2"); the first is this process's.
    const std::string value(text);
    const std::string first = value.substr(0, value.find(','));
    const auto parsed = read_unsigned(first);
    if (!parsed || *parsed == 0)
      throw InputError("OMP_NUM_THREADS is not a positive integer", {"", "OMP_NUM_THREADS", value});
    if (*parsed > static_cast<std::uint64_t>(kMaxThreads))
      throw InputError("threads per rank must be between 1 and " + std::to_string(kMaxThreads),
                       {"", "OMP_NUM_THREADS", value});
    n = static_cast<int>(*parsed);
    set_threads_per_rank(n, "OMP_NUM_THREADS");
    return n;
  }
  set_threads_per_rank(n);
  return n;
}

int cores_available() {
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return omp_get_num_procs();
  return CPU_COUNT(&mask);
}

std::string thread_note() {
  return "threads per rank: " + std::to_string(threads_per_rank()) +
         " (cores available to this rank: " + std::to_string(cores_available()) + ")";
}

std::string thread_warning() {
  const int threads = threads_per_rank();
  if (threads <= cores_available()) return "";
  return thread_note() +
         ": the threads share cores. Give each rank as many cores as threads (mpirun --map-by slot:PE=" +
         std::to_string(threads) + ", srun --cpus-per-task=" + std::to_string(threads) +
         ") or lower OMP_NUM_THREADS";
}

bool inside_parallel_region() {
  return omp_in_parallel() != 0;
}

namespace detail {

void run_on_threads(int parts, void (*call)(void*, int), void* context) {
  std::exception_ptr first_error;
  std::mutex error_mutex;
  // Workers compute under the caller's floating-point control (flushing of subnormals).
  const unsigned control = floating_point_control();
#pragma omp parallel num_threads(parts)
  {
    const AdoptedFloatingPointControl adopted(control);
    try {
      // The runtime may grant fewer threads than asked (OMP_DYNAMIC, thread limits): then the
      // threads it gave take the remaining shares in turn, so no share is skipped.
      for (int t = omp_get_thread_num(); t < parts; t += omp_get_num_threads()) call(context, t);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace detail
}  // namespace gplvm
