#include "gplvm/train/curve_plateau.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace gplvm {
namespace {

double mean_objective(const std::vector<CurvePoint>& curve, std::size_t begin, std::size_t end) {
  double sum = 0.0;
  for (std::size_t i = begin; i < end; ++i) sum += curve[i].objective;
  return sum / static_cast<double>(end - begin);
}

}  // namespace

std::optional<double> final_tenth_change(const std::vector<CurvePoint>& curve) {
  constexpr std::size_t kMinPoints = 40;  // 5% of the points is then at least two
  const std::size_t n = curve.size();
  if (n < kMinPoints) return std::nullopt;
  const std::size_t span = n / 20;
  const std::size_t before_end = n - n / 10;  // the last 10% starts here
  const double first = mean_objective(curve, 0, span);
  const double before = mean_objective(curve, before_end - span, before_end);
  const double last = mean_objective(curve, n - span, n);
  // An objective near zero has no scale of its own: then the run's whole progress is the scale.
  const double scale = std::max({std::abs(last), std::abs(last - first), 1e-300});
  return (last - before) / scale;
}

}  // namespace gplvm
