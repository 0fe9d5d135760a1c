#include "gplvm/model/mlp.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

using ConstMatrixMap = Eigen::Map<const Matrix>;
using MatrixMap = Eigen::Map<Matrix>;
using ArrayMap = Eigen::Map<Eigen::ArrayXd>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXd>;

constexpr const char* kValidActivations = "identity, relu, tanh, softplus";

bool is_known(Activation a) {
  return a == Activation::identity || a == Activation::relu || a == Activation::tanh ||
         a == Activation::softplus;
}

// ---- Element-wise kernels ----------------------------------------------------------------------
//
// Eigen 3.4 evaluates tanh, log1p, expm1 and select() for double one scalar at a time, and glibc's
// scalar tanh alone cost half as much as the forward GEMMs (B = 1024, 784-512-256-2). Eigen's SIMD
// exp and log are vectorised, so the smooth activations are written on its packets (the layer
// under its array functions), to within a few ulps of the scalar definitions. Lanes are
// independent and a ragged tail is padded to a full packet, so a value never depends on where it
// sits in the batch (or on how a batch is split across ranks).
namespace ei = Eigen::internal;
using Packet = ei::packet_traits<double>::type;
constexpr Index kLanes = ei::packet_traits<double>::size;
// With 2-lane (SSE) packets Eigen's exp and log are slower than glibc's scalar functions.
constexpr bool kUsePackets = kLanes >= 4;

Packet splat(double v) {
  return ei::pset1<Packet>(v);
}

// 1 - v for v = e^-a, a >= 0. Below a = ln 2 the subtraction cancels, so there use Kahan's expm1
// trick (v - 1) * a / log(v), in which the rounding error of v cancels between numerator and log.
Packet one_minus_exp_neg(const Packet& a, const Packet& v) {
  const Packet one = splat(1.0);
  const Packet kahan =
      ei::pselect(ei::pcmp_eq(v, one), a, ei::pdiv(ei::pmul(ei::psub(v, one), a), ei::plog(v)));
  return ei::pselect(ei::pcmp_lt(splat(std::numbers::ln2), a), ei::psub(one, v), kahan);
}

// log1p(u) for u in [0, 1], by Kahan's trick log(w) * u / (w - 1) with w = 1 + u.
Packet log1p_unit(const Packet& u) {
  const Packet one = splat(1.0), w = ei::padd(one, u);
  return ei::pselect(ei::pcmp_eq(w, one), u, ei::pmul(ei::plog(w), ei::pdiv(u, ei::psub(w, one))));
}

struct Tanh {
  static double scalar(double x) { return std::tanh(x); }
  // tanh|x| = (1 - t) / (1 + t) with t = e^-2|x| in (0, 1]: nothing overflows.
  static Packet packet(const Packet& x) {
    const Packet a2 = ei::pmul(splat(2.0), ei::pabs(x));
    const Packet t = ei::pexp(ei::pnegate(a2));
    const Packet r = ei::pdiv(one_minus_exp_neg(a2, t), ei::padd(splat(1.0), t));
    return ei::pselect(ei::pcmp_lt(x, ei::pzero(x)), ei::pnegate(r), r);
  }
};

struct Softplus {
  // log(1 + e^x) = log1p(e^-|x|) + max(x, 0): e^-|x| <= 1 never overflows, and log1p keeps full
  // precision where it is tiny (x -> -inf gives e^x, where log(1 + tiny) would give 0).
  static double scalar(double x) { return std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0); }
  static Packet packet(const Packet& x) {
    Packet y = ei::padd(ei::pmax(x, ei::pzero(x)), log1p_unit(ei::pexp(ei::pnegate(ei::pabs(x)))));
    // Eigen's exp clamps its argument at -709.78; the scalar form follows e^x into the subnormals.
    if (ei::predux_min(x) < -700.0) y = scalar_where_below(x, y, -700.0);
    return y;
  }
  static Packet scalar_where_below(const Packet& x, const Packet& y, double threshold) {
    double xs[kLanes], ys[kLanes];
    ei::pstoreu(xs, x);
    ei::pstoreu(ys, y);
    for (Index k = 0; k < kLanes; ++k)
      if (xs[k] < threshold) ys[k] = scalar(xs[k]);
    return ei::ploadu<Packet>(ys);
  }
};

