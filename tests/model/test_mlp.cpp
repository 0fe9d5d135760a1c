#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/model/mlp.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;
using testing::random_normal;

const std::vector<Activation> kAllActivations = {Activation::identity, Activation::relu, Activation::tanh,
                                                 Activation::softplus};

// ---- An independent reference: plain loops over the documented flat layout -------------------

double reference_activation(Activation a, double x) {
  switch (a) {
    case Activation::identity:
      return x;
    case Activation::relu:
      return x > 0 ? x : 0.0;
    case Activation::tanh:
      return std::tanh(x);
    case Activation::softplus:
      return std::log(1.0 + std::exp(x));  // naive on purpose; the tests keep |x| moderate
  }
  return 0;
}

struct ReferencePass {
  RowMatrix out;
  std::vector<RowMatrix> pre;  // pre-activations of every layer
};

// W_l is fan_in x fan_out column-major at offset o: W(j, k) = p[o + j + fan_in * k]; b_l follows.
ReferencePass reference_forward(const MlpLayout& layout, const Vector& p, const RowMatrix& x) {
  ReferencePass pass;
  RowMatrix in = x;
  Index offset = 0;
  for (std::size_t l = 0; l < layout.widths.size(); ++l) {
    const Index fan_in = in.cols(), fan_out = layout.widths[l];
    RowMatrix pre(in.rows(), fan_out), out(in.rows(), fan_out);
    for (Index i = 0; i < in.rows(); ++i) {
      for (Index k = 0; k < fan_out; ++k) {
        double s = p[offset + fan_in * fan_out + k];
        for (Index j = 0; j < fan_in; ++j) s += in(i, j) * p[offset + j + fan_in * k];
        pre(i, k) = s;
        out(i, k) = reference_activation(layout.activations[l], s);
      }
    }
    offset += fan_in * fan_out + fan_out;
    pass.pre.push_back(pre);
    in = out;
  }
  pass.out = in;
  return pass;
}

// Smallest |pre-activation| over the ReLU layers: the kink must be far from every FD probe.
double min_abs_relu_pre_activation(const MlpLayout& layout, const Vector& p, const RowMatrix& x) {
  const ReferencePass pass = reference_forward(layout, p, x);
  double smallest = std::numeric_limits<double>::infinity();
  for (std::size_t l = 0; l < layout.widths.size(); ++l)
    if (layout.activations[l] == Activation::relu)
      smallest = std::min(smallest, pass.pre[l].cwiseAbs().minCoeff());
  return smallest;
}

// ---- Helpers on the real implementation ------------------------------------------------------

// PyTorch-style initial parameters, scaled up so that tanh and softplus are clearly nonlinear.
Vector initial_parameters(const Mlp& mlp, std::uint64_t seed, double scale = 2.0) {
  Vector p(mlp.num_parameters());
  mlp.initialize(p.data(), CounterRng(seed), 0);
  return scale * p;
}

Matrix run_forward(const Mlp& mlp, const Vector& p, const RowMatrix& x) {
  Mlp::Workspace ws;
  Matrix out;
  mlp.forward(p.data(), x, ws, out);
  return out;
}

// L = sum(out .* C): a fixed random weighting makes every output column matter differently.
double weighted_sum_loss(const Mlp& mlp, const Vector& p, const RowMatrix& x, const Matrix& c) {
  return run_forward(mlp, p, x).cwiseProduct(c).sum();
}

Vector analytic_gradient(const Mlp& mlp, const Vector& p, const RowMatrix& x, const Matrix& c) {
  Mlp::Workspace ws;
  Matrix out;
  mlp.forward(p.data(), x, ws, out);
  Vector grad = Vector::Zero(mlp.num_parameters());
  mlp.backward(p.data(), x, ws, c, grad.data());
  return grad;
}

double fd_relative_error(const Mlp& mlp, const Vector& p, const RowMatrix& x, const Matrix& c) {
  const Vector analytic = analytic_gradient(mlp, p, x, c);
  const Vector numeric =
      finite_difference_gradient([&](const Vector& q) { return weighted_sum_loss(mlp, q, x, c); }, p);
  EXPECT_GT(analytic.cwiseAbs().maxCoeff(), 1e-3) << "gradient is trivially zero";
  return max_relative_error(analytic, numeric);
}

// ---- Layout ----------------------------------------------------------------------------------

