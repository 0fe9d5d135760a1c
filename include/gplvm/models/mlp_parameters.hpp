#pragma once
// An MLP's weights in a run file, layer by layer in natural shapes: <group>/layer<l>/weight
// (fan_in x fan_out), <group>/layer<l>/bias (fan_out) and the layer's activation as an attribute.
// Encoders and the VAE's decoder are written alike.
#include <string>

#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/mlp.hpp"

namespace gplvm {

// params: the MLP's num_parameters() values in its flat layout.
void write_mlp_parameters(Hdf5ResultWriter& out, const std::string& group, const Mlp& mlp,
                          const double* params);

}  // namespace gplvm
