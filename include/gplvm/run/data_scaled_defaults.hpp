#pragma once
// The kernel and noise variances' defaults (0.5 each) assume data of unit scale. On data far from it
// (data_scale_warning's test) that the user neither standardised nor gave variances for, they start
// at the defaults times the data's mean column variance, as the model sees the data: measured on
// digits (values 0-16), this trains better than standardising (docs/guide/training.md, "Data
// scale"), which changes the data the user asked to model.
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"
#include "gplvm/io/data_transform.hpp"

namespace gplvm {

struct ScaledDefaults {
  std::vector<std::string> overrides;  // "model.kernel_variance=...", "model.noise_variance=..."
  std::string note;                    // one line for the log: the data's scale and the values chosen
};

// Whether the variances may follow the data: a kind whose defaults assume unit scale, the data not
// standardised, and neither variance set by the user.
bool variances_may_follow_data(const Config& config);

// The overrides for data with these column statistics (empty when their scale is sensible).
ScaledDefaults data_scaled_defaults(const Config& config, const ColumnStatistics& transformed);

}  // namespace gplvm