TEST(Mlp, OffsetsFollowTheDocumentedFlatLayout) {
  const Mlp mlp({3, {4, 2}, {Activation::tanh, Activation::identity}});
  EXPECT_EQ(mlp.num_layers(), 2);
  EXPECT_EQ(mlp.input_dim(), 3);
  EXPECT_EQ(mlp.output_dim(), 2);
  EXPECT_EQ(mlp.weight_offset(0), 0);
  EXPECT_EQ(mlp.bias_offset(0), 12);
  EXPECT_EQ(mlp.weight_offset(1), 16);
  EXPECT_EQ(mlp.bias_offset(1), 24);
  EXPECT_EQ(mlp.num_parameters(), 26);
  EXPECT_THROW(mlp.weight_offset(2), InputError);
  EXPECT_THROW(mlp.bias_offset(-1), InputError);
}

void expect_layout_error(const MlpLayout& layout, const std::string& field) {
  try {
    Mlp mlp(layout);
    ADD_FAILURE() << "no InputError for a bad " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, field) << e.what();
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(Mlp, RejectsInconsistentLayouts) {
  const auto tanh = Activation::tanh;
  expect_layout_error({0, {3}, {tanh}}, "input_dim");
  expect_layout_error({-2, {3}, {tanh}}, "input_dim");
  expect_layout_error({4, {}, {}}, "widths");
  expect_layout_error({4, {3, 0, 2}, {tanh, tanh, tanh}}, "widths[1]");
  expect_layout_error({4, {3, 2}, {tanh}}, "activations");
  expect_layout_error({4, {3}, {tanh, tanh}}, "activations");
}

TEST(Activation, ParseAndToStringRoundTrip) {
  for (const Activation a : kAllActivations) EXPECT_EQ(parse_activation(to_string(a)), a);
  EXPECT_EQ(to_string(Activation::softplus), "softplus");
}

TEST(Activation, ParseRejectsUnknownNameListingTheValidOnes) {
  try {
    parse_activation("sigmoid");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.context().value, "sigmoid");
    for (const char* valid : {"sigmoid", "identity", "relu", "tanh", "softplus"})
      EXPECT_NE(what.find(valid), std::string::npos) << what;
  }
  EXPECT_THROW(parse_activation("ReLU"), InputError);  // names are exact
  EXPECT_THROW(parse_activation(""), InputError);
}

// ---- Forward ---------------------------------------------------------------------------------

TEST(Mlp, ForwardHasRowsTimesOutputDimAndCachesEveryLayer) {
  const Mlp mlp({6, {5, 4, 3}, {Activation::relu, Activation::tanh, Activation::softplus}});
  const Vector p = initial_parameters(mlp, 1);
  Mlp::Workspace ws;
  Matrix out;
  for (const Index rows : {7, 1, 7}) {  // shrinking and growing the batch reuses the workspace
    const RowMatrix x = random_normal(rows, 6, 2);
    mlp.forward(p.data(), x, ws, out);
    EXPECT_EQ(out.rows(), rows);
    EXPECT_EQ(out.cols(), 3);
    ASSERT_EQ(ws.outputs.size(), 3u);
    EXPECT_EQ(ws.outputs[1].rows(), rows);
    EXPECT_EQ(ws.outputs[1].cols(), 4);
    EXPECT_EQ(ws.outputs.back(), out);
  }
  EXPECT_THROW(mlp.forward(p.data(), RowMatrix(random_normal(3, 5, 2)), ws, out), InputError);
}

TEST(Mlp, ForwardMatchesNaiveLoops) {
  for (const Activation hidden : kAllActivations) {
    for (const Activation output : kAllActivations) {
      const MlpLayout layout{3, {4, 5, 2}, {hidden, hidden, output}};
      const Mlp mlp(layout);
      const Vector p = initial_parameters(mlp, 3);
      const RowMatrix x = random_normal(6, 3, 4);
      const RowMatrix expected = reference_forward(layout, p, x).out;
      const Matrix got = run_forward(mlp, p, x);
      EXPECT_LT((got - Matrix(expected)).cwiseAbs().maxCoeff(), 1e-13)
          << to_string(hidden) << " / " << to_string(output);
    }
  }
}

