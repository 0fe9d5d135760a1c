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
  const std::string steps = cl.value_or("infer-steps", std::to_string(o.steps));
  o.steps = std::stoi(steps);
  require(o.steps >= 0, "--infer-steps must be >= 0", {"", "infer-steps", steps});
  o.conditioning_size = std::stoull(cl.value_or("infer-condition", std::to_string(o.conditioning_size)));
  return o;
}

}  // namespace gplvm
