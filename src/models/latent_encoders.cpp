#include "gplvm/models/latent_encoders.hpp"

#include <algorithm>

#include "gplvm/models/mlp_parameters.hpp"

namespace gplvm {

LatentEncoders::LatentEncoders(const EncoderShape& shape, bool variance) : mean_(mean_encoder_layout(shape)) {
  if (variance) variance_.emplace(variance_encoder_layout(shape));
  num_parameters_ = mean_.num_parameters() + (variance_ ? variance_->num_parameters() : 0);
}

void LatentEncoders::initialize(double* weights, const CounterRng& rng) const {
  mean_.initialize(weights, rng, 0);
  if (variance_) variance_->initialize(weights + mean_.num_parameters(), rng, 1);
}

void LatentEncoders::forward(const double* weights, const DataRef& data, Matrix& mean,
                             Matrix* variance) const {
  mean_.forward<double>(weights, data, mean_workspace_, mean);
  if (variance_ && variance)
    variance_->forward<double>(weights + mean_.num_parameters(), data, variance_workspace_, *variance);
}

void LatentEncoders::backward(const double* weights, const DataRef& data, const Matrix& d_mean,
                              const Matrix* d_variance, double* d_weights) const {
  mean_.backward<double>(weights, data, mean_workspace_, d_mean, d_weights);
  if (!variance_) return;
  double* d_variance_weights = d_weights + mean_.num_parameters();
  if (d_variance)
    variance_->backward<double>(weights + mean_.num_parameters(), data, variance_workspace_, *d_variance,
                                d_variance_weights);
  else
    std::fill_n(d_variance_weights, variance_->num_parameters(), 0.0);
}

void LatentEncoders::forward_in_blocks(const double* weights, const DataRef& data,
                                       std::span<const Index> block_rows, Matrix& mean,
                                       Matrix* variance) const {
  mean_.forward_in_blocks<double>(weights, data, mean_workspace_, mean, block_rows);
  if (variance_ && variance)
    variance_->forward_in_blocks<double>(weights + mean_.num_parameters(), data, variance_workspace_,
                                         *variance, block_rows);
}

void LatentEncoders::backward_in_blocks(const double* weights, const DataRef& data, const Matrix& d_mean,
                                        const Matrix* d_variance, std::span<const Index> block_rows,
                                        double* d_weights, Index block_stride) const {
  mean_.backward_in_blocks<double>(weights, data, mean_workspace_, d_mean, block_rows, d_weights,
                                   block_stride);
  if (!variance_) return;
  double* d_variance_weights = d_weights + mean_.num_parameters();
  if (d_variance) {
    variance_->backward_in_blocks<double>(weights + mean_.num_parameters(), data, variance_workspace_,
                                          *d_variance, block_rows, d_variance_weights, block_stride);
    return;
  }
  for (std::size_t k = 0; k < block_rows.size(); ++k)
    std::fill_n(d_variance_weights + static_cast<Index>(k) * block_stride, variance_->num_parameters(), 0.0);
}

void LatentEncoders::write(Hdf5ResultWriter& out, const double* weights) const {
  write_mlp_parameters(out, "/params/encoder/mean", mean_, weights);
  if (variance_)
    write_mlp_parameters(out, "/params/encoder/variance", *variance_, weights + mean_.num_parameters());
}

}  // namespace gplvm
