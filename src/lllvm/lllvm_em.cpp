#include "gplvm/lllvm/lllvm_em.hpp"

#include <cmath>
#include <sstream>

#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/lllvm/lllvm_e_step.hpp"
#include "gplvm/lllvm/lllvm_m_step.hpp"

namespace gplvm {
namespace {

void require_matching(const LllvmProblem& problem, const LllvmState& state) {
  const Index size = problem.latent_size();
  const bool matches = state.mean_x.size() == size && state.cov_x.rows() == size &&
                       state.cov_x.cols() == size && state.mean_c.rows() == problem.data_dims() &&
                       state.mean_c.cols() == size && state.cov_c.rows() == size &&
                       state.cov_c.cols() == size;
  require(matches,
          "the starting state's shapes are not those of the problem (n d_x = " + std::to_string(size) +
              ", d_y = " + std::to_string(problem.data_dims()) + ")",
          {"", "state"});
  require(state.gamma > 0.0 && std::isfinite(state.gamma), "gamma must be positive and finite",
          {"", "lllvm.gamma", std::to_string(state.gamma)});
  require(state.alpha > 0.0 && std::isfinite(state.alpha), "alpha must be positive and finite",
          {"", "lllvm.alpha", std::to_string(state.alpha)});
}

void require_valid(const LllvmOptions& options) {
  require(options.max_iterations >= 1, "at least one EM iteration is needed",
          {"", "lllvm.max_iterations", std::to_string(options.max_iterations)});
  require(options.relative_tolerance >= 0.0 && std::isfinite(options.relative_tolerance),
          "the relative tolerance on the bound must be finite and >= 0",
          {"", "lllvm.tolerance", std::to_string(options.relative_tolerance)});
}

std::string describe(const BoundRecord& record) {
  const LllvmBound& b = record.bound;
  std::ostringstream line;
  line.precision(10);
  line << "LL-LVM iteration " << record.iteration << " after " << update_name(record.update) << ": bound "
       << b.total() << " (quadratic " << b.expected_quadratic << ", linear " << b.expected_linear << ", data "
       << b.data_quadratic << ", normaliser " << b.log_normaliser << ", -KL(C) " << b.neg_kl_c << ", -KL(x) "
       << b.neg_kl_x << ")";
  return line.str();
}

// Every sub-update maximises the bound exactly; a fall beyond rounding means the arithmetic failed
// (a factorisation that needed jitter, an ill-conditioned precision).
void check_rise(const std::vector<BoundRecord>& trajectory) {
  if (trajectory.size() < 2) return;
  const double before = trajectory[trajectory.size() - 2].bound.total();
  const double after = trajectory.back().bound.total();
  if (after < before - 1e-9 * std::max(1.0, std::abs(before)))
    log_warning("LL-LVM: the bound fell from " + std::to_string(before) + " to " + std::to_string(after) +
                " at the " + update_name(trajectory.back().update) + " update of iteration " +
                std::to_string(trajectory.back().iteration) + "; the updates are not exact there");
}

class EmRun {
 public:
  EmRun(const LllvmProblem& problem, const LllvmOptions& options, LllvmState start)
      : problem_(problem), options_(options), fit_{std::move(start), {}, 0, false} {}

  // One iteration; whether the bound has settled.
  bool iterate(int iteration) {
    const double start = fit_.trajectory.empty() ? 0.0 : fit_.final_bound();
    update_q_x(problem_, fit_.state, statistics_);
    record(iteration, LllvmUpdate::q_x);
    update_q_c(problem_, fit_.state, statistics_);
    record(iteration, LllvmUpdate::q_c);
    fit_.state.gamma = optimal_gamma(problem_, fit_.state, statistics_);
    record(iteration, LllvmUpdate::gamma);
    if (options_.alpha_policy == AlphaPolicy::optimised) {
      fit_.state.alpha = optimal_alpha(problem_, fit_.state);
      record(iteration, LllvmUpdate::alpha);
    }
    fit_.iterations = iteration;
    const double end = fit_.final_bound();
    return iteration > 1 && std::abs(end - start) <= options_.relative_tolerance * std::abs(end);
  }

  LllvmFit take() { return std::move(fit_); }
  LllvmFit& fit() { return fit_; }

 private:
  void record(int iteration, LllvmUpdate update) {
    fit_.trajectory.push_back({iteration, update, lllvm_bound(problem_, fit_.state, statistics_)});
    log_debug(describe(fit_.trajectory.back()));
    check_rise(fit_.trajectory);
  }

  const LllvmProblem& problem_;
  const LllvmOptions& options_;
  LllvmFit fit_;
  BoundStatistics statistics_;
};

}  // namespace

AlphaPolicy parse_alpha_policy(const std::string& name, const std::string& key) {
  NameRegistry<AlphaPolicy> policies(key, "alpha policy");
  policies.add("fixed", AlphaPolicy::fixed);
  policies.add("optimised", AlphaPolicy::optimised);
  return policies.at(name);
}

const char* update_name(LllvmUpdate update) {
  switch (update) {
    case LllvmUpdate::q_x:
      return "q(x)";
    case LllvmUpdate::q_c:
      return "q(C)";
    case LllvmUpdate::gamma:
      return "gamma";
    case LllvmUpdate::alpha:
      return "alpha";
  }
  return "?";
}

LllvmFit fit_lllvm(const LllvmProblem& problem, const LllvmOptions& options) {
  return fit_lllvm(problem, options,
                   initial_state(problem, options.seed, options.initial_gamma, options.alpha));
}

LllvmFit fit_lllvm(const LllvmProblem& problem, const LllvmOptions& options, LllvmState start) {
  require_valid(options);
  require_matching(problem, start);
  if (options.alpha_policy == AlphaPolicy::optimised)
    log_warning(
        "LL-LVM: alpha is optimised; its optimum drives the embedding to collapse (alpha grows "
        "without bound, the latent means shrink to 0 and the bound rises towards the no-manifold "
        "model), so compare bounds only between runs with the same alpha policy; keep alpha fixed "
        "(1e-3) for embeddings");
  EmRun run(problem, options, std::move(start));
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    if (run.iterate(iteration)) {
      run.fit().converged = true;
      break;
    }
  }
  const LllvmFit& fit = run.fit();
  log_info("LL-LVM: bound " + std::to_string(fit.final_bound()) + " after " + std::to_string(fit.iterations) +
           " iterations (" + (fit.converged ? "converged" : "iteration limit") + "), gamma " +
           std::to_string(fit.state.gamma) + ", alpha " + std::to_string(fit.state.alpha));
  return run.take();
}

}  // namespace gplvm
