#pragma once
// LL-LVM's variational EM (docs/math/lllvm.md, "The algorithm"): per iteration q(x), q(C), gamma
// and (if optimised) alpha, each an exact coordinate maximiser, with the bound evaluated term by
// term after every one of them; stops when an iteration changes the bound by less than
// `relative_tolerance` of its magnitude, or after `max_iterations`.
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/lllvm/lllvm_bound.hpp"
#include "gplvm/lllvm/lllvm_problem.hpp"
#include "gplvm/lllvm/lllvm_state.hpp"

namespace gplvm {

// fixed: alpha stays at its value (the published experiments' 1e-3). optimised: alpha by its
// 1-D root each iteration, which lets the embedding collapse (lllvm_m_step.hpp): bounds under the
// two policies are not comparable.
enum class AlphaPolicy { fixed, optimised };
AlphaPolicy parse_alpha_policy(const std::string& name, const std::string& key = "lllvm.alpha_policy");

struct LllvmOptions {
  double alpha = 1e-3;
  AlphaPolicy alpha_policy = AlphaPolicy::fixed;
  double initial_gamma = 1.0;
  int max_iterations = 200;
  double relative_tolerance = 1e-6;
  std::uint64_t seed = 0;  // of q(C)'s start
};

enum class LllvmUpdate { q_x, q_c, gamma, alpha };
const char* update_name(LllvmUpdate update);

struct BoundRecord {
  int iteration = 0;  // from 1
  LllvmUpdate update = LllvmUpdate::q_x;
  LllvmBound bound;
};

struct LllvmFit {
  LllvmState state;
  std::vector<BoundRecord> trajectory;  // after every sub-update, in order
  int iterations = 0;
  bool converged = false;
  double final_bound() const { return trajectory.empty() ? 0.0 : trajectory.back().bound.total(); }
};

// InputError naming the option: max_iterations < 1 (lllvm.max_iterations), a tolerance that is
// negative or not finite (lllvm.tolerance), and those of initial_state.
LllvmFit fit_lllvm(const LllvmProblem& problem, const LllvmOptions& options);

// The same from a given state (a restart, or a state carried over from another run); options.seed,
// initial_gamma and alpha are not read. InputError (key "state") if its shapes are not the problem's.
LllvmFit fit_lllvm(const LllvmProblem& problem, const LllvmOptions& options, LllvmState start);

}  // namespace gplvm
