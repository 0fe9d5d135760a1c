#include "gplvm/run/data_scaled_defaults.hpp"

#include "gplvm/core/format_number.hpp"
#include "gplvm/models/model_registry.hpp"

namespace gplvm {
bool variances_may_follow_data(const Config& config) {
  return model_kind(config.get_string("model.kind")).unit_scale_defaults &&
         !config.get_bool("data.standardize") && !config.was_set("model.kernel_variance") &&
         !config.was_set("model.noise_variance");
}

ScaledDefaults data_scaled_defaults(const Config& config, const ColumnStatistics& transformed) {
  ScaledDefaults out;
  if (!variances_may_follow_data(config) || data_scale_warning(transformed).empty()) return out;
  const double variance = transformed.std.array().square().mean();
  if (!(variance > 0)) return out;  // constant data: nothing to scale by (the model's own checks speak)
  const double kernel = config.get_double("model.kernel_variance") * variance;
  const double noise = config.get_double("model.noise_variance") * variance;
  out.overrides = {"model.kernel_variance=" + format_number(kernel),
                   "model.noise_variance=" + format_number(noise)};
  out.note = "the data's values lie in [" + format_number(transformed.min) + ", " +
             format_number(transformed.max) + "], mean column variance " + format_number(variance) +
             ": model.kernel_variance and model.noise_variance " + "start at " + format_number(kernel) +
             " and " + format_number(noise) +
             " (the unit-scale defaults times that variance; set them to choose)";
  return out;
}

}  // namespace gplvm