// softplus'(pre) = sigmoid(pre) = 1 - e^-out, from the cached output so that backward needs no
// pre-activations. -expm1 keeps relative accuracy where the output (and the sigmoid) is tiny.
struct SoftplusSlope {
  static double scalar(double out) { return -std::expm1(-out); }
  static Packet packet(const Packet& out) { return one_minus_exp_neg(out, ei::pexp(ei::pnegate(out))); }
};

// y[i] = f(a[i], b[i]) for i < n, a packet at a time; y may alias a or b.
template <typename PacketFn, typename ScalarFn>
void map2(const double* a, const double* b, double* y, Index n, PacketFn packet_fn, ScalarFn scalar_fn) {
  if constexpr (!kUsePackets) {
    for (Index i = 0; i < n; ++i) y[i] = scalar_fn(a[i], b[i]);
  } else {
    Index i = 0;
    for (; i + kLanes <= n; i += kLanes)
      ei::pstoreu(y + i, packet_fn(ei::ploadu<Packet>(a + i), ei::ploadu<Packet>(b + i)));
    if (i == n) return;
    double pa[kLanes] = {}, pb[kLanes] = {};  // zero padding lies in every kernel's domain
    std::copy(a + i, a + n, pa);
    std::copy(b + i, b + n, pb);
    ei::pstoreu(pa, packet_fn(ei::ploadu<Packet>(pa), ei::ploadu<Packet>(pb)));
    std::copy(pa, pa + (n - i), y + i);
  }
}

template <typename Kernel>
void map_in_place(double* x, Index n) {
  map2(
      x, x, x, n, [](const Packet& v, const Packet&) { return Kernel::packet(v); },
      [](double v, double) { return Kernel::scalar(v); });
}

// ---- Layer steps --------------------------------------------------------------------------------

// z <- act(z), in place. The bias is already in z (see forward), so this is the one extra pass.
void activate(Activation a, Matrix& z) {
  switch (a) {
    case Activation::identity:
      return;
    case Activation::relu:
      z = z.cwiseMax(0.0);
      return;
    case Activation::tanh:
      map_in_place<Tanh>(z.data(), z.size());
      return;
    case Activation::softplus:
      map_in_place<Softplus>(z.data(), z.size());
      return;
  }
}

// dz = g * act'(pre), from out = act(pre), for one column of n values. dz may alias g.
void derivative_column(Activation a, const double* out, const double* g, double* dz, Index n) {
  const ConstArrayMap o(out, n), gg(g, n);
  ArrayMap d(dz, n);
  switch (a) {
    case Activation::identity:
      d = gg;
      return;
    case Activation::relu:  // out > 0 exactly where pre > 0; the kink gets 0, as in PyTorch
      d = (o > 0.0).select(gg, 0.0);
      return;
    case Activation::tanh:
      d = gg * (1.0 - o.square());
      return;
    case Activation::softplus:
      map2(
          out, g, dz, n,
          [](const Packet& ov, const Packet& gv) { return ei::pmul(gv, SoftplusSlope::packet(ov)); },
          [](double ov, double gv) { return gv * SoftplusSlope::scalar(ov); });
      return;
  }
}

// dz = g * act'(out) and db += column sums of dz, for rows x cols column-major blocks, column by
// column so that each column is read from memory once (the sum re-reads it from L1). Returns dz:
// g itself for identity (no copy), otherwise `buffer`, which may be g's own storage.
const double* layer_pre_gradient(Activation a, const double* out, const double* g, double* buffer, Index rows,
                                 Index cols, double* db) {
  const double* dz = a == Activation::identity ? g : buffer;
  for (Index j = 0; j < cols; ++j) {
    const Index at = j * rows;
    if (a != Activation::identity) derivative_column(a, out + at, g + at, buffer + at, rows);
    db[j] += ConstArrayMap(dz + at, rows).sum();
  }
  return dz;
}

