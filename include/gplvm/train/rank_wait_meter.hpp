#pragma once
// The time a rank waits in collectives for the slowest rank, estimated step by step without a
// barrier. Every step ends in collectives, so the ranks finish a step together: a rank whose
// computing (the compute phases of core/phase_clock.hpp) took less than the slowest rank's in that
// step spent the difference waiting, inside that step's collectives. Summed over the steps:
//   wait = sum over steps of (max over ranks of the step's compute time - this rank's).
// A lower bound: within a step, ranks that take turns being the slowest between two collectives
// wait more than this. The per-step compute times are kept in a fixed buffer and max-reduced when it
// is full and at the end (one 8 KiB allreduce per 1,024 steps), so a step pays no communication.
#include <cstdint>
#include <vector>

#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class RankWaitMeter {
 public:
  static constexpr std::size_t kStepsPerReduction = 1024;

  explicit RankWaitMeter(const Communicator& comm);

  // After every step, on every rank (collective when the buffer fills): charges the compute time
  // since the previous call to this step.
  void step_done();
  // Collective: reduces the steps not yet reduced; this rank's wait over all steps, in seconds.
  double finish();
  // Bytes this meter contributed to collectives (not the run's: left out of its bytes per step).
  std::uint64_t bytes_sent() const noexcept { return bytes_sent_; }

 private:
  void reduce();

  const Communicator& comm_;
  std::vector<double> own_, slowest_;  // compute seconds per step: this rank's, the slowest rank's
  std::int64_t last_compute_ticks_ = 0;
  double wait_ = 0;
  std::uint64_t bytes_sent_ = 0;
};

}  // namespace gplvm
