#pragma once
// Progress lines of a long neighbour search (a 10^6-row HNSW graph in 50 dimensions takes minutes):
// on rank 0, through the log, once the search has run kQuietSeconds, so that short searches (every
// test's) print nothing.
#include <chrono>
#include <string>

#include "gplvm/core/log.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class SearchProgress {
 public:
  static constexpr double kQuietSeconds = 10.0;
  SearchProgress(std::string search, const Communicator& comm)
      : search_(std::move(search)), root_(comm.is_root()), start_(std::chrono::steady_clock::now()) {}
  // "k-NN search (<search>): <what>, elapsed <t>".
  void report(const std::string& what) const {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (root_ && elapsed >= kQuietSeconds)
      log_info("k-NN search (" + search_ + "): " + what + ", elapsed " + format_duration(elapsed));
  }

 private:
  std::string search_;
  bool root_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gplvm
