#pragma once
// The amortised latents' MLP encoders, which every model with amortised latents holds (sas,
// bayesian_sas, sparse_gplvm, bayesian_gplvm): a mean encoder (identity output) and, for Gaussian
// latents, a variance encoder (softplus output), both D -> hidden -> Q, stored one after the other
// in a flat weight block and initialised from the model's seed (mean encoder stream 0, variance
// encoder stream 1). Every pass runs in float64 or float32 (Scalar): the fp32 SAS step hands it
// float copies of the weights and rows (optim/float32_shadow.hpp).
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/encoder_layout.hpp"
#include "gplvm/model/mlp.hpp"

namespace gplvm {

// The mean and (variance = true) variance encoders as one block of num_parameters() weights.
class LatentEncoders {
 public:
  LatentEncoders(const EncoderShape& shape, bool variance);

  Index num_parameters() const noexcept { return num_parameters_; }
  const Mlp& mean() const noexcept { return mean_; }
  const Mlp* variance() const noexcept { return variance_ ? &*variance_ : nullptr; }
  // Where the variance encoder's weights start in the block.
  Index variance_offset() const noexcept { return mean_.num_parameters(); }

  void initialize(double* weights, const CounterRng& rng) const;
  // Latent means (and variances, when the block has a variance encoder and `variance` is given) of
  // the data rows.
  template <typename Scalar>
  void forward(const Scalar* weights, const std::type_identity_t<DataRefT<Scalar>>& data,
               MatrixT<Scalar>& mean, std::type_identity_t<MatrixT<Scalar>>* variance) const;
  // Writes every weight's gradient to d_weights given dL/dmean (and dL/dvariance; zero when null);
  // needs the forward call on the same rows just before.
  template <typename Scalar>
  void backward(const Scalar* weights, const std::type_identity_t<DataRefT<Scalar>>& data,
                const std::type_identity_t<MatrixT<Scalar>>& d_mean,
                const std::type_identity_t<MatrixT<Scalar>>* d_variance, Scalar* d_weights) const;
  // The same with one product per consecutive block of rows (block_rows[k] rows for block k, in
  // order, covering data; Mlp::forward_in_blocks), so that each block's outputs and weight
  // gradient are the same bits whatever other rows data holds. backward_in_blocks writes block k's
  // gradient of every weight to d_weights + k * block_stride (for parallel/reproducible_sum.hpp).
  template <typename Scalar>
  void forward_in_blocks(const Scalar* weights, const std::type_identity_t<DataRefT<Scalar>>& data,
                         std::span<const Index> block_rows, MatrixT<Scalar>& mean,
                         std::type_identity_t<MatrixT<Scalar>>* variance) const;
  template <typename Scalar>
  void backward_in_blocks(const Scalar* weights, const std::type_identity_t<DataRefT<Scalar>>& data,
                          const std::type_identity_t<MatrixT<Scalar>>& d_mean,
                          const std::type_identity_t<MatrixT<Scalar>>* d_variance,
                          std::span<const Index> block_rows, Scalar* d_weights, Index block_stride) const;
  // /params/encoder/mean and /params/encoder/variance.
  void write(Hdf5ResultWriter& out, const double* weights) const;

 private:
  template <typename Scalar>
  MlpWorkspace<Scalar>& workspace(bool variance) const;

  Mlp mean_;
  std::optional<Mlp> variance_;
  Index num_parameters_ = 0;
  mutable MlpWorkspace<double> mean_workspace_, variance_workspace_;
  mutable MlpWorkspace<float> mean_workspace_f32_, variance_workspace_f32_;
};

}  // namespace gplvm