TEST(Mlp, ForwardAcceptsARowBlockOfALargerMatrix) {
  // DataRef may have an outer stride: a row range of a batch is passed without a copy.
  const Mlp mlp({4, {3}, {Activation::tanh}});
  const Vector p = initial_parameters(mlp, 5);
  const RowMatrix wide = random_normal(9, 4, 6);
  const Matrix from_block = run_forward(mlp, p, wide.middleRows(2, 5));
  const Matrix from_copy = run_forward(mlp, p, RowMatrix(wide.middleRows(2, 5)));
  EXPECT_EQ(from_block, from_copy);
}

// ---- Backward --------------------------------------------------------------------------------

struct ActivationPair {
  Activation hidden;
  Activation output;
};

void PrintTo(const ActivationPair& p, std::ostream* os) {
  *os << to_string(p.hidden) << "/" << to_string(p.output);
}

class MlpGradient : public ::testing::TestWithParam<ActivationPair> {};

TEST_P(MlpGradient, MatchesCentralFiniteDifferencesForEveryParameter) {
  const auto [hidden, output] = GetParam();
  const MlpLayout layout{4, {5, 6, 3}, {hidden, hidden, output}};
  const Mlp mlp(layout);
  const RowMatrix x = random_normal(6, 4, 11);
  const Matrix c = random_normal(6, 3, 12);
  // Pick the first seed whose ReLU pre-activations all stay 1e-3 away from the kink; FD probes
  // move them by ~1e-5, so the loss is smooth on every probe.
  std::uint64_t seed = 100;
  while (min_abs_relu_pre_activation(layout, initial_parameters(mlp, seed), x) < 1e-3) ++seed;
  ASSERT_LT(seed, 200u);
  EXPECT_LT(fd_relative_error(mlp, initial_parameters(mlp, seed), x, c), 1e-6);
}

