#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/optim/adam.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::random_normal;

// Kingma & Ba (2015), Algorithm 1, written per coordinate in its own notation (m_hat, v_hat).
struct ReferenceAdam {
  double alpha, beta1, beta2, epsilon;
  std::vector<double> m, v;
  int t = 0;

  ReferenceAdam(std::size_t n, const AdamOptions& o)
      : alpha(o.learning_rate), beta1(o.beta1), beta2(o.beta2), epsilon(o.epsilon), m(n, 0.0), v(n, 0.0) {}

  void step(std::vector<double>& theta, const Vector& g) {
    ++t;
    for (std::size_t i = 0; i < theta.size(); ++i) {
      const double gi = g[static_cast<Index>(i)];
      m[i] = beta1 * m[i] + (1 - beta1) * gi;
      v[i] = beta2 * v[i] + (1 - beta2) * gi * gi;
      const double m_hat = m[i] / (1 - std::pow(beta1, t));
      const double v_hat = v[i] / (1 - std::pow(beta2, t));
      theta[i] -= alpha * m_hat / (std::sqrt(v_hat) + epsilon);
    }
  }
};

// Gradients spanning twelve orders of magnitude, with signs of both kinds and one exact zero.
Vector varied_gradient(Index n, std::uint64_t seed) {
  Vector g = random_normal(n, 1, seed);
  for (Index i = 0; i < n; ++i) g[i] *= std::pow(10.0, static_cast<double>(i % 13) - 6);
  g[n / 2] = 0.0;
  return g;
}

// f(x) = sum a_i (x_i - c_i)^2 and its gradient.
struct Quadratic {
  Vector a, c;
  double value(const Vector& x) const { return (a.array() * (x - c).array().square()).sum(); }
  Vector gradient(const Vector& x) const { return 2.0 * a.cwiseProduct(x - c); }
};

Quadratic test_quadratic() {
  Quadratic q;
  q.a = (Vector(6) << 0.1, 0.5, 1.0, 2.0, 5.0, 20.0).finished();
  q.c = 3.0 * random_normal(6, 1, 77);
  return q;
}

TEST(Adam, DefaultsArePyTorchs) {
  const AdamOptions o;
  EXPECT_EQ(o.learning_rate, 1e-3);
  EXPECT_EQ(o.beta1, 0.9);
  EXPECT_EQ(o.beta2, 0.999);
  EXPECT_EQ(o.epsilon, 1e-8);
}

TEST(Adam, FirstStepMovesEveryCoordinateByTheLearningRate) {
  // After one step m_hat = g and v_hat = g^2, so the move is lr * g / (|g| + eps): lr * sign(g)
  // up to a relative eps / |g|, whatever the gradient's scale.
  const Index n = 40;
  const AdamOptions o{0.01, 0.9, 0.999, 1e-8};
  Adam adam(n, o);
  const Vector g = varied_gradient(n, 1);
  const Vector start = random_normal(n, 1, 2);
  Vector x = start;
  adam.descend(x, g);
  for (Index i = 0; i < n; ++i) {
    const double move = x[i] - start[i];
    if (g[i] == 0.0) {
      EXPECT_EQ(move, 0.0);
      continue;
    }
    const double expected = -o.learning_rate * (g[i] > 0 ? 1.0 : -1.0);
    EXPECT_NEAR(move, expected, o.learning_rate * o.epsilon / std::abs(g[i]) + 1e-15) << "g = " << g[i];
  }
  EXPECT_EQ(adam.state().steps, 1);
}

TEST(Adam, MatchesTheKingmaBaAlgorithmOverManySteps) {
  const Index n = 26;
  for (const AdamOptions o :
       {AdamOptions{}, AdamOptions{0.05, 0.8, 0.99, 1e-6}, AdamOptions{0.3, 0.0, 0.5, 1e-3}}) {
    Adam adam(n, o);
    ReferenceAdam reference(static_cast<std::size_t>(n), o);
    Vector x = random_normal(n, 1, 3);
    std::vector<double> theta(x.data(), x.data() + n);
    for (int t = 0; t < 50; ++t) {
      const Vector g = varied_gradient(n, 100 + static_cast<std::uint64_t>(t));
      adam.descend(x, g);
      reference.step(theta, g);
      for (Index i = 0; i < n; ++i)
        ASSERT_NEAR(x[i], theta[static_cast<std::size_t>(i)], 1e-12) << "step " << t << ", coordinate " << i;
    }
    EXPECT_EQ(adam.state().steps, 50);
  }
}

