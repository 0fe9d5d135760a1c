// Learning-rate schedules against their closed forms, written out here per case.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/optim/learning_rate_schedule.hpp"

namespace gplvm {
namespace {

constexpr double kPi = 3.14159265358979323846;

LearningRateSchedule schedule(LearningRateDecay decay, std::uint64_t warmup = 0) {
  LearningRateSchedule s;
  s.decay = decay;
  s.base_rate = 0.02;
  s.warmup_steps = warmup;
  s.step_every = 7;
  s.step_factor = 0.3;
  s.total_steps = 50;
  return s;
}

TEST(LearningRateSchedule, ConstantIsTheBaseRateAtEveryStep) {
  const auto s = schedule(LearningRateDecay::constant);
  for (std::uint64_t t : {0, 1, 49, 1000}) EXPECT_EQ(learning_rate_at(s, t), 0.02) << t;
}

TEST(LearningRateSchedule, StepDecayMultipliesByTheFactorEveryInterval) {
  const auto s = schedule(LearningRateDecay::step);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0), 0.02);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 6), 0.02);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 7), 0.02 * 0.3);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 13), 0.02 * 0.3);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 14), 0.02 * 0.09);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 35), 0.02 * 0.3 * 0.3 * 0.3 * 0.3 * 0.3);
}

TEST(LearningRateSchedule, CosineFallsFromTheBaseToZeroOverTheRun) {
  const auto s = schedule(LearningRateDecay::cosine);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0), 0.02);
  EXPECT_NEAR(learning_rate_at(s, 25), 0.01, 1e-15);  // half way: half the rate
  for (std::uint64_t t = 0; t < 50; ++t)
    EXPECT_NEAR(learning_rate_at(s, t), 0.01 * (1 + std::cos(kPi * t / 50.0)), 1e-15) << t;
  EXPECT_GT(learning_rate_at(s, 49), 0.0);  // the last step still moves
  EXPECT_NEAR(learning_rate_at(s, 50), 0.0, 1e-18);
}

TEST(LearningRateSchedule, WarmupRampsLinearlyThenTheDecayStartsAfterIt) {
  const auto c = schedule(LearningRateDecay::constant, 4);
  EXPECT_DOUBLE_EQ(learning_rate_at(c, 0), 0.005);
  EXPECT_DOUBLE_EQ(learning_rate_at(c, 1), 0.01);
  EXPECT_DOUBLE_EQ(learning_rate_at(c, 3), 0.02);
  EXPECT_DOUBLE_EQ(learning_rate_at(c, 4), 0.02);
  const auto cos = schedule(LearningRateDecay::cosine, 10);
  EXPECT_DOUBLE_EQ(learning_rate_at(cos, 4), 0.02 * 5 / 10);
  EXPECT_DOUBLE_EQ(learning_rate_at(cos, 10), 0.02);
  EXPECT_NEAR(learning_rate_at(cos, 30), 0.01, 1e-15);  // half way through the 40 steps after warm-up
}

TEST(LearningRateSchedule, RejectsInvalidSettingsNamingTheKey) {
  auto s = schedule(LearningRateDecay::step);
  s.step_factor = 0;
  try {
    validate(s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "train.lr_step_factor");
  }
  EXPECT_THROW(parse_learning_rate_decay("linear"), InputError);
  EXPECT_EQ(parse_learning_rate_decay("cosine"), LearningRateDecay::cosine);
}

TEST(AdamLearningRate, ASetRateIsTheRateOfTheNextStep) {
  // After set_learning_rate(r), one step equals a fresh optimiser built with rate r.
  Vector p = Vector::Constant(3, 1.0), q = p;
  const Vector g = (Vector(3) << 0.5, -2.0, 1e-3).finished();
  Adam a(3, {.learning_rate = 1e-3});
  a.set_learning_rate(0.25);
  a.ascend(p, g);
  Adam b(3, {.learning_rate = 0.25});
  b.ascend(q, g);
  EXPECT_TRUE(p == q);
  EXPECT_THROW(a.set_learning_rate(std::nan("")), InputError);
}

}  // namespace
}  // namespace gplvm