std::vector<ActivationPair> all_pairs() {
  std::vector<ActivationPair> pairs;
  for (const Activation h : kAllActivations)
    for (const Activation o : kAllActivations) pairs.push_back({h, o});
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(HiddenAndOutput, MlpGradient, ::testing::ValuesIn(all_pairs()),
                         [](const ::testing::TestParamInfo<ActivationPair>& info) {
                           return to_string(info.param.hidden) + "_" + to_string(info.param.output);
                         });

TEST(Mlp, VarianceEncoderGradientMatchesFiniteDifferences) {
  // The Bayesian encoder's variance head: D -> h -> h -> Q with a softplus output.
  for (const Activation hidden : {Activation::tanh, Activation::softplus}) {
    const Mlp mlp({10, {8, 8, 2}, {hidden, hidden, Activation::softplus}});
    const RowMatrix x = random_normal(12, 10, 21);
    const Matrix c = random_normal(12, 2, 22);
    EXPECT_LT(fd_relative_error(mlp, initial_parameters(mlp, 23), x, c), 1e-6) << to_string(hidden);
  }
}

// backward writes its whole block: a buffer holding NaN (so that a value left unwritten, or read
// and added to, shows) or stale values ends up equal to the gradient written into zeros.
TEST(Mlp, BackwardWritesEveryParameterWhateverTheBufferHeld) {
  const Mlp mlp({3, {4, 2}, {Activation::softplus, Activation::tanh}});
  const Vector p = initial_parameters(mlp, 31);
  const RowMatrix x = random_normal(5, 3, 32);
  const Matrix c = random_normal(5, 2, 33);
  const Vector g = analytic_gradient(mlp, p, x, c);
  ASSERT_GT(g.cwiseAbs().minCoeff(), 0.0) << "every parameter should have a non-zero gradient here";
  Mlp::Workspace ws;
  Matrix out;
  mlp.forward(p.data(), x, ws, out);
  Vector buffer = Vector::Constant(mlp.num_parameters(), std::numeric_limits<double>::quiet_NaN());
  mlp.backward(p.data(), x, ws, c, buffer.data());
  EXPECT_EQ(buffer, g);
  buffer = random_normal(mlp.num_parameters(), 1, 34);
  mlp.backward(p.data(), x, ws, c, buffer.data());
  EXPECT_EQ(buffer, g);
}

// The per-block passes that reproducible sums rely on: each block's outputs and gradient are the
// bits that the block alone would give (whatever rows surround it, as when another rank count puts
// it in another batch share), they agree with the plain passes to rounding, and the blocks
// together give the whole batch's gradient.
TEST(Mlp, BlockPassesEqualEachBlockAloneAndSumToTheWholeGradient) {
  // Shapes above Eigen's coefficient-based threshold (rows + depth + cols >= 20), so the products
  // run as packed GEMMs, as an encoder's do: packing makes a block's sums independent of where it
  // sits and of the batch's leading dimension. (Tiny products are vectorised in place, and their
  // last bits then follow the alignment of the block's first row.) The last block is ragged, so
  // the batch's leading dimension is odd.
  const Mlp mlp({21, {24, 12, 3}, {Activation::relu, Activation::tanh, Activation::softplus}});
  const Vector p = initial_parameters(mlp, 41);
  const std::vector<Index> block_rows{64, 64, 17};
  const RowMatrix x = random_normal(145, 21, 42);
  const Matrix c = random_normal(145, 3, 43);
  const Index n = mlp.num_parameters();

  Mlp::Workspace ws;
  Matrix out;
  mlp.forward_in_blocks(p.data(), x, ws, out, block_rows);
  Vector per_block = Vector::Constant(3 * n, std::numeric_limits<double>::quiet_NaN());
  Matrix d_input;
  mlp.backward_in_blocks(p.data(), x, ws, c, block_rows, per_block.data(), n, &d_input);

  Index start = 0;
  Vector sum = Vector::Zero(n);
  for (std::size_t k = 0; k < block_rows.size(); ++k) {
    const Index rows = block_rows[k];
    const RowMatrix block_x = x.middleRows(start, rows);
    const Matrix block_c = c.middleRows(start, rows);
    const std::vector<Index> one_block{rows};
    Mlp::Workspace alone_ws;
    Matrix alone_out, alone_d_input;
    Vector alone_grad(n);
    mlp.forward_in_blocks(p.data(), block_x, alone_ws, alone_out, one_block);
    mlp.backward_in_blocks(p.data(), block_x, alone_ws, block_c, one_block, alone_grad.data(), n,
                           &alone_d_input);
    EXPECT_EQ(Matrix(out.middleRows(start, rows)), alone_out) << "block " << k;
    EXPECT_EQ(Vector(per_block.segment(static_cast<Index>(k) * n, n)), alone_grad) << "block " << k;
    EXPECT_EQ(Matrix(d_input.middleRows(start, rows)), alone_d_input) << "block " << k;

    Mlp::Workspace plain_ws;
    Matrix plain_out, plain_d_input;
    Vector plain_grad(n);
    mlp.forward(p.data(), block_x, plain_ws, plain_out);
    mlp.backward(p.data(), block_x, plain_ws, block_c, plain_grad.data(), &plain_d_input);
    EXPECT_LT((alone_out - plain_out).cwiseAbs().maxCoeff(), 1e-14 * plain_out.cwiseAbs().maxCoeff());
    EXPECT_LT((alone_grad - plain_grad).cwiseAbs().maxCoeff(), 1e-13 * plain_grad.cwiseAbs().maxCoeff());
    EXPECT_LT((alone_d_input - plain_d_input).cwiseAbs().maxCoeff(),
              1e-13 * plain_d_input.cwiseAbs().maxCoeff());
    sum += alone_grad;
    start += rows;
  }
  const Vector whole = analytic_gradient(mlp, p, x, c);
  EXPECT_LT((sum - whole).cwiseAbs().maxCoeff(), 1e-12 * whole.cwiseAbs().maxCoeff());
}

// dL/d(input), which a decoder needs for its latent inputs, for one and several layers; asking for
// it leaves the parameter gradient unchanged, bit for bit.
TEST(Mlp, InputGradientMatchesFiniteDifferences) {
  for (const MlpLayout& layout : {MlpLayout{3, {2}, {Activation::identity}},
                                  MlpLayout{3, {5, 4}, {Activation::tanh, Activation::softplus}}}) {
    const Mlp mlp(layout);
    const Vector p = initial_parameters(mlp, 51);
    const RowMatrix x = random_normal(6, 3, 52);
    const Matrix c = random_normal(6, mlp.output_dim(), 53);
    Mlp::Workspace ws;
    Matrix out, d_input;
    mlp.forward(p.data(), x, ws, out);
    Vector grad(mlp.num_parameters());
    mlp.backward(p.data(), x, ws, c, grad.data(), &d_input);
    EXPECT_EQ(grad, analytic_gradient(mlp, p, x, c));
    ASSERT_EQ(d_input.rows(), 6);
    ASSERT_EQ(d_input.cols(), 3);
    const Vector x_flat = Eigen::Map<const Vector>(Matrix(x).data(), x.size());
    const Vector numeric = finite_difference_gradient(
        [&](const Vector& q) {
          return weighted_sum_loss(mlp, p, RowMatrix(Eigen::Map<const Matrix>(q.data(), 6, 3)), c);
        },
        x_flat);
    EXPECT_LT(max_relative_error(Eigen::Map<const Vector>(d_input.data(), d_input.size()), numeric), 1e-6)
        << layout.widths.size() << " layers";
  }
}

TEST(Mlp, ReusedWorkspaceGivesTheSameGradientAsAFreshOne) {
  const Mlp mlp({5, {6, 4, 3}, {Activation::tanh, Activation::relu, Activation::identity}});
  const Vector p = initial_parameters(mlp, 41);
  Mlp::Workspace ws;
  Matrix out;
  for (const Index rows : {8, 3, 8}) {
    const RowMatrix x = random_normal(rows, 5, 42 + rows);
    const Matrix c = random_normal(rows, 3, 43 + rows);
    mlp.forward(p.data(), x, ws, out);
    Vector reused = Vector::Zero(mlp.num_parameters());
    mlp.backward(p.data(), x, ws, c, reused.data());
    EXPECT_EQ(reused, analytic_gradient(mlp, p, x, c)) << rows << " rows";
  }
}

TEST(Mlp, BackwardRejectsMismatchedShapes) {
  const Mlp mlp({3, {2}, {Activation::tanh}});
  const Vector p = initial_parameters(mlp, 51);
  const RowMatrix x = random_normal(4, 3, 52);
  Mlp::Workspace ws;
  Matrix out;
  Vector g = Vector::Zero(mlp.num_parameters());
  EXPECT_THROW(mlp.backward(p.data(), x, ws, Matrix::Ones(4, 2), g.data()), InputError);  // no forward
  mlp.forward(p.data(), x, ws, out);
  EXPECT_THROW(mlp.backward(p.data(), x, ws, Matrix::Ones(4, 3), g.data()), InputError);
  EXPECT_THROW(mlp.backward(p.data(), x.topRows(3), ws, Matrix::Ones(3, 2), g.data()), InputError);
}

// ---- Softplus at extreme inputs --------------------------------------------------------------

// The SIMD kernels for tanh and softplus agree with the scalar definitions to a few ulps.
constexpr double kFewUlps = 8 * std::numeric_limits<double>::epsilon();

double reference_softplus(double x) {
  return std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0);
}

