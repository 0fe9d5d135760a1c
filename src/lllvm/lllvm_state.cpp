#include "gplvm/lllvm/lllvm_state.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {

Matrix second_moment_x(const LllvmState& state) {
  Matrix moment = state.cov_x;
  moment.selfadjointView<Eigen::Lower>().rankUpdate(state.mean_x);
  return moment.selfadjointView<Eigen::Lower>();
}

Matrix second_moment_c(const LllvmState& state) {
  Matrix moment = static_cast<double>(state.mean_c.rows()) * state.cov_c;
  moment.selfadjointView<Eigen::Lower>().rankUpdate(state.mean_c.transpose());
  return moment.selfadjointView<Eigen::Lower>();
}

LllvmState initial_state(const LllvmProblem& problem, std::uint64_t seed, double gamma, double alpha) {
  require(gamma > 0.0 && std::isfinite(gamma), "the initial gamma must be positive and finite",
          {"", "lllvm.gamma", std::to_string(gamma)});
  require(alpha > 0.0 && std::isfinite(alpha), "alpha must be positive and finite",
          {"", "lllvm.alpha", std::to_string(alpha)});
  const Index size = problem.latent_size();
  LllvmState state;
  state.mean_x = Vector::Zero(size);
  state.cov_x = Matrix::Identity(size, size);
  state.mean_c.resize(problem.data_dims(), size);
  // The start of the latent variables of this model: latent_init's stream, one draw per entry.
  const CounterRng rng(seed);
  for (Index j = 0; j < size; ++j)
    for (Index d = 0; d < problem.data_dims(); ++d)
      state.mean_c(d, j) =
          rng.normal(RngPurpose::latent_init, 0, 0, static_cast<std::uint64_t>(j * problem.data_dims() + d));
  state.cov_c = Matrix::Identity(size, size);
  state.gamma = gamma;
  state.alpha = alpha;
  return state;
}

}  // namespace gplvm
