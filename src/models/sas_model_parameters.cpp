// SasModel::write_parameters: the run file's /params group for SAS and Bayesian SAS models.
#include "gplvm/models/mlp_parameters.hpp"
#include "gplvm/models/sas_model.hpp"

#include "gplvm/models/latent_encoders.hpp"

namespace gplvm {

void SasModel::write_parameters(Hdf5ResultWriter& out, const Vector& params) const {
  decoder_->write_parameters(out, params);
  if (encoders_) encoders_->write(out, params.data() + mean_encoder_offset_);
}

}  // namespace gplvm
