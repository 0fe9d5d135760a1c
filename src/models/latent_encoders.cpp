#include "gplvm/models/latent_encoders.hpp"

namespace gplvm {

MlpLayout encoder_layout(const EncoderShape& shape, Activation output) {
  MlpLayout layout;
  layout.input_dim = shape.data_dim;
  layout.widths = shape.hidden;
  layout.widths.push_back(shape.latent_dim);
  layout.activations.assign(shape.hidden.size(), shape.activation);
  layout.activations.push_back(output);
  return layout;
}

void write_encoder(Hdf5ResultWriter& out, const std::string& group, const Mlp& mlp, const double* weights) {
  for (Index l = 0; l < mlp.num_layers(); ++l) {
    const Index fan_in = l == 0 ? mlp.input_dim() : mlp.layout().widths[l - 1],
                fan_out = mlp.layout().widths[l];
    const std::string base = group + "/layer" + std::to_string(l);
    out.write_matrix(base + "/weight",
                     Eigen::Map<const Matrix>(weights + mlp.weight_offset(l), fan_in, fan_out));
    out.write_vector(base + "/bias", Eigen::Map<const Vector>(weights + mlp.bias_offset(l), fan_out));
    out.write_attribute(base, "activation", to_string(mlp.layout().activations[l]));
  }
}

LatentEncoders::LatentEncoders(const EncoderShape& shape, bool variance)
    : mean_(encoder_layout(shape, Activation::identity)) {
  if (variance) variance_.emplace(encoder_layout(shape, Activation::softplus));
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

void LatentEncoders::write(Hdf5ResultWriter& out, const double* weights) const {
  write_encoder(out, "/params/encoder/mean", mean_, weights);
  if (variance_) write_encoder(out, "/params/encoder/variance", *variance_, weights + mean_.num_parameters());
}

}  // namespace gplvm
