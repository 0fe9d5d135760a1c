#pragma once
// The amortised latents' MLP encoders, as the SAS models and the sparse GPLVMs build them: a mean
// encoder (identity output) and, for Gaussian latents, a variance encoder (softplus output), both
// D -> hidden -> Q, stored one after the other in a flat weight block and initialised from the
// model's seed (mean encoder stream 0, variance encoder stream 1).
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/encoder_layout.hpp"
#include "gplvm/model/mlp.hpp"

namespace gplvm {

// The mean and (variance = true) variance encoders as one block of num_parameters() weights, in
// float64.
class LatentEncoders {
 public:
  LatentEncoders(const EncoderShape& shape, bool variance);

  Index num_parameters() const noexcept { return num_parameters_; }
  const Mlp& mean() const noexcept { return mean_; }
  const Mlp* variance() const noexcept { return variance_ ? &*variance_ : nullptr; }

  void initialize(double* weights, const CounterRng& rng) const;
  // Latent means (and variances, when the block has a variance encoder) of the data rows.
  void forward(const double* weights, const DataRef& data, Matrix& mean, Matrix* variance) const;
  // Writes every weight's gradient to d_weights given dL/dmean (and dL/dvariance); needs the
  // forward call on the same rows just before.
  void backward(const double* weights, const DataRef& data, const Matrix& d_mean, const Matrix* d_variance,
                double* d_weights) const;
  // The same with one product per consecutive block of rows (block_rows[k] rows for block k, in
  // order, covering data; Mlp::forward_in_blocks), so that each block's outputs and weight
  // gradient are the same bits whatever other rows data holds. backward_in_blocks writes block k's
  // gradient of every weight to d_weights + k * block_stride (for parallel/reproducible_sum.hpp).
  void forward_in_blocks(const double* weights, const DataRef& data, std::span<const Index> block_rows,
                         Matrix& mean, Matrix* variance) const;
  void backward_in_blocks(const double* weights, const DataRef& data, const Matrix& d_mean,
                          const Matrix* d_variance, std::span<const Index> block_rows, double* d_weights,
                          Index block_stride) const;
  // /params/encoder/mean and /params/encoder/variance.
  void write(Hdf5ResultWriter& out, const double* weights) const;

 private:
  Mlp mean_;
  std::optional<Mlp> variance_;
  Index num_parameters_ = 0;
  mutable Mlp::Workspace mean_workspace_, variance_workspace_;
};

}  // namespace gplvm
