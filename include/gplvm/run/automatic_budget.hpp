#pragma once
// The training budget of a run whose user set none: keys that depend on the number of data rows N,
// chosen once N is known, so that a default run trains on ten thousand rows as it does on ten million
// (docs/guide/training.md, "The automatic budget", has the table). A key the user set is never
// changed.
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"

namespace gplvm {

// Below this many rows the sparse kinds train full batch (L-BFGS on the collapsed bound), unless
// sparse.training is set: the whole bound costs seconds there, and L-BFGS reaches its optimum where
// minibatch Adam's default budget does not.
inline constexpr std::uint64_t kFullBatchRows = 20000;
// A minibatch run takes at least this many steps when neither train.epochs nor train.max_steps is
// set: epochs are added up to it, and the stopping rule ends the run earlier when it converges.
inline constexpr std::uint64_t kMinimumSteps = 2000;
// The default batch is at most this fraction of N (a quarter: four batches per epoch at least).
inline constexpr std::uint64_t kBatchesAtLeast = 4;

struct AutomaticBudget {
  std::vector<std::string> overrides;  // "key=value", each a key the user left unset
  std::string note;                    // what was chosen and why, one line (empty when nothing was)
};

AutomaticBudget automatic_budget(const Config& given, std::uint64_t num_rows);

}  // namespace gplvm