// The hot-path checks build their message only when they fail: no allocation per call.
void check_input_width(const DataRef& input, Index input_dim) {
  if (input.cols() != input_dim)
    throw InputError("MLP input has " + std::to_string(input.cols()) +
                         " columns but the layout's input_dim is " + std::to_string(input_dim),
                     {"", "input_dim", std::to_string(input.cols())});
}

void check_backward_shapes(const Mlp& mlp, const DataRef& input, const std::vector<Matrix>& outputs,
                           const Matrix& d_out) {
  check_input_width(input, mlp.input_dim());
  if (outputs.size() != static_cast<std::size_t>(mlp.num_layers()) || outputs.back().rows() != input.rows())
    throw InputError("MLP backward needs the workspace of a forward call on the same input");
  if (d_out.rows() != input.rows() || d_out.cols() != mlp.output_dim())
    throw InputError("MLP backward: d_out must be rows x output_dim = " + std::to_string(input.rows()) + "x" +
                         std::to_string(mlp.output_dim()),
                     {"", "d_out", std::to_string(d_out.rows()) + "x" + std::to_string(d_out.cols())});
}

std::string layer_field(const char* field, std::size_t layer) {
  return std::string(field) + "[" + std::to_string(layer) + "]";
}

}  // namespace

Activation parse_activation(const std::string& name) {
  if (name == "identity") return Activation::identity;
  if (name == "relu") return Activation::relu;
  if (name == "tanh") return Activation::tanh;
  if (name == "softplus") return Activation::softplus;
  throw InputError("unknown activation '" + name + "' (valid: " + kValidActivations + ")",
                   {"", "activation", name});
}

std::string to_string(Activation activation) {
  switch (activation) {
    case Activation::identity:
      return "identity";
    case Activation::relu:
      return "relu";
    case Activation::tanh:
      return "tanh";
    case Activation::softplus:
      return "softplus";
  }
  throw InputError("invalid Activation value",
                   {"", "activation", std::to_string(static_cast<int>(activation))});
}

Mlp::Mlp(MlpLayout layout) : layout_(std::move(layout)) {
  require(layout_.input_dim >= 1, "MLP input_dim must be >= 1",
          {"", "input_dim", std::to_string(layout_.input_dim)});
  require(!layout_.widths.empty(), "MLP needs at least one layer: widths is empty", {"", "widths", ""});
  require(layout_.activations.size() == layout_.widths.size(),
          "MLP needs one activation per layer: activations.size() = " +
              std::to_string(layout_.activations.size()) +
              " but widths.size() = " + std::to_string(layout_.widths.size()),
          {"", "activations", std::to_string(layout_.activations.size())});
  Index fan_in = layout_.input_dim;
  for (std::size_t l = 0; l < layout_.widths.size(); ++l) {
    const Index fan_out = layout_.widths[l];
    require(fan_out >= 1, "MLP layer width must be >= 1",
            {"", layer_field("widths", l), std::to_string(fan_out)});
    require(is_known(layout_.activations[l]), "invalid Activation value",
            {"", layer_field("activations", l), std::to_string(static_cast<int>(layout_.activations[l]))});
    weight_offsets_.push_back(num_parameters_);
    bias_offsets_.push_back(num_parameters_ + fan_in * fan_out);
    num_parameters_ += fan_in * fan_out + fan_out;
    fan_in = fan_out;
  }
}

Index Mlp::fan_in(Index layer) const {
  return layer == 0 ? layout_.input_dim : layout_.widths[static_cast<std::size_t>(layer - 1)];
}

Index Mlp::weight_offset(Index layer) const {
  require(layer >= 0 && layer < num_layers(), "MLP layer index out of range",
          {"", "layer", std::to_string(layer)});
  return weight_offsets_[static_cast<std::size_t>(layer)];
}

