// The VAE baseline's decoder likelihood and batch ELBO: closed form for a linear decoder, central
// finite differences in fp64 for every adjoint, the flat layout, and the shape checks.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "gplvm/core/error.hpp"
#include "gplvm/model/gaussian_kl.hpp"
#include "gplvm/objectives/vae.hpp"
#include "gplvm/objectives/vae_elbo.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

constexpr double kFdTolerance = 1e-6;

Vector flat(const Matrix& m) {
  return Eigen::Map<const Vector>(m.data(), m.size());
}

// Decoder weights drawn as the model draws them (uniform in +-1/sqrt(fan_in)).
Vector decoder_weights(const VaeDecoder& decoder, std::uint64_t seed) {
  Vector w(decoder.num_weights());
  decoder.network().initialize(w.data(), CounterRng(seed), 0);
  return w;
}

RowMatrix data_rows(Index rows, Index cols, std::uint64_t seed) {
  return random_normal(rows, cols, seed);
}

TEST(VaeDecoder, LinearDecoderEqualsGaussianLogDensity) {
  const Index b = 7, q = 3, d = 4;
  const VaeDecoder decoder({q, d, {}, Activation::relu, Activation::identity});
  ASSERT_EQ(decoder.num_weights(), q * d + d);
  const Vector weights = decoder_weights(decoder, 3);
  const Matrix mean = random_normal(b, q, 1), variance = random_normal(b, q, 2).array().exp();
  const Matrix eps = random_normal(b, q, 4);
  const Matrix X = mean + (variance.array().sqrt() * eps.array()).matrix();
  const RowMatrix Y = data_rows(b, d, 5);
  const double log_noise = std::log(0.3), weight = 2.5;

  // f(x) = x W + b with W (Q x D, column-major) then b in the flat layout.
  const Eigen::Map<const Matrix> W(weights.data(), q, d);
  const Eigen::Map<const Vector> bias(weights.data() + q * d, d);
  double expected = 0.0;
  for (Index n = 0; n < b; ++n)
    for (Index j = 0; j < d; ++j) {
      const double f = X.row(n).dot(W.col(j)) + bias[j], r = Y(n, j) - f;
      expected += -0.5 * std::log(2.0 * std::numbers::pi * 0.3) - 0.5 * r * r / 0.3;
    }

  Vector d_weights = Vector::Zero(decoder.num_weights());
  const DecoderLikelihood lik =
      decoder.log_likelihood(weights.data(), log_noise, X, Y, weight, d_weights.data());
  EXPECT_NEAR(lik.value, weight * expected, 1e-12 * std::abs(weight * expected));
  // The linear decoder's adjoints in closed form: dL/dX = w/sigma^2 R W^T, dL/dW = w/sigma^2 X^T R.
  const Matrix R = Y - ((X * W).rowwise() + bias.transpose());
  EXPECT_LT((lik.d_latents - weight / 0.3 * R * W.transpose()).norm(), 1e-12 * lik.d_latents.norm());
  const Matrix dW = weight / 0.3 * X.transpose() * R;
  EXPECT_LT((Eigen::Map<const Matrix>(d_weights.data(), q, d) - dW).norm(), 1e-12 * dW.norm());
  EXPECT_NEAR(lik.sum_squares, R.squaredNorm(), 1e-12 * R.squaredNorm());
  EXPECT_NEAR(lik.d_log_noise, weight * 0.5 * (R.squaredNorm() / 0.3 - b * d),
              1e-12 * std::abs(lik.d_log_noise));
}

class VaeDecoderGradient : public ::testing::TestWithParam<Activation> {};

TEST_P(VaeDecoderGradient, MatchesFiniteDifferences) {
  const Index b = 9, q = 2, d = 5;
  const VaeDecoder decoder({q, d, {6, 4}, GetParam(), Activation::identity});
  const Vector weights = decoder_weights(decoder, 7);
  const Matrix X = random_normal(b, q, 8);
  const RowMatrix Y = data_rows(b, d, 9);
  const double log_noise = std::log(0.7), weight = 3.0;

  Vector d_weights = Vector::Zero(decoder.num_weights());
  const DecoderLikelihood lik =
      decoder.log_likelihood(weights.data(), log_noise, X, Y, weight, d_weights.data());

  Vector scratch(decoder.num_weights());
  auto wrt_latents = [&](const Vector& x) {
    return decoder
        .log_likelihood(weights.data(), log_noise, Eigen::Map<const Matrix>(x.data(), b, q), Y, weight,
                        scratch.data())
        .value;
  };
  EXPECT_LT(max_relative_error(flat(lik.d_latents), finite_difference_gradient(wrt_latents, flat(X))),
            kFdTolerance);
  auto wrt_weights = [&](const Vector& w) {
    return decoder.log_likelihood(w.data(), log_noise, X, Y, weight, scratch.data()).value;
  };
  EXPECT_LT(max_relative_error(d_weights, finite_difference_gradient(wrt_weights, weights)), kFdTolerance);
  auto wrt_log_noise = [&](const Vector& s) {
    return decoder.log_likelihood(weights.data(), s[0], X, Y, weight, scratch.data()).value;
  };
  const Vector s = Vector::Constant(1, log_noise);
  EXPECT_LT(
      max_relative_error(Vector::Constant(1, lik.d_log_noise), finite_difference_gradient(wrt_log_noise, s)),
      kFdTolerance);
}

