#include "gplvm/train/phase_breakdown.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

namespace gplvm {
namespace {

// One figure over the ranks, from the gathered rows (one row of `width` figures per rank).
Spread spread_of(const std::vector<double>& rows, std::size_t width, std::size_t column) {
  std::vector<double> v;
  for (std::size_t at = column; at < rows.size(); at += width) v.push_back(rows[at]);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size(), mid = n / 2;
  return {v.front(), n % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]), v.back()};
}

void write_spread(JsonWriter& w, const Spread& s) {
  w.begin_object().key("min").value(s.min).key("median").value(s.median).key("max").value(s.max).end_object();
}

}  // namespace

PhaseSeconds phase_seconds(const PhaseTicks& ticks, double wait) {
  PhaseSeconds out;
  for (std::size_t i = 0; i < kNumStepPhases; ++i) out.seconds[i] = 1e-9 * static_cast<double>(ticks[i]);
  out.wall = 1e-9 * static_cast<double>(std::accumulate(ticks.begin(), ticks.end(), std::int64_t{0}));
  out.wait = wait;
  return out;
}

PhaseBreakdown spread_over_ranks(const Communicator& comm, const PhaseSeconds& mine) {
  std::vector<double> row(mine.seconds.begin(), mine.seconds.end());
  row.push_back(mine.wall);
  row.push_back(mine.wait);
  const std::size_t width = row.size();
  const std::vector<double> all = comm.allgatherv(row);
  PhaseBreakdown b;
  for (std::size_t i = 0; i < kNumStepPhases; ++i) b.seconds[i] = spread_of(all, width, i);
  b.wall = spread_of(all, width, kNumStepPhases);
  b.wait = spread_of(all, width, kNumStepPhases + 1);
  return b;
}

void write_phase_breakdown(JsonWriter& w, const PhaseBreakdown& breakdown) {
  w.key("phase_seconds").begin_object();
  for (std::size_t i = 0; i < kNumStepPhases; ++i) {
    w.key(phase_name(step_phase(i)));
    write_spread(w, breakdown.seconds[i]);
  }
  w.end_object();
  w.key("phase_wall_seconds");
  write_spread(w, breakdown.wall);
  w.key("waiting_for_slowest_rank_seconds");
  write_spread(w, breakdown.wait);
}

std::string leading_phases(const PhaseTicks& ticks, int count) {
  const double total = static_cast<double>(std::accumulate(ticks.begin(), ticks.end(), std::int64_t{0}));
  std::array<std::size_t, kNumStepPhases> order;
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto n = static_cast<std::size_t>(std::clamp(count, 0, static_cast<int>(kNumStepPhases)));
  std::partial_sort(order.begin(), order.begin() + n, order.end(),
                    [&](std::size_t a, std::size_t b) { return ticks[a] > ticks[b]; });
  std::string out;
  for (std::size_t k = 0; k < n && total > 0 && ticks[order[k]] > 0; ++k) {
    char share[48];
    std::snprintf(share, sizeof share, "%s%s %.0f%%", k ? " " : "", phase_name(step_phase(order[k])).data(),
                  100.0 * static_cast<double>(ticks[order[k]]) / total);
    out += share;
  }
  return out;
}

}  // namespace gplvm
