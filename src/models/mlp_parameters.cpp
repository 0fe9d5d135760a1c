#include "gplvm/models/mlp_parameters.hpp"

namespace gplvm {

void write_mlp_parameters(Hdf5ResultWriter& out, const std::string& group, const Mlp& mlp,
                          const double* params) {
  for (Index l = 0; l < mlp.num_layers(); ++l) {
    const Index fan_in = l == 0 ? mlp.input_dim() : mlp.layout().widths[l - 1],
                fan_out = mlp.layout().widths[l];
    const std::string base = group + "/layer" + std::to_string(l);
    out.write_matrix(base + "/weight",
                     Eigen::Map<const Matrix>(params + mlp.weight_offset(l), fan_in, fan_out));
    out.write_vector(base + "/bias", Eigen::Map<const Vector>(params + mlp.bias_offset(l), fan_out));
    out.write_attribute(base, "activation", to_string(mlp.layout().activations[l]));
  }
}

}  // namespace gplvm
