#include "gplvm/optim/adam.hpp"

#include <algorithm>

#include <charconv>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"

namespace gplvm {
namespace {

// Shortest round-trip text, so a rejected value prints as given (1e-08, not 0.000000).
std::string format_double(double x) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, result.ptr);
}

void require_in(bool ok, const char* key, double value, const char* rule) {
  require(ok, std::string(key) + " must be " + rule, {"", key, format_double(value)});
}

struct AdamCoefficients {
  double beta1, beta2, step_size, inverse_bias_correction2_sqrt, epsilon, sign;
};

// PyTorch's (non-fused, non-capturable) Adam. Recent PyTorch forms m with lerp, which equals the
// first line below up to rounding:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  t += 1
//   p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// That is the paper's m_hat / (sqrt(v_hat) + eps), not its "efficient" variant, which folds
// sqrt(1 - b2^t) into the step size and so rescales eps. sign = -1 ascends; multiplying by -1 is
// exact, so ascend(g) == descend(-g) bit for bit.
// sqrt(v) / sqrt(1 - b2^t) is computed as sqrt(v) * (1 / sqrt(1 - b2^t)), within an ulp of the
// quotient: a vector division costs as much as the sqrt, and with two divisions and a sqrt per
// element Adam was bound by the divider, not by memory (533k parameters on the Intel Xeon VM:
// 0.93 ms per step with the division, 0.68 ms with the multiplication).
//
// Updates `len` consecutive elements; p, m, v and g point at the first. A float gradient (an fp32
// shadow's) is converted exactly; a non-null `weights32` receives float(p) of each updated element.
// The three updates run in chunks that stay in L1: one trip through memory for p, g, m and v
// instead of three (533k parameters are 17 MB of state). Eigen's sqrt and division are SIMD and
// exact, so the result equals the unchunked expressions bit for bit. Elements are independent, so
// the rank's threads take a share of whole chunks each.
template <typename GradientScalar>
void update_range(const AdamCoefficients& c, Index len, double* p, double* m, double* v,
                  const GradientScalar* g, float* weights32) {
  using Eigen::Map;
  constexpr Index kChunk = 1024;
  for_each_thread_share(len, kChunk, [&](Index from, Index to) {
    alignas(64) double converted[kChunk];  // a float gradient chunk as doubles, in L1
    for (Index at = from; at < to; at += kChunk) {
      const Index k = std::min(kChunk, to - at);
      const double* gd;
      if constexpr (std::is_same_v<GradientScalar, double>) {
        gd = g + at;
      } else {  // converted once, so the update below runs at full vector width on doubles only
        Map<Eigen::ArrayXd>(converted, k) = Map<const Eigen::ArrayXf>(g + at, k).template cast<double>();
        gd = converted;
      }
      Map<Eigen::ArrayXd> mc(m + at, k), vc(v + at, k), pc(p + at, k);
      const auto gc = c.sign * Map<const Eigen::ArrayXd>(gd, k);
      mc = c.beta1 * mc + (1.0 - c.beta1) * gc;
      vc = c.beta2 * vc + (1.0 - c.beta2) * gc * gc;
      pc -= c.step_size * (mc / (vc.sqrt() * c.inverse_bias_correction2_sqrt + c.epsilon));
      if (weights32) Map<Eigen::ArrayXf>(weights32 + at, k) = pc.template cast<float>();
    }
  });
}

}  // namespace

// Every check is written so that NaN fails it.
void validate_adam_options(const AdamOptions& o) {
  require_in(std::isfinite(o.learning_rate) && o.learning_rate > 0.0, "adam.learning_rate", o.learning_rate,
             "finite and > 0");
  require_in(o.beta1 >= 0.0 && o.beta1 < 1.0, "adam.beta1", o.beta1, "in [0, 1)");
  require_in(o.beta2 >= 0.0 && o.beta2 < 1.0, "adam.beta2", o.beta2, "in [0, 1)");
  require_in(std::isfinite(o.epsilon) && o.epsilon > 0.0, "adam.epsilon", o.epsilon, "finite and > 0");
}

Adam::Adam(Index num_parameters, AdamOptions options) : options_(options) {
  require(num_parameters >= 0, "Adam: the number of parameters must be >= 0",
          {"", "num_parameters", std::to_string(num_parameters)});
  validate_adam_options(options_);
  state_.first_moment = Vector::Zero(num_parameters);
  state_.second_moment = Vector::Zero(num_parameters);
}

void Adam::descend(VectorRef params, const ConstVectorRef& loss_gradient) {
  const IndexRange all{0, state_.first_moment.size()};
  step(params, loss_gradient, 1.0, &all, &all + 1);
}

