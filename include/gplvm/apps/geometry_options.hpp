#pragma once
// What `gplvm geometry`, `gplvm geodesic` and `gplvm brownian` share: the options that choose the
// posterior a run's decoder is conditioned as (run/conditioned_decoder.hpp), and the latent points
// the user names (rows of a latents file, by default the run's own /latent/mean, or coordinates).
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/run/conditioned_decoder.hpp"

namespace gplvm {

// --condition, --seed, --data, --condition-latents, --condition-data.
std::vector<OptionSpec> conditioning_option_specs();
DecoderConditioning conditioning_from(const CommandLine& cl);

// The files a geometry command names: --run, --output, the conditioning and --points (the latents that
// indices name; by default the run's own). Checked before any work: the output is none of the inputs
// (nor of `extra_inputs`) and can be written (InputError naming the option otherwise).
struct GeometryFiles {
  std::string run, output, points;
  DecoderConditioning conditioning;
};
GeometryFiles geometry_files(const CommandLine& cl, std::vector<NamedPath> extra_inputs = {});

// The latents that indices refer to: /latent/mean of `file` (replicated; collective).
Matrix latent_points(const std::string& file, const Communicator& comm);
// Comma-separated coordinates ("0.5,-1.2") of a point of dimension q; InputError naming `option`.
Vector coordinates(const std::string& text, Index q, const std::string& option);
// Row `index` of `points` as a vector; InputError naming `option` when out of range.
Vector indexed_point(const Matrix& points, std::int64_t index, const std::string& option,
                     const std::string& file);

// The input files a command reads, for require_output_not_input: the run, its data override and
// the conditioning files.
std::vector<NamedPath> conditioning_inputs(const std::string& run, const DecoderConditioning& c);

}  // namespace gplvm