TEST(Adam, AscendIsDescendOnTheNegatedGradient) {
  const Index n = 13;
  Adam up(n, {}), down(n, {});
  Vector x = random_normal(n, 1, 4), y = x;
  for (int t = 0; t < 5; ++t) {
    const Vector g = varied_gradient(n, 200 + static_cast<std::uint64_t>(t));
    up.ascend(x, g);
    down.descend(y, -g);
  }
  EXPECT_EQ(x, y);
}

// a equals b to a few units in the last place of `scale`, the size of the terms that formed b
// (a fused multiply-add changes the last bit of a term, which shows undiluted where terms cancel).
bool within_ulps(double a, double b, double scale) {
  return std::abs(a - b) <= 4 * std::numeric_limits<double>::epsilon() * (std::abs(b) + scale);
}

// Ranges at odd offsets and lengths in a vector of 2600: inside SIMD packets and the 1024-element
// chunks, and across chunk boundaries.
std::vector<IndexRange> odd_ranges() {
  return {{0, 3}, {7, 8}, {1021, 1029}, {1500, 2600}};
}

bool inside_any(const std::vector<IndexRange>& ranges, Index i) {
  for (const IndexRange& r : ranges)
    if (i >= r.begin && i < r.end) return true;
  return false;
}

// Two optimisers over copies of the same parameters, one stepped with ascend (the reference) and
// one with ascend_ranges over odd_ranges() (the tested one).
struct RangesCase {
  static constexpr Index n = 2600;
  const std::vector<IndexRange> ranges = odd_ranges();
  const AdamOptions options{0.02, 0.9, 0.999, 1e-8};
  Adam reference{n, options}, tested{n, options};
  Vector x = random_normal(n, 1, 6), y = x;  // x for reference, y for tested
  const Vector start = x;
  bool in_ranges(Index i) const { return inside_any(ranges, i); }
};

// Ranges at odd offsets and lengths (inside SIMD packets and the 1024-element chunks, and across
// chunk boundaries): what ascend_ranges updates is what ascend gives it, over several steps, to
// the last bits (an element at a range's edge may take the loop's scalar path instead of its SIMD
// one, and the compiler may fuse a multiply-add in one and not the other); everything else
// (parameters and moments) is untouched.
TEST(Adam, AscendRangesUpdatesExactlyTheRangesAsAscendWould) {
  RangesCase c;
  Vector last_gradient;
  for (int t = 0; t < 4; ++t) {
    last_gradient = varied_gradient(c.n, 400 + static_cast<std::uint64_t>(t));
    c.reference.ascend(c.x, last_gradient);
    c.tested.ascend_ranges(c.y, last_gradient, c.ranges);
  }
  EXPECT_EQ(c.tested.state().steps, 4);
  for (Index i = 0; i < c.n; ++i) {
    if (c.in_ranges(i)) {
      const double g_max = std::abs(last_gradient[i]) + std::abs(c.reference.state().first_moment[i]);
      ASSERT_TRUE(within_ulps(c.y[i], c.x[i], c.options.learning_rate))
          << i << ": " << c.y[i] << " vs " << c.x[i];
      ASSERT_TRUE(within_ulps(c.tested.state().first_moment[i], c.reference.state().first_moment[i], g_max))
          << i;
      ASSERT_TRUE(
          within_ulps(c.tested.state().second_moment[i], c.reference.state().second_moment[i], g_max * g_max))
          << i;
    } else {
      ASSERT_EQ(c.y[i], c.start[i]) << i;
      ASSERT_EQ(c.tested.state().first_moment[i], 0.0) << i;
      ASSERT_EQ(c.tested.state().second_moment[i], 0.0) << i;
    }
  }
}