INSTANTIATE_TEST_SUITE_P(Activations, VaeDecoderGradient,
                         ::testing::Values(Activation::tanh, Activation::relu, Activation::softplus));

TEST(VaeDecoder, AddsIntoTheWeightGradient) {
  const VaeDecoder decoder({2, 3, {4}, Activation::tanh, Activation::identity});
  const Vector weights = decoder_weights(decoder, 1);
  const Matrix X = random_normal(5, 2, 2);
  const RowMatrix Y = data_rows(5, 3, 3);
  Vector fresh = Vector::Zero(decoder.num_weights());
  decoder.log_likelihood(weights.data(), 0.1, X, Y, 1.0, fresh.data());
  Vector accumulated = Vector::Ones(decoder.num_weights());
  decoder.log_likelihood(weights.data(), 0.1, X, Y, 1.0, accumulated.data());
  EXPECT_LT((accumulated - (fresh.array() + 1.0).matrix()).norm(), 1e-14 * (1 + fresh.norm()));
}

TEST(VaeDecoder, ZeroRowsGiveZeroTerms) {
  const VaeDecoder decoder({2, 3, {4}, Activation::relu, Activation::identity});
  const Vector weights = decoder_weights(decoder, 1);
  Vector d_weights = Vector::Zero(decoder.num_weights());
  const DecoderLikelihood lik =
      decoder.log_likelihood(weights.data(), 0.0, Matrix(0, 2), RowMatrix(0, 3), 4.0, d_weights.data());
  EXPECT_EQ(lik.value, 0.0);
  EXPECT_EQ(lik.d_log_noise, 0.0);
  EXPECT_EQ(lik.d_latents.rows(), 0);
  EXPECT_EQ(d_weights.norm(), 0.0);
}

TEST(VaeDecoder, RejectsMismatchedShapes) {
  const VaeDecoder decoder({2, 3, {4}, Activation::relu, Activation::identity});
  const Vector weights = decoder_weights(decoder, 1);
  Vector g = Vector::Zero(decoder.num_weights());
  const double* w = weights.data();
  EXPECT_THROW(decoder.log_likelihood(w, 0.0, Matrix::Zero(4, 3), RowMatrix::Zero(4, 3), 1, g.data()),
               InputError);
  EXPECT_THROW(decoder.log_likelihood(w, 0.0, Matrix::Zero(4, 2), RowMatrix::Zero(4, 2), 1, g.data()),
               InputError);
  EXPECT_THROW(decoder.log_likelihood(w, 0.0, Matrix::Zero(4, 2), RowMatrix::Zero(5, 3), 1, g.data()),
               InputError);
  EXPECT_THROW(decoder.log_likelihood(w, NAN, Matrix::Zero(4, 2), RowMatrix::Zero(4, 3), 1, g.data()),
               InputError);
}

TEST(VaeElbo, DefaultLayoutMirrorsTheEncoder) {
  VaeConfig config;
  config.data_dim = 10;
  const VaeElbo elbo(config);
  const MlpLayout& dec = elbo.decoder().network().layout();
  EXPECT_EQ(dec.input_dim, 2);
  EXPECT_EQ(dec.widths, (std::vector<Index>{256, 512, 10}));
  EXPECT_EQ(dec.activations.back(), Activation::identity);
  EXPECT_EQ(elbo.mean_encoder().layout().widths, (std::vector<Index>{512, 256, 2}));
  EXPECT_EQ(elbo.variance_encoder().layout().activations.back(), Activation::softplus);
  const Index decoder_size = (2 * 256 + 256) + (256 * 512 + 512) + (512 * 10 + 10);
  const Index encoder_size = (10 * 512 + 512) + (512 * 256 + 256) + (256 * 2 + 2);
  EXPECT_EQ(elbo.decoder_offset(), 0);
  EXPECT_EQ(elbo.noise_offset(), decoder_size);
  EXPECT_EQ(elbo.mean_encoder_offset(), decoder_size + 1);
  EXPECT_EQ(elbo.variance_encoder_offset(), decoder_size + 1 + encoder_size);
  EXPECT_EQ(elbo.num_parameters(), decoder_size + 1 + 2 * encoder_size);
  const Vector p = elbo.initial_parameters(4);
  EXPECT_DOUBLE_EQ(p[elbo.noise_offset()], std::log(0.5));
  EXPECT_TRUE(p.allFinite());
}