double stable_sigmoid(double x) {
  return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
}

TEST(Mlp, SoftplusIsFiniteAndAccurateAtExtremeInputs) {
  // One unit with W = 1, b = 0: the output is softplus(x), dL/db is softplus'(x) = sigmoid(x).
  const Mlp mlp({1, {1}, {Activation::softplus}});
  const Vector p = Vector::Unit(2, 0);
  for (const double x : {-800.0, -745.0, -700.0, -40.0, -1.0, 0.0, 1e-9, 1.0, 40.0, 700.0, 800.0}) {
    const RowMatrix in = RowMatrix::Constant(1, 1, x);
    Mlp::Workspace ws;
    Matrix out;
    mlp.forward(p.data(), in, ws, out);
    Vector g = Vector::Zero(2);
    mlp.backward(p.data(), in, ws, Matrix::Ones(1, 1), g.data());
    const double y = out(0, 0), expected_derivative = stable_sigmoid(x);
    ASSERT_TRUE(std::isfinite(y) && std::isfinite(g[1])) << x;
    EXPECT_GE(y, 0.0);
    // Limits: softplus(x) -> x and -> e^x, reached to the last bit beyond |x| = 50. In between,
    // log1p(e^x) is accurate here (no overflow); plain log(1 + e^x) would give 0 at x = -40.
    const double expected = x > 50 ? x : x < -50 ? std::exp(x) : std::log1p(std::exp(x));
    EXPECT_LE(std::abs(y - expected), kFewUlps * expected + 1e-320) << x;
    EXPECT_LE(std::abs(g[1] - expected_derivative), kFewUlps * expected_derivative + 1e-320) << x;
    EXPECT_DOUBLE_EQ(g[0], x * g[1]) << x;
  }
}