// With an fp32 shadow over part of the vector (crossing ranges and chunk boundaries), elements in
// the shadow's block take their gradient from the shadow (the fp64 gradient there is NaN and must
// not be read) and get ascend()'s update on double(float gradient); each updated block element is
// also written to the shadow's weights as float(parameter), and block elements outside the ranges
// are left alone in both.
TEST(Adam, Float32ShadowGivesTheUpdateOfItsFloatGradientAndWritesFloatWeights) {
  const IndexRange block{5, 2200};
  RangesCase c;
  Float32Shadow shadow(block);
  shadow.weights.setConstant(-7.0f);  // a value no update writes
  for (int t = 0; t < 4; ++t) {
    Vector g = varied_gradient(c.n, 500 + static_cast<std::uint64_t>(t));
    g.segment(block.begin, shadow.size()) =
        g.segment(block.begin, shadow.size()).cast<float>().cast<double>();
    shadow.gradient = g.segment(block.begin, shadow.size()).cast<float>();
    Vector poisoned = g;
    poisoned.segment(block.begin, shadow.size()).setConstant(std::numeric_limits<double>::quiet_NaN());
    shadow.gradient_ready = true;
    c.reference.ascend_ranges(c.x, g, c.ranges);
    c.tested.ascend_ranges(c.y, poisoned, c.ranges, &shadow);
  }
  for (Index i = 0; i < c.n; ++i) {
    ASSERT_TRUE(within_ulps(c.y[i], c.x[i], c.options.learning_rate))
        << i << ": " << c.y[i] << " vs " << c.x[i];
    ASSERT_TRUE(within_ulps(c.tested.state().second_moment[i], c.reference.state().second_moment[i], 1.0))
        << i;
    if (!c.in_ranges(i)) {
      ASSERT_EQ(c.y[i], c.start[i]) << i;
    }
    if (i < block.begin || i >= block.end) continue;
    const float w = shadow.weights[i - block.begin];
    const float expected = c.in_ranges(i) ? static_cast<float>(c.y[i]) : -7.0f;
    ASSERT_EQ(w, expected) << i;
  }
}

TEST(Adam, Float32ShadowMustHoldAGradientAndFitTheVector) {
  Adam adam(10, {});
  Vector x = Vector::Zero(10);
  Float32Shadow shadow({2, 8});
  EXPECT_THROW(adam.ascend_ranges(x, Vector::Ones(10), {{0, 10}}, &shadow),
               InputError);  // gradient not ready
  Float32Shadow too_long({2, 11});
  too_long.gradient_ready = true;
  EXPECT_THROW(adam.ascend_ranges(x, Vector::Ones(10), {{0, 10}}, &too_long), InputError);
  EXPECT_EQ(adam.state().steps, 0);
  EXPECT_EQ(x, Vector::Zero(10));
}

TEST(Adam, AscendRangesRejectsARangeOutsideTheVector) {
  Adam adam(5, {});
  Vector x = Vector::Zero(5);
  for (const IndexRange bad : {IndexRange{-1, 2}, IndexRange{3, 2}, IndexRange{4, 6}}) {
    try {
      adam.ascend_ranges(x, Vector::Ones(5), {{0, 1}, bad});
      ADD_FAILURE() << "no InputError for " << bad.begin << ".." << bad.end;
    } catch (const InputError& e) {
      EXPECT_EQ(e.context().key, "range");
      EXPECT_EQ(e.context().value, std::to_string(bad.begin) + ".." + std::to_string(bad.end) + " of 5");
    }
  }
  EXPECT_EQ(adam.state().steps, 0);
  EXPECT_EQ(x, Vector::Zero(5));
}

