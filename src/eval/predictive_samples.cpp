#include "gplvm/eval/predictive_samples.hpp"

#include <cmath>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {

RowMatrix gaussian_predictive_samples(const RowMatrix& mean, const RowMatrix& variance,
                                      std::uint64_t first_row, int samples, std::uint64_t seed) {
  const Index d = mean.cols();
  require(variance.rows() == mean.rows() && (variance.cols() == 1 || variance.cols() == d),
          "predictive variances do not fit the means",
          {"", "variance columns", std::to_string(variance.cols())});
  const CounterRng rng(seed);
  RowMatrix out(mean.rows(), static_cast<Index>(samples) * d);
  for (Index i = 0; i < mean.rows(); ++i) {
    const auto row = first_row + static_cast<std::uint64_t>(i);
    for (int s = 0; s < samples; ++s)
      for (Index j = 0; j < d; ++j) {
        const double sd = std::sqrt(std::max(0.0, variance(i, variance.cols() == 1 ? 0 : j)));
        const double z = rng.normal(RngPurpose::predictive_sample, 0, static_cast<std::uint64_t>(s),
                                    row * static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(j));
        out(i, s * d + j) = mean(i, j) + sd * z;
      }
  }
  return out;
}

}  // namespace gplvm
