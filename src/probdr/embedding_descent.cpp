#include "gplvm/probdr/embedding_descent.hpp"

#include <algorithm>
#include <cmath>

namespace gplvm {
namespace {

// openTSNE's max_step_norm: no row moves further than this in one iteration.
constexpr double kMaxStepNorm = 5.0;

}  // namespace

EmbeddingDescent::EmbeddingDescent(const NeighbourEmbeddingSettings& settings, std::uint64_t num_rows,
                                   double gradient_scale)
    : settings_(settings), n_(static_cast<double>(num_rows)), gradient_scale_(gradient_scale) {}

double EmbeddingDescent::exaggeration(Index iteration) const {
  return iteration < settings_.exaggeration_iterations ? settings_.exaggeration : settings_.late_exaggeration;
}

double EmbeddingDescent::momentum(Index iteration) const {
  return iteration < settings_.exaggeration_iterations ? settings_.early_momentum : settings_.momentum;
}

double EmbeddingDescent::learning_rate(Index iteration) const {
  if (settings_.learning_rate > 0) return settings_.learning_rate;
  return std::max(n_ / exaggeration(iteration), 50.0);
}

DescentStep EmbeddingDescent::step(RowMatrix& y, DescentState& state, Index iteration,
                                   const EmbeddingGradient& gradient) const {
  const bool phase_start = iteration == 0 || iteration == settings_.exaggeration_iterations;
  if (phase_start || state.update.rows() != y.rows() || state.update.cols() != y.cols()) {
    state.update = RowMatrix::Zero(y.rows(), y.cols());
    state.gains = RowMatrix::Ones(y.rows(), y.cols());
  }
  const auto [kl, g] = gradient(y, exaggeration(iteration));
  const double rate = learning_rate(iteration) / gradient_scale_, mu = momentum(iteration);
  DescentStep out;
  out.kl = kl;
  out.gradient_norm = g.norm();
  for (Index i = 0; i < y.rows(); ++i) {
    for (Index d = 0; d < y.cols(); ++d) {
      double& gain = state.gains(i, d);
      // Growing where the gradient still points against the last step (scikit-learn's rule).
      gain = g(i, d) * state.update(i, d) < 0 ? gain + 0.2 : gain * 0.8;
      gain = std::max(gain, settings_.min_gain);
      state.update(i, d) = mu * state.update(i, d) - rate * gain * g(i, d);
    }
    const double norm = state.update.row(i).norm();
    if (norm > kMaxStepNorm) state.update.row(i) *= kMaxStepNorm / norm;
    y.row(i) += state.update.row(i);
  }
  return out;
}

}  // namespace gplvm
