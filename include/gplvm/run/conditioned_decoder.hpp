#pragma once
// A trained run's GP decoder conditioned as one posterior that every rank holds whole: what the
// geometry of the decoder (geometry/) is computed from. The run's model decides what it is
// conditioned on (docs/math/geometry.md, "Which posterior"):
//   - the sparse and Bayesian GPLVMs: their inducing points and q(u);
//   - the others (sas, bayesian_sas, exact): the exact GP given `size` training rows at their
//     trained latents (means for Bayesian runs), chosen as `gplvm predict` chooses them;
//   - or, for any of them, given rows whose latents are given (`latents_file`, e.g. test points
//     encoded by `gplvm encode`, the protocol of using encoded points as fixed latents), the rows
//     in the run's units (its chart and data transform applied).
#include <cstdint>
#include <optional>
#include <string>

#include "gplvm/models/gp_posterior.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/run/trained_run.hpp"

namespace gplvm {

struct DecoderConditioning {
  std::uint64_t size = 1000;                // training rows of the exact posterior; 0: all
  std::uint64_t seed = 0;                   // chooses them
  std::optional<std::string> data_file;     // the training data, when not the run's data.path (--data)
  std::optional<std::string> latents_file;  // given latents (/latent/mean) ...
  std::optional<std::string> rows_file;     // ... of these rows (its dataset path: the run's)
};

struct ConditionedDecoder {
  GpPosterior posterior;
  Matrix latents;            // the conditioning latents (M x Q; the inducing inputs for sparse models)
  std::string source;        // in words, for summaries and the output's attributes
  Index data_dim = 0;        // D
  std::string latent_space;  // the run's model.latent_space
  Index latent_dim = 0;      // its intrinsic dimension Q (curved spaces have Q + 1 coordinates)
};

// Collective. InputError naming the run's model.kind for a model without a GP decoder, and the
// files for latents and rows that do not match.
ConditionedDecoder conditioned_decoder(const TrainedRun& run, const DecoderConditioning& conditioning,
                                       const Communicator& comm);

}  // namespace gplvm