void Adam::ascend(VectorRef params, const ConstVectorRef& objective_gradient) {
  const IndexRange all{0, state_.first_moment.size()};
  step(params, objective_gradient, -1.0, &all, &all + 1);
}

void Adam::ascend_ranges(VectorRef params, const ConstVectorRef& objective_gradient,
                         const std::vector<IndexRange>& ranges, Float32Shadow* shadow,
                         double gradient_scale) {
  const Index n = state_.first_moment.size();
  for (const IndexRange& r : ranges)
    if (r.begin < 0 || r.begin > r.end || r.end > n)  // the message is built only when it fails
      throw InputError(
          "Adam step: range outside the parameter vector",
          {"", "range", std::to_string(r.begin) + ".." + std::to_string(r.end) + " of " + std::to_string(n)});
  if (shadow) {
    const IndexRange b = shadow->block;
    if (b.begin < 0 || b.begin > b.end || b.end > n)
      throw InputError("Adam step: fp32 shadow does not fit the parameter vector",
                       {"", "shadow",
                        std::to_string(b.begin) + ".." + std::to_string(b.end) + " of " + std::to_string(n)});
    shadow->require_block(b);     // its buffers
    if (!shadow->gradient_ready)  // tested, not require()d: its context would allocate every step
      throw InputError("Adam step: the fp32 shadow holds no gradient from a step",
                       {"", "shadow.gradient_ready", "false"});
  }
  // -1 * 1.0 is exact: an unscaled step is bit for bit the one before scaling existed.
  step(params, objective_gradient, -1.0 * gradient_scale, ranges.data(), ranges.data() + ranges.size(),
       shadow);
}

void Adam::set_learning_rate(double learning_rate) {
  // Zero is allowed here (a schedule's end); the configured base rate must be > 0.
  require_in(std::isfinite(learning_rate) && learning_rate >= 0.0, "learning rate", learning_rate,
             "finite and >= 0");
  options_.learning_rate = learning_rate;
}

void Adam::set_state(AdamState state) {
  const Index n = state_.first_moment.size();
  require(state.first_moment.size() == n && state.second_moment.size() == n,
          "Adam state does not match the number of parameters (" + std::to_string(n) + ")",
          {"", "adam.state",
           std::to_string(state.first_moment.size()) + "/" + std::to_string(state.second_moment.size())});
  require(state.steps >= 0, "Adam state has a negative step count",
          {"", "adam.steps", std::to_string(state.steps)});
  state_ = std::move(state);
}

// The update and its reasons: update_range above. Ranges split at the shadow's block.
void Adam::step(VectorRef params, const ConstVectorRef& gradient, double sign, const IndexRange* first,
                const IndexRange* last, Float32Shadow* shadow) {
  const Index n = state_.first_moment.size();
  if (params.size() != n || gradient.size() != n)  // no message built (or allocated) unless it fails
    throw InputError(
        "Adam step: parameter and gradient sizes must equal the optimiser size (" + std::to_string(n) + ")",
        {"", "size", std::to_string(params.size()) + "/" + std::to_string(gradient.size())});
  const double t = static_cast<double>(++state_.steps);
  const AdamCoefficients c{options_.beta1,
                           options_.beta2,
                           options_.learning_rate / (1.0 - std::pow(options_.beta1, t)),
                           1.0 / std::sqrt(1.0 - std::pow(options_.beta2, t)),
                           options_.epsilon,
                           sign};
  double *p = params.data(), *m = state_.first_moment.data(), *v = state_.second_moment.data();
  const double* g = gradient.data();
  auto fp64_part = [&](Index begin, Index end) {
    if (begin < end) update_range(c, end - begin, p + begin, m + begin, v + begin, g + begin, nullptr);
  };
  for (const IndexRange* range = first; range != last; ++range) {
    if (!shadow) {
      fp64_part(range->begin, range->end);
      continue;
    }
    // The part inside the shadow's block reads the float gradient and writes the float weights;
    // the parts before and after it are plain fp64.
    const IndexRange block = shadow->block;
    const Index inside_begin = std::max(range->begin, block.begin),
                inside_end = std::min(range->end, block.end);
    fp64_part(range->begin, std::min(range->end, block.begin));
    if (inside_begin < inside_end) {
      const Index at = inside_begin - block.begin;
      update_range(c, inside_end - inside_begin, p + inside_begin, m + inside_begin, v + inside_begin,
                   shadow->gradient.data() + at, shadow->weights.data() + at);
    }
    fp64_part(std::max(range->begin, block.end), range->end);
  }
}

}  // namespace gplvm
