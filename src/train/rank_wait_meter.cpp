#include "gplvm/train/rank_wait_meter.hpp"

#include <algorithm>

#include "gplvm/core/phase_clock.hpp"

namespace gplvm {

RankWaitMeter::RankWaitMeter(const Communicator& comm)
    : comm_(comm), last_compute_ticks_(phase_clock().ticks_of(PhaseKind::compute)) {
  if (comm_.size() == 1) return;  // no other rank to wait for
  own_.reserve(kStepsPerReduction);
  slowest_.reserve(kStepsPerReduction);
}

void RankWaitMeter::step_done() {
  if (comm_.size() == 1) return;
  const std::int64_t ticks = phase_clock().ticks_of(PhaseKind::compute);
  own_.push_back(1e-9 * static_cast<double>(ticks - last_compute_ticks_));
  last_compute_ticks_ = ticks;
  if (own_.size() == kStepsPerReduction) reduce();
}

void RankWaitMeter::reduce() {
  const std::uint64_t before = comm_.bytes_sent();
  slowest_.assign(own_.begin(), own_.end());
  comm_.allreduce_max(slowest_.data(), static_cast<Index>(slowest_.size()));
  for (std::size_t s = 0; s < own_.size(); ++s) wait_ += std::max(0.0, slowest_[s] - own_[s]);
  own_.clear();
  bytes_sent_ += comm_.bytes_sent() - before;
}

double RankWaitMeter::finish() {
  if (comm_.size() > 1) reduce();
  return wait_;
}

}  // namespace gplvm