Index Mlp::bias_offset(Index layer) const {
  require(layer >= 0 && layer < num_layers(), "MLP layer index out of range",
          {"", "layer", std::to_string(layer)});
  return bias_offsets_[static_cast<std::size_t>(layer)];
}

void Mlp::initialize(double* params, const CounterRng& rng, std::uint64_t stream) const {
  // W_l and b_l are contiguous and share the bound 1/sqrt(fan_in), so draw them in one sweep.
  for (Index l = 0; l < num_layers(); ++l) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in(l)));
    const Index end = bias_offset(l) + layout_.widths[static_cast<std::size_t>(l)];
    for (Index p = weight_offset(l); p < end; ++p) {
      const double u = rng.uniform(RngPurpose::encoder_init, stream, 0, static_cast<std::uint64_t>(p));
      params[p] = bound * (2.0 * u - 1.0);
    }
  }
}

void Mlp::forward(const double* params, const DataRef& input, Workspace& ws, Matrix& out) const {
  check_input_width(input, input_dim());
  const Index rows = input.rows();
  ws.outputs.resize(static_cast<std::size_t>(num_layers()));
  for (Index l = 0; l < num_layers(); ++l) {
    const auto s = static_cast<std::size_t>(l);
    const Index fan_out = layout_.widths[s];
    const ConstMatrixMap w(params + weight_offsets_[s], fan_in(l), fan_out);
    const double* b = params + bias_offsets_[s];
    Matrix& z = ws.outputs[s];
    z.resize(rows, fan_out);  // a no-op in the steady state
    // Eigen zero-fills the destination before dgemm (beta = 1); filling it with the bias instead
    // folds the bias in for free, so the activation is the only extra pass over z.
    for (Index j = 0; j < fan_out; ++j) z.col(j).setConstant(b[j]);
    if (l == 0)
      z.noalias() += input * w;
    else
      z.noalias() += ws.outputs[s - 1] * w;
    activate(layout_.activations[s], z);
  }
  out = ws.outputs.back();  // rows x output_dim: small next to the hidden layers
}

void Mlp::backward(const double* params, const DataRef& input, const Workspace& ws, const Matrix& d_out,
                   double* d_params) const {
  check_backward_shapes(*this, input, ws.outputs, d_out);
  // Two ping-pong buffers, grown to the widest layer and never shrunk, so that neither a steady
  // state nor a smaller (last) batch allocates.
  const Index rows = input.rows();
  const Index widest = *std::max_element(layout_.widths.begin(), layout_.widths.end());
  for (Vector& buffer : ws.scratch_)
    if (buffer.size() < rows * widest) buffer.resize(rows * widest);
  double* const scratch[2] = {ws.scratch_[0].data(), ws.scratch_[1].data()};

  const double* g = d_out.data();  // dL/d(output of layer l), rows x width_l
  double* g_own = nullptr;         // g when it lives in scratch, so that dz may overwrite it
  for (Index l = num_layers() - 1; l >= 0; --l) {
    const auto s = static_cast<std::size_t>(l);
    const Index width = layout_.widths[s];
    const ConstMatrixMap dz(
        layer_pre_gradient(layout_.activations[s], ws.outputs[s].data(), g, g_own ? g_own : scratch[0], rows,
                           width, d_params + bias_offsets_[s]),
        rows, width);
    MatrixMap dw(d_params + weight_offsets_[s], fan_in(l), width);
    if (l == 0) {
      dw.noalias() += input.transpose() * dz;
      return;
    }
    dw.noalias() += ws.outputs[s - 1].transpose() * dz;
    double* next = dz.data() == scratch[0] ? scratch[1] : scratch[0];
    const ConstMatrixMap w(params + weight_offsets_[s], fan_in(l), width);
    MatrixMap(next, rows, fan_in(l)).noalias() = dz * w.transpose();
    g = g_own = next;
  }
}

}  // namespace gplvm