TEST(VaeElbo, RejectsBadConfigAndShapes) {
  VaeConfig config;
  EXPECT_THROW(VaeElbo{config}, InputError);  // data_dim unset
  config.data_dim = 3;
  config.noise_variance = 0.0;
  EXPECT_THROW(VaeElbo{config}, InputError);
  config.noise_variance = 0.5;
  config.encoder_hidden = {4};
  config.decoder_hidden = {4};
  const VaeElbo elbo(config);
  const Vector p = elbo.initial_parameters(1);
  Vector g;
  EXPECT_THROW(elbo.evaluate(p.head(3), RowMatrix::Zero(2, 3), Matrix::Zero(2, 2), 1, 1, g), InputError);
  EXPECT_THROW(elbo.evaluate(p, RowMatrix::Zero(2, 4), Matrix::Zero(2, 2), 1, 1, g), InputError);
  EXPECT_THROW(elbo.evaluate(p, RowMatrix::Zero(2, 3), Matrix::Zero(3, 2), 1, 1, g), InputError);
}

// A small VAE with smooth activations and a batch of 11 rows.
struct ElboProblem {
  VaeElbo elbo;
  Vector params;
  RowMatrix Y;
  Matrix eps;
};

ElboProblem elbo_problem(Activation hidden) {
  VaeConfig config;
  config.data_dim = 5;
  config.latent_dim = 2;
  config.encoder_hidden = {6, 4};
  config.encoder_activation = hidden;
  config.decoder_hidden = {4, 6};
  config.decoder_activation = hidden;
  config.noise_variance = 0.4;
  VaeElbo elbo(config);
  Vector params = elbo.initial_parameters(21);
  const Index b = 11;
  return {std::move(elbo), std::move(params), data_rows(b, 5, 22), random_normal(b, 2, 23)};
}

TEST(VaeElbo, TermsAreTheDecoderLikelihoodAtTheSampleMinusTheKl) {
  const ElboProblem p = elbo_problem(Activation::tanh);
  const double w_lik = 4.0, w_kl = 3.0;
  Vector gradient;
  const VaeElboTerms terms = p.elbo.evaluate(p.params, p.Y, p.eps, w_lik, w_kl, gradient);

  Matrix mean, variance;
  MlpWorkspace<double> ws;
  p.elbo.mean_encoder().forward<double>(p.params.data() + p.elbo.mean_encoder_offset(), p.Y, ws, mean);
  p.elbo.variance_encoder().forward<double>(p.params.data() + p.elbo.variance_encoder_offset(), p.Y, ws,
                                            variance);
  const Matrix X = mean + (variance.array().sqrt() * p.eps.array()).matrix();
  Vector scratch = Vector::Zero(p.elbo.decoder().num_weights());
  const DecoderLikelihood lik = p.elbo.decoder().log_likelihood(
      p.params.data(), p.params[p.elbo.noise_offset()], X, p.Y, 1.0, scratch.data());
  EXPECT_NEAR(terms.log_likelihood, lik.value, 1e-12 * std::abs(lik.value));
  EXPECT_NEAR(terms.kl, gaussian_kl(mean, variance), 1e-12 * terms.kl);
  EXPECT_NEAR(terms.value, w_lik * terms.log_likelihood - w_kl * terms.kl, 1e-12 * std::abs(terms.value));
}

class VaeElboGradient : public ::testing::TestWithParam<Activation> {};

// Every block of the flat vector, with eps fixed: the encoders' gradients go through the sample.
TEST_P(VaeElboGradient, MatchesFiniteDifferencesInEveryBlock) {
  const ElboProblem p = elbo_problem(GetParam());
  const double w_lik = 4.0, w_kl = 4.0;
  Vector gradient;
  p.elbo.evaluate(p.params, p.Y, p.eps, w_lik, w_kl, gradient);
  ASSERT_EQ(gradient.size(), p.elbo.num_parameters());
  Vector scratch;
  const Vector fd = finite_difference_gradient(
      [&](const Vector& x) { return p.elbo.evaluate(x, p.Y, p.eps, w_lik, w_kl, scratch).value; }, p.params);

  struct Block {
    const char* name;
    Index begin, end;
  };
  const Block blocks[] = {{"decoder", p.elbo.decoder_offset(), p.elbo.noise_offset()},
                          {"log noise", p.elbo.noise_offset(), p.elbo.mean_encoder_offset()},
                          {"mean encoder", p.elbo.mean_encoder_offset(), p.elbo.variance_encoder_offset()},
                          {"variance encoder", p.elbo.variance_encoder_offset(), p.elbo.num_parameters()}};
  for (const Block& block : blocks) {
    const Index n = block.end - block.begin;
    EXPECT_LT(max_relative_error(gradient.segment(block.begin, n), fd.segment(block.begin, n)), kFdTolerance)
        << block.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Activations, VaeElboGradient, ::testing::Values(Activation::tanh, Activation::relu));

TEST(VaeElbo, NoiseIsKeyedByGlobalRow) {
  const CounterRng rng(9);
  const std::vector<std::uint64_t> all{0, 1, 2, 3, 4, 5}, some{4, 1};
  const Matrix full = vae_reparameterisation_noise(rng, 2, 3, all, 3);
  const Matrix part = vae_reparameterisation_noise(rng, 2, 3, some, 3);
  EXPECT_EQ(part.row(0), full.row(4));
  EXPECT_EQ(part.row(1), full.row(1));
  EXPECT_NE(vae_reparameterisation_noise(rng, 2, 4, all, 3), full);  // another step, another draw
}

}  // namespace
}  // namespace gplvm
