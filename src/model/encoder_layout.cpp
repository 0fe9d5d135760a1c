#include "gplvm/model/encoder_layout.hpp"

namespace gplvm {
namespace {

MlpLayout encoder_layout(const EncoderShape& shape, Activation output) {
  MlpLayout layout;
  layout.input_dim = shape.data_dim;
  layout.widths = shape.hidden;
  layout.widths.push_back(shape.latent_dim);
  layout.activations.assign(shape.hidden.size(), shape.activation);
  layout.activations.push_back(output);
  return layout;
}

}  // namespace

MlpLayout mean_encoder_layout(const EncoderShape& shape) {
  return encoder_layout(shape, Activation::identity);
}

MlpLayout variance_encoder_layout(const EncoderShape& shape) {
  return encoder_layout(shape, Activation::softplus);
}

}  // namespace gplvm
