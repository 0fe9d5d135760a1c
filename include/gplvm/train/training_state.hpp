#pragma once
// Everything that determines how a run continues: parameters, optimiser state and the step
// counter. Batches and noise are keyed by (seed, epoch, step), so a run restored from this state
// continues exactly as if it had never stopped.
#include <cstdint>
#include <vector>

#include "gplvm/optim/adam.hpp"

namespace gplvm {

struct CurvePoint {
  std::uint64_t step = 0;
  std::uint64_t epoch = 0;
  double objective = 0.0;
  double wall_seconds = 0.0;
};

struct TrainingState {
  Vector params;              // this process's view: shared block + its local block
  AdamState adam;             // same layout as params
  std::uint64_t step = 0;     // steps completed
  double wall_seconds = 0.0;  // training time accumulated before this process started
  std::vector<CurvePoint> curve;
};

}  // namespace gplvm
