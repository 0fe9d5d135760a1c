#include "gplvm/models/latent_encoders.hpp"

#include <algorithm>

#include "gplvm/models/mlp_parameters.hpp"

namespace gplvm {

LatentEncoders::LatentEncoders(const EncoderShape& shape, bool variance) : mean_(mean_encoder_layout(shape)) {
  if (variance) variance_.emplace(variance_encoder_layout(shape));
  num_parameters_ = mean_.num_parameters() + (variance_ ? variance_->num_parameters() : 0);
}

template <typename Scalar>
MlpWorkspace<Scalar>& LatentEncoders::workspace(bool variance) const {
  if constexpr (std::is_same_v<Scalar, double>)
    return variance ? variance_workspace_ : mean_workspace_;
  else
    return variance ? variance_workspace_f32_ : mean_workspace_f32_;
}

void LatentEncoders::initialize(double* weights, const CounterRng& rng) const {
  mean_.initialize(weights, rng, 0);
  if (variance_) variance_->initialize(weights + variance_offset(), rng, 1);
}

template <typename Scalar>
void LatentEncoders::forward(const Scalar* weights, const std::type_identity_t<DataRefT<Scalar>>& data,
                             MatrixT<Scalar>& mean, std::type_identity_t<MatrixT<Scalar>>* variance) const {
  mean_.forward<Scalar>(weights, data, workspace<Scalar>(false), mean);
  if (variance_ && variance)
    variance_->forward<Scalar>(weights + variance_offset(), data, workspace<Scalar>(true), *variance);
}

template <typename Scalar>
void LatentEncoders::backward(const Scalar* weights, const std::type_identity_t<DataRefT<Scalar>>& data,
                              const std::type_identity_t<MatrixT<Scalar>>& d_mean,
                              const std::type_identity_t<MatrixT<Scalar>>* d_variance,
                              Scalar* d_weights) const {
  mean_.backward<Scalar>(weights, data, workspace<Scalar>(false), d_mean, d_weights);
  if (!variance_) return;
  Scalar* d_variance_weights = d_weights + variance_offset();
  if (d_variance)
    variance_->backward<Scalar>(weights + variance_offset(), data, workspace<Scalar>(true), *d_variance,
                                d_variance_weights);
  else
    std::fill_n(d_variance_weights, variance_->num_parameters(), Scalar(0));
}

template <typename Scalar>
void LatentEncoders::forward_in_blocks(const Scalar* weights,
                                       const std::type_identity_t<DataRefT<Scalar>>& data,
                                       std::span<const Index> block_rows, MatrixT<Scalar>& mean,
                                       std::type_identity_t<MatrixT<Scalar>>* variance) const {
  mean_.forward_in_blocks<Scalar>(weights, data, workspace<Scalar>(false), mean, block_rows);
  if (variance_ && variance)
    variance_->forward_in_blocks<Scalar>(weights + variance_offset(), data, workspace<Scalar>(true),
                                         *variance, block_rows);
}

template <typename Scalar>
void LatentEncoders::backward_in_blocks(const Scalar* weights,
                                        const std::type_identity_t<DataRefT<Scalar>>& data,
                                        const std::type_identity_t<MatrixT<Scalar>>& d_mean,
                                        const std::type_identity_t<MatrixT<Scalar>>* d_variance,
                                        std::span<const Index> block_rows, Scalar* d_weights,
                                        Index block_stride) const {
  mean_.backward_in_blocks<Scalar>(weights, data, workspace<Scalar>(false), d_mean, block_rows, d_weights,
                                   block_stride);
  if (!variance_) return;
  Scalar* d_variance_weights = d_weights + variance_offset();
  if (d_variance) {
    variance_->backward_in_blocks<Scalar>(weights + variance_offset(), data, workspace<Scalar>(true),
                                          *d_variance, block_rows, d_variance_weights, block_stride);
    return;
  }
  for (std::size_t k = 0; k < block_rows.size(); ++k)
    std::fill_n(d_variance_weights + static_cast<Index>(k) * block_stride, variance_->num_parameters(),
                Scalar(0));
}

void LatentEncoders::write(Hdf5ResultWriter& out, const double* weights) const {
  write_mlp_parameters(out, "/params/encoder/mean", mean_, weights);
  if (variance_)
    write_mlp_parameters(out, "/params/encoder/variance", *variance_, weights + variance_offset());
}

#define GPLVM_LATENT_ENCODERS_PASSES(Scalar)                                                                 \
  template void LatentEncoders::forward<Scalar>(                                                             \
      const Scalar*, const std::type_identity_t<DataRefT<Scalar>>&, MatrixT<Scalar>&,                        \
      std::type_identity_t<MatrixT<Scalar>>*) const;                                                         \
  template void LatentEncoders::backward<Scalar>(                                                            \
      const Scalar*, const std::type_identity_t<DataRefT<Scalar>>&,                                          \
      const std::type_identity_t<MatrixT<Scalar>>&, const std::type_identity_t<MatrixT<Scalar>>*, Scalar*)   \
      const;                                                                                                 \
  template void LatentEncoders::forward_in_blocks<Scalar>(                                                   \
      const Scalar*, const std::type_identity_t<DataRefT<Scalar>>&, std::span<const Index>,                  \
      MatrixT<Scalar>&, std::type_identity_t<MatrixT<Scalar>>*) const;                                       \
  template void LatentEncoders::backward_in_blocks<Scalar>(                                                  \
      const Scalar*, const std::type_identity_t<DataRefT<Scalar>>&,                                          \
      const std::type_identity_t<MatrixT<Scalar>>&, const MatrixT<Scalar>*, std::span<const Index>, Scalar*, \
      Index) const;
GPLVM_LATENT_ENCODERS_PASSES(double)
GPLVM_LATENT_ENCODERS_PASSES(float)
#undef GPLVM_LATENT_ENCODERS_PASSES

}  // namespace gplvm
