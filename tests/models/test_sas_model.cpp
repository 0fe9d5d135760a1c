#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "gplvm/core/denormals.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

struct Variant {
  bool bayesian;
  LatentKind latents;
  Activation activation;
  bool lorentz = false;  // latents on the hyperboloid, kernel hyperboloid_exp
};

std::string name(const Variant& v) {
  return std::string(v.bayesian ? "bayesian_" : "sas_") + to_string(v.latents) + "_" +
         to_string(v.activation) + (v.lorentz ? "_lorentz" : "");
}

void PrintTo(const Variant& v, std::ostream* os) {
  *os << name(v);
}

class SasModelGradient : public ::testing::TestWithParam<Variant> {};

// The whole chain (encoder or free latents, reparameterisation, SAS, KL, kernel, noise) against
// central finite differences on every parameter of the flat vector.
TEST_P(SasModelGradient, MatchesFiniteDifferencesOnEveryParameter) {
  const Variant v = GetParam();
  SasModelConfig c;
  c.data_dim = 5;
  c.latent_dim = 2;
  c.bayesian = v.bayesian;
  c.latents = v.latents;
  c.encoder_hidden = {6, 4};
  c.encoder_activation = v.activation;
  c.decoder.init.lengthscale = 1.0;
  c.seed = 3;
  if (v.lorentz) {
    c.latent_space = "lorentz";
    c.decoder.kernel = "hyperboloid_exp";
  }
  const std::uint64_t n = 30;
  const SasModel model(c, n, 0, n);
  const RowMatrix all = random_normal(n, 5, 21);
  std::vector<std::uint64_t> rows = {3, 17, 8, 25, 0, 11, 29, 14, 6, 21, 9, 2};
  RowMatrix Y(rows.size(), 5);
  for (size_t i = 0; i < rows.size(); ++i) Y.row(i) = all.row(rows[i]);
  const Batch batch{rows, Y, 5};
  const StepKey key{2, 7};
  const Vector p = model.initial_parameters();
  Vector grad;
  model.evaluate(p, batch, key, grad);
  auto f = [&](const Vector& x) {
    Vector unused;
    return model.evaluate(x, batch, key, unused).objective;
  };
  const Vector fd = finite_difference_gradient(f, p, 1e-6);
  EXPECT_LT(
      max_relative_error(grad.head(model.num_shared_parameters()), fd.head(model.num_shared_parameters())),
      1e-6);
  if (model.num_local_parameters() > 0) {
    EXPECT_LT(
        max_relative_error(grad.tail(model.num_local_parameters()), fd.tail(model.num_local_parameters())),
        1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, SasModelGradient,
                         ::testing::Values(Variant{false, LatentKind::amortised, Activation::tanh},
                                           Variant{false, LatentKind::amortised, Activation::relu},
                                           Variant{true, LatentKind::amortised, Activation::tanh},
                                           Variant{false, LatentKind::free, Activation::tanh},
                                           Variant{true, LatentKind::free, Activation::tanh},
                                           Variant{false, LatentKind::amortised, Activation::tanh, true},
                                           Variant{true, LatentKind::amortised, Activation::tanh, true}),
                         [](const auto& info) { return name(info.param); });

SasModelConfig small_config() {
  SasModelConfig c;
  c.data_dim = 4;
  c.encoder_hidden = {8};
  return c;
}

TEST(SasModel, BadBatchesAreErrorsNamingTheProblem) {
  const SasModel model(small_config(), 20, 0, 20);
  const Vector p = model.initial_parameters();
  std::vector<std::uint64_t> rows(10);
  std::iota(rows.begin(), rows.end(), 5);
  RowMatrix Y = random_normal(10, 4, 1);
  Vector g;
  EXPECT_THROW(model.evaluate(p, {rows, Y, 10}, {}, g), InputError);  // A >= B
  EXPECT_THROW(model.evaluate(p, {rows, Y, 0}, {}, g), InputError);
  Y(6, 2) = std::nan("");
  try {
    model.evaluate(p, {rows, Y, 3}, {}, g);
    FAIL() << "NaN accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "row");
    EXPECT_EQ(e.context().value, "11");  // global id of batch row 6
  }
  Y(6, 2) = INFINITY;
  EXPECT_THROW(model.evaluate(p, {rows, Y, 3}, {}, g), InputError);
  const RowMatrix wrong_cols = random_normal(10, 3, 2);
  EXPECT_THROW(model.evaluate(p, {rows, wrong_cols, 3}, {}, g), InputError);
}

TEST(SasModel, InvalidConfigurationsAreErrors) {
  SasModelConfig c = small_config();
  c.latent_dim = 0;
  EXPECT_THROW(SasModel(c, 20, 0, 20), InputError);
  EXPECT_THROW(SasModel(small_config(), 0, 0, 0), InputError);  // empty data
  c = small_config();
  c.data_dim = 0;
  EXPECT_THROW(SasModel(c, 20, 0, 20), InputError);
  EXPECT_THROW(parse_latent_kind("fixed"), InputError);
}

TEST(SasModel, ParameterLayoutSeparatesSharedAndLocalBlocks) {
  SasModelConfig c = small_config();
  c.latents = LatentKind::free;
  c.bayesian = true;
  const SasModel model(c, 50, 10, 15);
  EXPECT_EQ(model.num_shared_parameters(), 1 + 2 + 1);  // kernel (log theta, 2 log l) + log noise
  EXPECT_EQ(model.num_local_parameters(), 2 * 15 * 2);  // mu and log v for 15 local rows
  const Vector p = model.initial_parameters();
  EXPECT_NEAR(std::exp(p[0]), 0.5, 1e-15);  // the documented default theta 0.5
  EXPECT_NEAR(std::exp(p[1]), 0.1, 1e-15);  // l 0.1
  EXPECT_NEAR(std::exp(p[3]), 0.5, 1e-15);  // noise 0.5
  // Free latents are keyed by global row: a model owning rows 10..24 and one owning 0..49 agree.
  const SasModel whole(c, 50, 0, 50);
  const Vector q = whole.initial_parameters();
  EXPECT_EQ(p.segment(4, 30), q.segment(4 + 20, 30));
}

// The reason the non-Bayesian mean encoder's output bias is frozen: with a stationary kernel and
// no prior, shifting every latent by the same vector leaves the SAS objective unchanged.
TEST(SasModel, NonBayesianObjectiveIsInvariantToLatentTranslation) {
  SasModelConfig c = small_config();
  c.decoder.init.lengthscale = 1.0;
  const SasModel model(c, 20, 0, 20);
  std::vector<std::uint64_t> rows(12);
  std::iota(rows.begin(), rows.end(), 3);
  const RowMatrix Y = random_normal(12, 4, 3);
  Vector p = model.initial_parameters(), g;
  const double before = model.evaluate(p, {rows, Y, 5}, {}, g).objective;
  const Index output_bias = model.num_shared_parameters() - 2;  // last layer's bias: the final Q values
  EXPECT_EQ(g.segment(output_bias, 2).norm(), 0.0);
  p.segment(output_bias, 2) += Vector::Constant(2, 0.37);
  EXPECT_NEAR(model.evaluate(p, {rows, Y, 5}, {}, g).objective, before, 1e-9 * std::abs(before));
}

// Free latents spread over many lengthscales (N(0, 1) at l = 0.1) give kernel values below
// float's smallest normal number, which fp32 steps flush to zero (core/denormals.hpp): the step's
// result is the one computed with IEEE gradual underflow, to rounding, and the calling thread's
// control word comes back.
TEST(SasModel, Float32StepFlushesSubnormalsWithoutChangingItsResult) {
  SasModelConfig c;
  c.data_dim = 8;
  c.latents = LatentKind::free;
  c.decoder.init.lengthscale = 0.1;
  c.precision = Precision::float32;
  c.seed = 5;
  const std::uint64_t n = 300;
  std::vector<std::uint64_t> rows(240);
  std::iota(rows.begin(), rows.end(), 30);
  const RowMatrix Y = random_normal(static_cast<Index>(rows.size()), c.data_dim, 8);
  const Batch batch{rows, Y, 40};
  auto evaluate = [&](bool flush, Vector& gradient) {
    SasModelConfig ci = c;
    ci.flush_denormals = flush;
    const SasModel model(ci, n, 0, n);
    return model.evaluate(model.initial_parameters(), batch, {}, gradient).objective;
  };
  Vector g_ieee, g_flushed;
  const double ieee = evaluate(false, g_ieee);
  const double flushed = evaluate(true, g_flushed);
  EXPECT_FALSE(flushes_denormals());
  EXPECT_NEAR(flushed, ieee, 1e-12 * std::abs(ieee));
  EXPECT_LT(max_relative_error(g_flushed, g_ieee), 1e-9);
}

// A step writes every element of the gradient: the encoder block by the MLP's backward pass
// (which no longer needs it zeroed first), the rest zeroed and filled in. A gradient vector
// holding NaN, and a model whose fp32 buffers hold the previous step's values, give the
// gradient of a fresh evaluation bit for bit, in every variant and precision.
TEST(SasModel, StepOverwritesWhateverTheGradientVectorHeld) {
  const std::uint64_t n = 40;
  const RowMatrix all = random_normal(n, 6, 51);
  std::vector<std::uint64_t> rows = {3, 17, 8, 25, 0, 11, 29, 14, 6, 21, 9, 2, 33, 38};
  RowMatrix Y(rows.size(), 6);
  for (size_t i = 0; i < rows.size(); ++i) Y.row(i) = all.row(rows[i]);
  const Batch batch{rows, Y, 5};
  for (const bool bayesian : {false, true})
    for (const LatentKind latents : {LatentKind::amortised, LatentKind::free})
      for (const Precision precision : {Precision::float64, Precision::float32}) {
        SasModelConfig c;
        c.data_dim = 6;
        c.encoder_hidden = {7, 5};
        c.bayesian = bayesian;
        c.latents = latents;
        c.precision = precision;
        const SasModel model(c, n, 0, n);
        const Vector p = model.initial_parameters();
        Vector fresh;
        const double objective = model.evaluate(p, batch, {1, 2}, fresh).objective;
        Vector stale = Vector::Constant(model.num_parameters(), std::numeric_limits<double>::quiet_NaN());
        EXPECT_EQ(model.evaluate(p, batch, {1, 2}, stale).objective, objective);
        EXPECT_EQ(stale, fresh) << (bayesian ? "Bayesian " : "") << to_string(latents) << " "
                                << (precision == Precision::float32 ? "fp32" : "fp64");
        EXPECT_GT(fresh.cwiseAbs().maxCoeff(), 0.0);
      }
}

TEST(BatchSchedule, EveryRowOnceAnEpochAndBatchesIndependentOfAnythingButSeed) {
  const BatchSchedule s(1000, 96, 5);
  EXPECT_EQ(s.batches_per_epoch(), 10u);
  std::vector<int> seen(1000, 0);
  for (std::uint64_t b = 0; b < s.batches_per_epoch(); ++b) {
    const auto rows = s.batch_rows(3, b);
    EXPECT_GE(rows.size(), 96u);
    EXPECT_LT(rows.size(), 2 * 96u);
    for (auto r : rows) ++seen[r];
  }
  for (int count : seen) EXPECT_EQ(count, 1);
  EXPECT_EQ(s.batch_rows(3, 4), BatchSchedule(1000, 96, 5).batch_rows(3, 4));
  EXPECT_NE(s.batch_rows(3, 4), s.batch_rows(4, 4));
  EXPECT_THROW(BatchSchedule(10, 20, 1), InputError);
  EXPECT_THROW(BatchSchedule(0, 1, 1), InputError);
}

}  // namespace
}  // namespace gplvm

