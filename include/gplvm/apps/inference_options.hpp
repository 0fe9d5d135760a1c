#pragma once
// The options of free-latent inference (eval/latent_inference.hpp) that `gplvm encode` and
// `gplvm evaluate` share.
#include <vector>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/eval/latent_inference.hpp"

namespace gplvm {

std::vector<OptionSpec> inference_option_specs();  // --infer-steps, --infer-condition
LatentInferenceOptions inference_options(const CommandLine& cl);

}  // namespace gplvm