// 0 and +-10^e for e from -12 to 3 in steps of 1/40: an odd count, so the batch ends in a ragged
// SIMD tail.
RowMatrix activation_sweep() {
  std::vector<double> xs = {0.0};
  for (int k = 0; k <= 600; ++k) {
    const double x = std::pow(10.0, -12.0 + k / 40.0);
    xs.push_back(x);
    xs.push_back(-x);
  }
  return Eigen::Map<const RowMatrix>(xs.data(), static_cast<Index>(xs.size()), 1);
}

TEST(Mlp, SmoothActivationsMatchTheirScalarDefinitions) {
  const RowMatrix x = activation_sweep();
  const Vector unit = Vector::Unit(2, 0);  // W = 1, b = 0: the output is the activation itself
  for (const Activation a : {Activation::tanh, Activation::softplus}) {
    const Matrix y = run_forward(Mlp({1, {1}, {a}}), unit, x);
    for (Index i = 0; i < x.rows(); ++i) {
      const double expected = a == Activation::tanh ? std::tanh(x(i, 0)) : reference_softplus(x(i, 0));
      EXPECT_LE(std::abs(y(i, 0) - expected), kFewUlps * std::abs(expected))
          << to_string(a) << " " << x(i, 0);
    }
  }
  // softplus' = sigmoid, formed from the output, one row at a time (dL/db is the slope).
  const Mlp softplus({1, {1}, {Activation::softplus}});
  for (Index i = 0; i < x.rows(); ++i) {
    const Vector g = analytic_gradient(softplus, unit, x.row(i), Matrix::Ones(1, 1));
    EXPECT_LE(std::abs(g[1] - stable_sigmoid(x(i, 0))), kFewUlps * stable_sigmoid(x(i, 0))) << x(i, 0);
  }
}

TEST(Mlp, ARowsOutputDoesNotDependOnItsPositionInTheBatch) {
  // The SIMD kernels pad the ragged tail instead of finishing it in scalar code, so shifting the
  // batch window (as a different rank count does) changes no bit of any row's output.
  const RowMatrix x = activation_sweep().topRows(37);
  const Vector unit = Vector::Unit(2, 0);
  for (const Activation a : kAllActivations) {
    const Mlp mlp({1, {1}, {a}});
    const Matrix full = run_forward(mlp, unit, x);
    for (Index offset = 1; offset < 9; ++offset)
      EXPECT_EQ(run_forward(mlp, unit, x.bottomRows(37 - offset)), full.bottomRows(37 - offset))
          << to_string(a) << " offset " << offset;
  }
}

TEST(Mlp, NanInputsStayNan) {
  // A diverged input must not come out as a plausible number.
  RowMatrix x = activation_sweep().topRows(11);
  x(4, 0) = std::numeric_limits<double>::quiet_NaN();
  for (const Activation a : kAllActivations) {
    const Matrix y = run_forward(Mlp({1, {1}, {a}}), Vector::Unit(2, 0), x);
    EXPECT_TRUE(std::isnan(y(4, 0))) << to_string(a);
    EXPECT_EQ(y.array().isNaN().count(), 1) << to_string(a);
  }
}

// ---- Initialisation --------------------------------------------------------------------------

TEST(Mlp, InitializeDrawsPyTorchUniformBoundsPerLayer) {
  const Mlp mlp({784, {512, 2}, {Activation::relu, Activation::identity}});
  Vector p(mlp.num_parameters());
  mlp.initialize(p.data(), CounterRng(7), 3);
  for (Index l = 0; l < 2; ++l) {
    const double bound = 1.0 / std::sqrt(l == 0 ? 784.0 : 512.0);
    const Index end = mlp.bias_offset(l) + mlp.layout().widths[l];
    EXPECT_LE(p.segment(mlp.weight_offset(l), end - mlp.weight_offset(l)).cwiseAbs().maxCoeff(), bound);
  }
  // U(-a, a) has mean 0 and variance a^2 / 3; 401408 draws give standard errors ~1.4e-3 relative.
  const auto w = p.segment(0, 784 * 512).array();
  const double a2 = 1.0 / 784.0, mean = w.mean(), var = (w - mean).square().mean();
  EXPECT_NEAR(mean, 0.0, 5 * std::sqrt(a2 / 3 / w.size()));
  EXPECT_NEAR(var / (a2 / 3), 1.0, 0.01);
  // Biases get the same bound as their layer's weights and are not all equal.
  const auto b = p.segment(mlp.bias_offset(0), 512).array();
  EXPECT_GT(b.maxCoeff() - b.minCoeff(), std::sqrt(a2));
}

