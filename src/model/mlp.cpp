#include "gplvm/model/mlp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <string>
#include <utility>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/linalg/gemm.hpp"

namespace gplvm {
namespace {

template <typename Scalar>
using ArrayMap = Eigen::Map<Eigen::Array<Scalar, Eigen::Dynamic, 1>>;
template <typename Scalar>
using ConstArrayMap = Eigen::Map<const Eigen::Array<Scalar, Eigen::Dynamic, 1>>;

constexpr const char* kValidActivations = "identity, relu, tanh, softplus";

// Layer columns per unit of a thread's share in the element-wise passes (a column is a batch of
// values, so a few columns are worth a thread).
constexpr Index kColumnsPerShareUnit = 8;

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
template <typename Scalar>
using Packet = typename ei::packet_traits<Scalar>::type;
template <typename Scalar>
constexpr Index kLanes = ei::packet_traits<Scalar>::size;
// With 2-lane (SSE) packets Eigen's exp and log are slower than glibc's scalar functions.
template <typename Scalar>
constexpr bool kUsePackets = kLanes<Scalar> >= 4;

template <typename P>
P splat(typename ei::unpacket_traits<P>::type v) {
  return ei::pset1<P>(v);
}

// 1 - v for v = e^-a, a >= 0. Below a = ln 2 the subtraction cancels, so there use Kahan's expm1
// trick (v - 1) * a / log(v), in which the rounding error of v cancels between numerator and log.
template <typename P>
P one_minus_exp_neg(const P& a, const P& v) {
  const P one = splat<P>(1);
  const P kahan = ei::pselect(ei::pcmp_eq(v, one), a, ei::pdiv(ei::pmul(ei::psub(v, one), a), ei::plog(v)));
  return ei::pselect(ei::pcmp_lt(splat<P>(std::numbers::ln2), a), ei::psub(one, v), kahan);
}

// log1p(u) for u in [0, 1], by Kahan's trick log(w) * u / (w - 1) with w = 1 + u.
template <typename P>
P log1p_unit(const P& u) {
  const P one = splat<P>(1), w = ei::padd(one, u);
  return ei::pselect(ei::pcmp_eq(w, one), u, ei::pmul(ei::plog(w), ei::pdiv(u, ei::psub(w, one))));
}

struct Tanh {
  template <typename S>
  static S scalar(S x) {
    return std::tanh(x);
  }
  // tanh|x| = (1 - t) / (1 + t) with t = e^-2|x| in (0, 1]: nothing overflows.
  template <typename P>
  static P packet(const P& x) {
    const P a2 = ei::pmul(splat<P>(2), ei::pabs(x));
    const P t = ei::pexp(ei::pnegate(a2));
    const P r = ei::pdiv(one_minus_exp_neg(a2, t), ei::padd(splat<P>(1), t));
    return ei::pselect(ei::pcmp_lt(x, ei::pzero(x)), ei::pnegate(r), r);
  }
};

struct Softplus {
  // log(1 + e^x) = log1p(e^-|x|) + max(x, 0): e^-|x| <= 1 never overflows, and log1p keeps full
  // precision where it is tiny (x -> -inf gives e^x, where log(1 + tiny) would give 0).
  template <typename S>
  static S scalar(S x) {
    return std::log1p(std::exp(-std::abs(x))) + std::max(x, S(0));
  }
  template <typename P>
  static P packet(const P& x) {
    using S = typename ei::unpacket_traits<P>::type;
    P y = ei::padd(ei::pmax(x, ei::pzero(x)), log1p_unit(ei::pexp(ei::pnegate(ei::pabs(x)))));
    // Eigen's exp clamps its argument near log(smallest normal); the scalar form follows e^x into
    // the subnormals.
    const S threshold = std::log(std::numeric_limits<S>::min()) + S(8);
    if (ei::predux_min(x) < threshold) y = scalar_where_below(x, y, threshold);
    return y;
  }
  template <typename P, typename S>
  static P scalar_where_below(const P& x, const P& y, S threshold) {
    constexpr Index lanes = ei::unpacket_traits<P>::size;
    S xs[lanes], ys[lanes];
    ei::pstoreu(xs, x);
    ei::pstoreu(ys, y);
    for (Index k = 0; k < lanes; ++k)
      if (xs[k] < threshold) ys[k] = scalar(xs[k]);
    return ei::ploadu<P>(ys);
  }
};

// softplus'(pre) = sigmoid(pre) = 1 - e^-out, from the cached output so that backward needs no
// pre-activations. -expm1 keeps relative accuracy where the output (and the sigmoid) is tiny.
struct SoftplusSlope {
  template <typename S>
  static S scalar(S out) {
    return -std::expm1(-out);
  }
  template <typename P>
  static P packet(const P& out) {
    return one_minus_exp_neg(out, ei::pexp(ei::pnegate(out)));
  }
};

// y[i] = f(a[i], b[i]) for i < n, a packet at a time; y may alias a or b.
template <typename Scalar, typename PacketFn, typename ScalarFn>
void map2(const Scalar* a, const Scalar* b, Scalar* y, Index n, PacketFn packet_fn, ScalarFn scalar_fn) {
  using P = Packet<Scalar>;
  constexpr Index lanes = kLanes<Scalar>;
  if constexpr (!kUsePackets<Scalar>) {
    for (Index i = 0; i < n; ++i) y[i] = scalar_fn(a[i], b[i]);
  } else {
    Index i = 0;
    for (; i + lanes <= n; i += lanes)
      ei::pstoreu(y + i, packet_fn(ei::ploadu<P>(a + i), ei::ploadu<P>(b + i)));
    if (i == n) return;
    Scalar pa[lanes] = {}, pb[lanes] = {};  // zero padding lies in every kernel's domain
    std::copy(a + i, a + n, pa);
    std::copy(b + i, b + n, pb);
    ei::pstoreu(pa, packet_fn(ei::ploadu<P>(pa), ei::ploadu<P>(pb)));
    std::copy(pa, pa + (n - i), y + i);
  }
}

template <typename Kernel, typename Scalar>
void map_in_place(Scalar* x, Index n) {
  using P = Packet<Scalar>;
  map2(
      x, x, x, n, [](const P& v, const P&) { return Kernel::packet(v); },
      [](Scalar v, Scalar) { return Kernel::scalar(v); });
}

// ---- Layer steps --------------------------------------------------------------------------------

// z <- act(z) for n contiguous values, in place.
template <typename Scalar>
void activate(Activation a, Scalar* z, Index n) {
  switch (a) {
    case Activation::identity:
      return;
    case Activation::relu: {
      ArrayMap<Scalar> values(z, n);
      values = values.max(Scalar(0));
      return;
    }
    case Activation::tanh:
      map_in_place<Tanh>(z, n);
      return;
    case Activation::softplus:
      map_in_place<Softplus>(z, n);
      return;
  }
}

// Column j of the rows x cols column-major block z becomes act(z_j + b_j): the layer's bias and
// activation in one pass over the product, column by column, so that each column (a few KB) is
// read from memory once and finished in L1.
template <typename Scalar>
void add_bias_and_activate(Activation a, Scalar* z, Index rows, Index cols, const Scalar* b) {
  for (Index j = 0; j < cols; ++j) {
    ArrayMap<Scalar>(z + j * rows, rows) += b[j];
    activate(a, z + j * rows, rows);
  }
}

// dz = g * act'(pre), from out = act(pre), for one column of n values. dz may alias g.
template <typename Scalar>
void derivative_column(Activation a, const Scalar* out, const Scalar* g, Scalar* dz, Index n) {
  using P = Packet<Scalar>;
  const ConstArrayMap<Scalar> o(out, n), gg(g, n);
  ArrayMap<Scalar> d(dz, n);
  switch (a) {
    case Activation::identity:
      d = gg;
      return;
    case Activation::relu:  // out > 0 exactly where pre > 0; the kink gets 0, as in PyTorch
      d = (o > Scalar(0)).select(gg, Scalar(0));
      return;
    case Activation::tanh:
      d = gg * (Scalar(1) - o.square());
      return;
    case Activation::softplus:
      map2(
          out, g, dz, n, [](const P& ov, const P& gv) { return ei::pmul(gv, SoftplusSlope::packet(ov)); },
          [](Scalar ov, Scalar gv) { return gv * SoftplusSlope::scalar(ov); });
      return;
  }
}

// dz = g * act'(out) and db = column sums of dz, for rows x cols column-major blocks, column by
// column so that each column is read from memory once (the sum re-reads it from L1). dz is g
// itself for identity (no copy), otherwise written to `buffer`, which may be g's own storage.
template <typename Scalar>
void layer_pre_gradient(Activation a, const Scalar* out, const Scalar* g, Scalar* buffer, Index rows,
                        Index cols, Scalar* db) {
  const Scalar* dz = a == Activation::identity ? g : buffer;
  for (Index j = 0; j < cols; ++j) {
    const Index at = j * rows;
    if (a != Activation::identity) derivative_column(a, out + at, g + at, buffer + at, rows);
    db[j] = ConstArrayMap<Scalar>(dz + at, rows).sum();
  }
}

// The hot-path checks build their message only when they fail: no allocation per call.
template <typename Input>
void check_input_width(const Input& input, Index input_dim) {
  if (input.cols() != input_dim)
    throw InputError("MLP input has " + std::to_string(input.cols()) +
                         " columns but the layout's input_dim is " + std::to_string(input_dim),
                     {"", "input_dim", std::to_string(input.cols())});
}

template <typename Scalar>
void check_backward_shapes(const Mlp& mlp, const DataRefT<Scalar>& input,
                           const std::vector<MatrixT<Scalar>>& outputs, const MatrixT<Scalar>& d_out) {
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

// Calls f(first, n) for the consecutive row blocks of the given sizes.
template <typename F>
void for_each_block(std::span<const Index> block_rows, F&& f) {
  Index first = 0;
  for (const Index n : block_rows) {
    f(first, n);
    first += n;
  }
}

void check_block_rows(std::span<const Index> block_rows, Index rows) {
  if (std::accumulate(block_rows.begin(), block_rows.end(), Index{0}) != rows)
    throw InputError("MLP: the row blocks must cover the input's rows", {"", "rows", std::to_string(rows)});
}

// x[0] + x[1] + ... in this order (a vectorised sum's order depends on x's alignment).
template <typename Scalar>
Scalar ordered_sum(const Scalar* x, Index n) {
  Scalar sum = 0;
  for (Index i = 0; i < n; ++i) sum += x[i];
  return sum;
}

// Rows [first, first + n) of a view.
template <typename Scalar>
ConstMatrixView<Scalar> row_range(const ConstMatrixView<Scalar>& m, Index first, Index n) {
  return {m.data + first * m.row_stride, n, m.cols, m.row_stride, m.col_stride};
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

template <typename Scalar>
void Mlp::forward(const Scalar* params, const std::type_identity_t<DataRefT<Scalar>>& input,
                  MlpWorkspace<Scalar>& ws, MatrixT<Scalar>& out) const {
  const Index rows = input.rows();
  forward_in_blocks<Scalar>(params, input, ws, out, std::span<const Index>(&rows, 1));
}

template <typename Scalar>
void Mlp::forward_in_blocks(const Scalar* params, const std::type_identity_t<DataRefT<Scalar>>& input,
                            MlpWorkspace<Scalar>& ws, MatrixT<Scalar>& out,
                            std::span<const Index> block_rows) const {
  using ConstMap = Eigen::Map<const MatrixT<Scalar>>;
  check_input_width(input, input_dim());
  const Index rows = input.rows();
  check_block_rows(block_rows, rows);
  ws.outputs.resize(static_cast<std::size_t>(num_layers()));
  for (Index l = 0; l < num_layers(); ++l) {
    const auto s = static_cast<std::size_t>(l);
    const Index fan_out = layout_.widths[s];
    const ConstMap w(params + weight_offsets_[s], fan_in(l), fan_out);
    const Scalar* b = params + bias_offsets_[s];
    MatrixT<Scalar>& z = ws.outputs[s];
    z.resize(rows, fan_out);  // a no-op in the steady state
    const ConstMatrixView<Scalar> layer_input = l == 0 ? view_of(input) : view_of(ws.outputs[s - 1]);
    // The product overwrites z; the bias is added in the activation's pass. (Filling z with the
    // bias for a beta = 1 product was one more pass over z, and made the product read it.) The
    // element-wise pass is split among the rank's threads by columns, the product by gemm itself
    // (by whichever dimension balances better). One product per row block: a product's last bits
    // may depend on its shape (Eigen's blocking), so a block's rows get the same bits in any batch.
    for_each_block(block_rows, [&](Index first, Index n) {
      gemm(row_range(layer_input, first, n), view_of(w),
           MutableMatrixView<Scalar>{z.data() + first, n, fan_out, rows}, GemmUpdate::overwrite);
    });
    for_each_thread_share(fan_out, kColumnsPerShareUnit, [&](Index j0, Index j1) {
      add_bias_and_activate(layout_.activations[s], z.data() + j0 * rows, rows, j1 - j0, b + j0);
    });
  }
  out = ws.outputs.back();  // rows x output_dim: small next to the hidden layers
}

template <typename Scalar>
void Mlp::backward(const Scalar* params, const std::type_identity_t<DataRefT<Scalar>>& input,
                   const MlpWorkspace<Scalar>& ws, const std::type_identity_t<MatrixT<Scalar>>& d_out,
                   Scalar* d_params, MatrixT<Scalar>* d_input) const {
  const Index rows = input.rows();
  backward_impl<Scalar>(params, input, ws, d_out, std::span<const Index>(&rows, 1), d_params, 0, d_input,
                        false);
}

template <typename Scalar>
void Mlp::backward_in_blocks(const Scalar* params, const std::type_identity_t<DataRefT<Scalar>>& input,
                             const MlpWorkspace<Scalar>& ws,
                             const std::type_identity_t<MatrixT<Scalar>>& d_out,
                             std::span<const Index> block_rows, Scalar* d_params, Index block_stride,
                             MatrixT<Scalar>* d_input) const {
  backward_impl<Scalar>(params, input, ws, d_out, block_rows, d_params, block_stride, d_input, true);
}

template <typename Scalar>
void Mlp::backward_impl(const Scalar* params, const DataRefT<Scalar>& input, const MlpWorkspace<Scalar>& ws,
                        const MatrixT<Scalar>& d_out, std::span<const Index> block_rows, Scalar* d_params,
                        Index block_stride, MatrixT<Scalar>* d_input, bool ordered_bias_sums) const {
  using ConstMap = Eigen::Map<const MatrixT<Scalar>>;
  check_backward_shapes<Scalar>(*this, input, ws.outputs, d_out);
  // Two ping-pong buffers, grown to the widest layer and never shrunk, so that neither a steady
  // state nor a smaller (last) batch allocates.
  const Index rows = input.rows();
  check_block_rows(block_rows, rows);
  const Index widest = *std::max_element(layout_.widths.begin(), layout_.widths.end());
  for (VectorT<Scalar>& buffer : ws.scratch)
    if (buffer.size() < rows * widest) buffer.resize(rows * widest);
  Scalar* const scratch[2] = {ws.scratch[0].data(), ws.scratch[1].data()};

  const Scalar* g = d_out.data();  // dL/d(output of layer l), rows x width_l
  Scalar* g_own = nullptr;         // g when it lives in scratch, so that dz may overwrite it
  for (Index l = num_layers() - 1; l >= 0; --l) {
    const auto s = static_cast<std::size_t>(l);
    const Index width = layout_.widths[s];
    const Activation activation = layout_.activations[s];
    Scalar* const buffer = g_own ? g_own : scratch[0];
    const ConstMap dz(activation == Activation::identity ? g : buffer, rows, width);
    const ConstMatrixView<Scalar> layer_input = l == 0 ? view_of(input) : view_of(ws.outputs[s - 1]);
    // Column j of dz and db_j depend on column j of g alone: the rank's threads take a block of
    // columns each; the products split themselves. By blocks, the bias gradient of the first
    // pass is overwritten by the per-block sums below.
    for_each_thread_share(width, kColumnsPerShareUnit, [&](Index j0, Index j1) {
      const Index at = j0 * rows;
      layer_pre_gradient(activation, ws.outputs[s].data() + at, g + at, buffer + at, rows, j1 - j0,
                         d_params + bias_offsets_[s] + j0);
    });
    // The parameter gradient sums over rows: one sum per row block, each over that block alone.
    Index first_row = 0;
    for (std::size_t k = 0; k < block_rows.size(); first_row += block_rows[k], ++k) {
      Scalar* const block_gradient = d_params + static_cast<Index>(k) * block_stride;
      const Index n = block_rows[k];
      if (ordered_bias_sums)  // one addition after another: Eigen's sum depends on the alignment
        for (Index j = 0; j < width; ++j)
          block_gradient[bias_offsets_[s] + j] = ordered_sum(dz.data() + j * rows + first_row, n);
      MutableMatrixView<Scalar> dw{block_gradient + weight_offsets_[s], fan_in(l), width, fan_in(l)};
      gemm(row_range(layer_input, first_row, n).transposed(), row_range(view_of(dz), first_row, n), dw,
           GemmUpdate::overwrite);
    }
    const ConstMap w(params + weight_offsets_[s], fan_in(l), width);
    // dL/d(input) row block by row block, as the forward products.
    const auto input_gradient = [&](Scalar* into) {
      for_each_block(block_rows, [&](Index first, Index n) {
        gemm(row_range(view_of(dz), first, n), view_of(w).transposed(),
             MutableMatrixView<Scalar>{into + first, n, fan_in(l), rows}, GemmUpdate::overwrite);
      });
    };
    if (l == 0) {
      if (d_input) {
        d_input->resize(rows, fan_in(l));
        input_gradient(d_input->data());
      }
      return;
    }
    Scalar* next = dz.data() == scratch[0] ? scratch[1] : scratch[0];
    input_gradient(next);
    g = g_own = next;
  }
}

template void Mlp::forward<double>(const double*, const DataRef&, MlpWorkspace<double>&, Matrix&) const;
template void Mlp::forward<float>(const float*, const DataRefF&, MlpWorkspace<float>&, MatrixT<float>&) const;
template void Mlp::backward<double>(const double*, const DataRef&, const MlpWorkspace<double>&, const Matrix&,
                                    double*, Matrix*) const;
template void Mlp::backward<float>(const float*, const DataRefF&, const MlpWorkspace<float>&,
                                   const MatrixT<float>&, float*, MatrixT<float>*) const;
template void Mlp::forward_in_blocks<double>(const double*, const DataRef&, MlpWorkspace<double>&, Matrix&,
                                             std::span<const Index>) const;
template void Mlp::forward_in_blocks<float>(const float*, const DataRefF&, MlpWorkspace<float>&,
                                            MatrixT<float>&, std::span<const Index>) const;
template void Mlp::backward_in_blocks<double>(const double*, const DataRef&, const MlpWorkspace<double>&,
                                              const Matrix&, std::span<const Index>, double*, Index,
                                              Matrix*) const;
template void Mlp::backward_in_blocks<float>(const float*, const DataRefF&, const MlpWorkspace<float>&,
                                             const MatrixT<float>&, std::span<const Index>, float*, Index,
                                             MatrixT<float>*) const;

}  // namespace gplvm