namespace gplvm {
namespace {

// Free latents are the training rows' parameters: encode returns the stored latents of this
// model's own rows and refuses, with an internal error naming the rows, rows it does not own
// (held-out rows numbered past the training rows, or another rank's rows).
TEST(SasModelEncode, FreeLatentsAreReturnedForOwnRowsOnlyAndOtherRowsAreAnInternalError) {
  SasModelConfig c;
  c.data_dim = 3;
  c.latent_dim = 2;
  c.latents = LatentKind::free;
  c.seed = 4;
  const SasModel model(c, 10, 4, 3);  // this process owns rows 4, 5, 6 of 10
  Vector params = model.initial_parameters();
  const RowMatrix stored = random_normal(3, 2, 5);
  model.set_local_block_rows(params, stored);
  const RowMatrix data = random_normal(3, 3, 6);
  RowMatrix mean;
  model.encode(params, data, 4, mean, nullptr);
  EXPECT_EQ((mean - stored).norm(), 0.0);
  model.encode(params, RowMatrix(data.bottomRows(2)), 5, mean, nullptr);  // a sub-block of own rows
  EXPECT_EQ((mean - stored.bottomRows(2)).norm(), 0.0);
  for (const std::uint64_t first : {0u, 5u, 7u}) {
    try {
      model.encode(params, data, first, mean, nullptr);
      ADD_FAILURE() << "rows from " << first << " were encoded";
    } catch (const InputError&) {
      ADD_FAILURE() << "an input error, not an internal one";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("latent inference"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("[4, 7)"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gplvm