TEST(Mlp, InitializeIsAFunctionOfSeedStreamAndFlatPosition) {
  const Mlp mlp({5, {4, 3}, {Activation::tanh, Activation::identity}});
  auto init = [&](std::uint64_t seed, std::uint64_t stream) {
    Vector p(mlp.num_parameters());
    mlp.initialize(p.data(), CounterRng(seed), stream);
    return p;
  };
  const Vector p = init(9, 2);
  EXPECT_EQ(p, init(9, 2));
  EXPECT_NE(p, init(9, 3));
  EXPECT_NE(p, init(10, 2));
  EXPECT_GT((p - init(9, 3)).cwiseAbs().minCoeff(), 0.0);  // every element differs, not just some
  // The reproducibility contract: element p is U(-a, a) from (encoder_init, stream, 0, p).
  const CounterRng rng(9);
  const Index q = mlp.bias_offset(1) + 1;  // a layer-1 bias: fan_in 4, a = 1/2
  EXPECT_DOUBLE_EQ(p[q], 0.5 * (2 * rng.uniform(RngPurpose::encoder_init, 2, 0, q) - 1));
  EXPECT_DOUBLE_EQ(p[0], (2 * rng.uniform(RngPurpose::encoder_init, 2, 0, 0) - 1) / std::sqrt(5.0));
}

}  // namespace
}  // namespace gplvm

namespace gplvm {
namespace {

// ---- fp32 ------------------------------------------------------------------------------------
// The float instantiation must compute the same function and gradient as the double one (which
// the FD tests above pin down) on the same float-representable inputs, to fp32 accuracy. Bound:
// 1e-5 relative (unit roundoff 6e-8 times the ~100-term sums of these layers, with margin); a
// wrong float path (e.g. packet code for the wrong lane count) is off by O(1). 37 rows: not a
// multiple of the 8 or 16 float lanes, so the ragged packet tail is exercised.
double max_relative_deviation(const Eigen::ArrayXd& a, const Eigen::ArrayXd& b) {
  return (a - b).abs().maxCoeff() / b.abs().maxCoeff();
}

TEST(Mlp, Float32ForwardAndBackwardMatchFloat64) {
  for (const Activation act : {Activation::relu, Activation::tanh, Activation::softplus}) {
    const Mlp mlp({30, {40, 20, 3}, {act, act, Activation::softplus}});
    const Vector p = initial_parameters(mlp, 51).cast<float>().cast<double>();
    const RowMatrix x = random_normal(37, 30, 52).cast<float>().cast<double>();
    const Matrix c = random_normal(37, 3, 53).cast<float>().cast<double>();

    Mlp::Workspace ws;
    Matrix out;
    mlp.forward(p.data(), x, ws, out);
    Vector grad = Vector::Zero(mlp.num_parameters());
    mlp.backward(p.data(), x, ws, c, grad.data());

    const VectorT<float> pf = p.cast<float>();
    const RowMatrixF xf = x.cast<float>();
    MlpWorkspace<float> wsf;
    MatrixT<float> outf;
    mlp.forward(pf.data(), xf, wsf, outf);
    VectorT<float> gradf = VectorT<float>::Zero(mlp.num_parameters());
    mlp.backward(pf.data(), xf, wsf, MatrixT<float>(c.cast<float>()), gradf.data());

    EXPECT_LT(max_relative_deviation(outf.cast<double>().array(), out.array()), 1e-5) << to_string(act);
    EXPECT_LT(max_relative_deviation(gradf.cast<double>().array(), grad.array()), 1e-5) << to_string(act);
  }
}

TEST(Mlp, Float32SoftplusFollowsTinyValuesIntoTheSubnormals) {
  // softplus(x) = e^x for x -> -inf: the float packet path must not flush it to zero early.
  const Mlp mlp({1, {1}, {Activation::softplus}});
  const VectorT<float> p = (VectorT<float>(2) << 1.0f, 0.0f).finished();  // w = 1, b = 0
  RowMatrixF x(3, 1);
  x << -20.0f, -80.0f, -95.0f;
  MlpWorkspace<float> ws;
  MatrixT<float> out;
  mlp.forward(p.data(), x, ws, out);
  for (Index i = 0; i < 3; ++i)
    EXPECT_NEAR(out(i, 0) / std::exp(double(x(i, 0))), 1.0, 0.02) << "x = " << x(i, 0);
}

}  // namespace
}  // namespace gplvm
