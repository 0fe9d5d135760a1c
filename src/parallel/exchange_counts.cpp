#include "gplvm/parallel/exchange_counts.hpp"

#include <cstdint>
#include <numeric>

namespace gplvm {

std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  return offsets;
}

std::vector<int> receive_counts(const std::vector<int>& send_counts, const Communicator& comm) {
  const std::vector<std::int64_t> send(send_counts.begin(), send_counts.end());
  std::vector<std::int64_t> received(send.size());
  const std::vector<int> ones(send.size(), 1);
  std::vector<int> at(send.size());
  std::iota(at.begin(), at.end(), 0);
  comm.alltoallv(send.data(), ones, at, received.data(), ones, at);
  return {received.begin(), received.end()};
}

}  // namespace gplvm
