#pragma once
// How much a training curve still moved at its end: the second of the two convergence criteria a
// run's summary reports (the first is the stopping rule of convergence_monitor.hpp). A run that
// ends at its step limit after a decaying learning-rate schedule has often stopped moving without
// the rule firing; this figure says so, and by how much, from the recorded batch objectives.
#include <optional>
#include <vector>

#include "gplvm/train/training_state.hpp"

namespace gplvm {

// The relative change of the objective over the last 10% of the curve's steps: the mean batch
// objective over the final 5% of the points against the mean over the 5% of the points just before
// the last 10%, relative to the larger of |the final mean| and |the final mean - the mean over the
// first 5%| (an objective that crosses zero is judged against the progress the run made). Means
// over 5% of the points average out batch noise. Empty when the curve has fewer than 40 points.
std::optional<double> final_tenth_change(const std::vector<CurvePoint>& curve);

}  // namespace gplvm