TEST(Adam, AscendClimbsAConcaveQuadraticToItsMaximiser) {
  // Objective -f: every step from afar is uphill, and the iterates settle on the maximiser c.
  const Quadratic q = test_quadratic();
  Adam adam(6, {0.05, 0.9, 0.999, 1e-8});
  Vector x = Vector::Zero(6);
  double objective = -q.value(x);
  for (int t = 0; t < 20; ++t) {
    adam.ascend(x, -q.gradient(x));
    EXPECT_GT(-q.value(x), objective) << "step " << t;
    objective = -q.value(x);
  }
  // Adam's steps shrink with the gradient (m / sqrt(v), v remembering larger gradients), so with a
  // fixed learning rate it still lands on c to rounding (about 1e-15 after 1000 steps here).
  for (int t = 0; t < 1500; ++t) adam.ascend(x, -q.gradient(x));
  EXPECT_LT((x - q.c).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(Adam, DescendMinimisesAConvexQuadratic) {
  const Quadratic q = test_quadratic();
  Adam adam(6, {0.05, 0.9, 0.999, 1e-8});
  Vector x = Vector::Constant(6, 4.0);
  const double start = q.value(x);
  for (int t = 0; t < 1500; ++t) adam.descend(x, q.gradient(x));
  EXPECT_LT(q.value(x), 1e-16 * start);
  EXPECT_LT((x - q.c).cwiseAbs().maxCoeff(), 1e-8);
}

void expect_option_error(const AdamOptions& o, const std::string& key) {
  try {
    Adam adam(3, o);
    ADD_FAILURE() << "no InputError for " << key;
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, key) << e.what();
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    EXPECT_FALSE(e.context().value.empty()) << e.what();
  }
}

TEST(Adam, RejectsInvalidOptions) {
  const double nan = std::nan("");
  for (const double lr : {0.0, -1e-3, nan, std::numeric_limits<double>::infinity()})
    expect_option_error({lr, 0.9, 0.999, 1e-8}, "adam.learning_rate");
  for (const double b : {-0.1, 1.0, 1.5, nan}) {
    expect_option_error({1e-3, b, 0.999, 1e-8}, "adam.beta1");
    expect_option_error({1e-3, 0.9, b, 1e-8}, "adam.beta2");
  }
  for (const double eps : {0.0, -1e-8, nan}) expect_option_error({1e-3, 0.9, 0.999, eps}, "adam.epsilon");
  EXPECT_NO_THROW(Adam(3, {1e-3, 0.0, 0.0, 1e-8}));  // beta = 0 is allowed
  EXPECT_THROW(Adam(-1, {}), InputError);
  EXPECT_NO_THROW(Adam(0, {}));
}

TEST(Adam, ErrorMessageCarriesTheRejectedValue) {
  try {
    Adam adam(3, {1e-3, 0.9, 0.999, -1e-8});
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().value, "-1e-08");
  }
}

TEST(Adam, RejectsMismatchedSizes) {
  Adam adam(4, {});
  Vector x = Vector::Zero(4);
  EXPECT_THROW(adam.descend(x, Vector::Ones(3)), InputError);
  Vector short_x = Vector::Zero(3);
  EXPECT_THROW(adam.ascend(short_x, Vector::Ones(3)), InputError);
  EXPECT_EQ(adam.state().steps, 0);  // a rejected step leaves the state alone
}

TEST(Adam, SetStateRoundTripReproducesTheNextStep) {
  const Index n = 9;
  const AdamOptions o{0.02, 0.85, 0.995, 1e-7};
  Adam original(n, o);
  Vector x = random_normal(n, 1, 5);
  for (int t = 0; t < 7; ++t) original.descend(x, varied_gradient(n, 300 + static_cast<std::uint64_t>(t)));

  Adam restored(n, o);
  restored.set_state(original.state());  // what a checkpoint stores and loads
  EXPECT_EQ(restored.state().steps, 7);
  Vector y = x;
  const Vector g = varied_gradient(n, 400);
  original.descend(x, g);
  restored.descend(y, g);
  EXPECT_EQ(x, y);
  EXPECT_EQ(original.state().first_moment, restored.state().first_moment);
  EXPECT_EQ(original.state().second_moment, restored.state().second_moment);
  EXPECT_EQ(original.state().steps, restored.state().steps);
}

TEST(Adam, SetStateRejectsAMismatchedState) {
  Adam adam(4, {});
  EXPECT_THROW(adam.set_state({Vector::Zero(3), Vector::Zero(4), 1}), InputError);
  EXPECT_THROW(adam.set_state({Vector::Zero(4), Vector::Zero(5), 1}), InputError);
  EXPECT_THROW(adam.set_state({Vector::Zero(4), Vector::Zero(4), -1}), InputError);
  EXPECT_NO_THROW(adam.set_state({Vector::Zero(4), Vector::Ones(4), 3}));
  EXPECT_EQ(adam.state().steps, 3);
}

}  // namespace
}  // namespace gplvm
