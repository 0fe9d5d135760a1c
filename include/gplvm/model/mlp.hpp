#pragma once
// A multilayer perceptron (the amortised encoder) with a hand-written backward pass.
//
// The MLP holds no parameters: it reads them from, and writes gradients to, a flat array, so the
// whole model (kernel, noise, encoder) is one vector for Adam, one buffer for the gradient
// allreduce and one dataset in a checkpoint.
//
// Flat layout, layer by layer: W_l (fan_in x fan_out, column-major), then b_l (fan_out).
// Rows of the input are data points: out = act(in * W + 1 b^T).
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/types.hpp"

namespace gplvm {

enum class Activation { identity, relu, tanh, softplus };

// Parses "identity", "relu", "tanh", "softplus"; throws InputError naming the value otherwise.
Activation parse_activation(const std::string& name);
std::string to_string(Activation activation);

struct MlpLayout {
  Index input_dim = 0;
  std::vector<Index> widths;            // output width of each layer; the last is the output dim
  std::vector<Activation> activations;  // one per layer
};

// Activations cached by forward() for backward(); reused across calls to avoid allocation.
template <typename Scalar>
struct MlpWorkspace {
  std::vector<MatrixT<Scalar>> outputs;  // post-activation output of each layer
  // backward()'s two ping-pong gradient buffers (rows x widest layer, grown only), kept here so
  // that backward does not allocate. Mutable because backward() takes the workspace as const: it
  // never changes the cached activations, and a workspace belongs to one caller at a time.
  mutable VectorT<Scalar> scratch[2];
};

// Forward and backward run in the scalar type of their arguments: double, or float for the fp32
// mode (SGEMM, twice the SIMD lanes). Parameters and gradients are then float copies too; the
// caller keeps the double master copy (train/precision.hpp).
class Mlp {
 public:
  using Workspace = MlpWorkspace<double>;

  explicit Mlp(MlpLayout layout);  // throws InputError on an inconsistent layout

  const MlpLayout& layout() const noexcept { return layout_; }
  Index input_dim() const noexcept { return layout_.input_dim; }
  Index output_dim() const noexcept { return layout_.widths.back(); }
  Index num_layers() const noexcept { return static_cast<Index>(layout_.widths.size()); }
  Index num_parameters() const noexcept { return num_parameters_; }
  Index weight_offset(Index layer) const;  // offset of W_layer in the flat array
  Index bias_offset(Index layer) const;    // offset of b_layer in the flat array

  // PyTorch's nn.Linear default: W and b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), drawn from
  // (purpose encoder_init, epoch = stream, index = flat position) so it is rank independent.
  void initialize(double* params, const CounterRng& rng, std::uint64_t stream) const;

  // out = network(input); input is (rows x input_dim).
  template <typename Scalar>
  void forward(const Scalar* params, const std::type_identity_t<DataRefT<Scalar>>& input,
               MlpWorkspace<Scalar>& ws, MatrixT<Scalar>& out) const;

  // The same with one product per consecutive block of rows (block_rows[k] rows for block k, in
  // order, covering the input): each block's outputs are then the same bits whatever other rows
  // the input holds (a product's rounding may depend on its shape). For backward_in_blocks.
  // This rests on the products being packed GEMMs (the packed engine, OpenBLAS or Eigen's GEMM,
  // which read each block through packing, whatever its offset and the batch's leading
  // dimension); Eigen evaluates tiny products (rows + depth + cols < 20) in place instead, and
  // their last bits may then follow the alignment of a block's first row.
  template <typename Scalar>
  void forward_in_blocks(const Scalar* params, const std::type_identity_t<DataRefT<Scalar>>& input,
                         MlpWorkspace<Scalar>& ws, MatrixT<Scalar>& out,
                         std::span<const Index> block_rows) const;

  // Given d_out = dL/d(out), writes dL/d(params) to d_params (every one of the MLP's
  // num_parameters() values, whatever they held: no zeroing pass before, no read of the old
  // values). Needs the workspace of the forward call on the same input. Forms dL/d(input)
  // (rows x input_dim, overwritten) only when d_input is given: an encoder never needs it, a
  // decoder (the VAE's, whose input is the latent sample) does.
  template <typename Scalar>
  void backward(const Scalar* params, const std::type_identity_t<DataRefT<Scalar>>& input,
                const MlpWorkspace<Scalar>& ws, const std::type_identity_t<MatrixT<Scalar>>& d_out,
                Scalar* d_params, MatrixT<Scalar>* d_input = nullptr) const;
  // The same with the parameter gradient summed separately over consecutive blocks of rows
  // (block_rows[k] rows for block k, in order, covering the input): block k's gradient goes to
  // d_params + k * block_stride; every product runs per block, as in forward_in_blocks. What a reproducible
  // sum over ranks needs (each block's partial, the same bits whichever rank holds the block;
  // parallel/reproducible_sum.hpp). One block is backward() itself.
  template <typename Scalar>
  void backward_in_blocks(const Scalar* params, const std::type_identity_t<DataRefT<Scalar>>& input,
                          const MlpWorkspace<Scalar>& ws, const std::type_identity_t<MatrixT<Scalar>>& d_out,
                          std::span<const Index> block_rows, Scalar* d_params, Index block_stride,
                          MatrixT<Scalar>* d_input = nullptr) const;

 private:
  template <typename Scalar>
  void backward_impl(const Scalar* params, const DataRefT<Scalar>& input, const MlpWorkspace<Scalar>& ws,
                     const MatrixT<Scalar>& d_out, std::span<const Index> block_rows, Scalar* d_params,
                     Index block_stride, MatrixT<Scalar>* d_input, bool ordered_bias_sums) const;
  Index fan_in(Index layer) const;  // rows of W_layer: input_dim, then the previous width

  MlpLayout layout_;
  std::vector<Index> weight_offsets_;
  std::vector<Index> bias_offsets_;
  Index num_parameters_ = 0;
};

}  // namespace gplvm
