#include "gplvm/apps/inference_options.hpp"

#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

std::vector<OptionSpec> inference_option_specs() {
  const LatentInferenceOptions d;
  return {{"infer-steps", true,
           "free-latent runs: ascent steps of each row's latent on the GP predictive density (default " +
               std::to_string(d.steps) + ")"},
          {"infer-condition", true,
           "free-latent runs: training rows that density conditions on (default " +
               std::to_string(d.conditioning_size) + "; 0: all)"}};
}

LatentInferenceOptions inference_options(const CommandLine& cl) {
  LatentInferenceOptions o;
  o.steps = static_cast<int>(cl.integer_or("infer-steps", o.steps, 0, 1000000));
  o.conditioning_size = cl.unsigned_or("infer-condition", o.conditioning_size);
  return o;
}

}  // namespace gplvm
