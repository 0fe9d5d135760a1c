#pragma once
// The VAE baseline as a Model (model.kind = "vae"): Bayesian SAS's amortised encoders with an MLP
// decoder in place of the GP (objectives/vae_elbo.hpp, docs/math/vae.md), trained by the same
// data-parallel trainer.
//
// Flat layout (VaeElbo's): [ decoder weights | log sigma^2 | mean encoder | variance encoder ],
// all of it shared and all of it summed over ranks: every gradient element is a sum over batch
// rows, the noise's included, so summed_block() is the whole vector and sharded Adam splits all of
// it (each rank updates its slice, the slices are allgathered: the noise stays identical on every
// rank). No per-row parameters: the local block is empty.
#include <cstdint>
#include <memory>

#include "gplvm/models/model.hpp"
#include "gplvm/objectives/vae_elbo.hpp"

namespace gplvm {

class VaeModel final : public Model {
 public:
  // Throws InputError on bad dimensions or a local row range outside [0, num_data).
  VaeModel(VaeConfig config, std::uint64_t seed, std::uint64_t num_data, std::uint64_t local_begin,
           std::uint64_t local_rows, bool reproducible_sums = false);

  const VaeElbo& elbo() const noexcept { return elbo_; }
  // train.reproducible: the step sums over fixed row blocks exactly (vae_training_step.hpp).
  bool reproducible_sums() const noexcept { return reproducible_sums_; }

  std::string kind() const override { return "vae"; }
  const ParameterLayout& parameter_layout() const override { return layout_; }
  Vector initial_parameters() const override { return elbo_.initial_parameters(seed()); }

  // The decoder's sigma^2 (a network decoder with Gaussian noise; no GP, so no gp_decoder()).
  double decoder_noise_variance(const Vector& params) const;
  DecoderSummary decoder_summary(const Vector& params) const override;

  // /params/noise_variance, /params/decoder/layer<l>/{weight,bias} and the encoders under
  // /params/encoder/{mean,variance} as SasModel writes them.
  void write_parameters(Hdf5ResultWriter& out, const Vector& params) const override;

  // q(x | y)'s means and variances, in chunks so memory stays bounded for any number of rows.
  // Rows of any origin (the encoder reads only the data); fp32 rows are encoded in fp64.
  void encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;
  void encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;

  // The decoder's predictive: mean f(x) and variance sigma^2 (the same for every latent). Needs no
  // training evidence and no communication.
  std::unique_ptr<Predictor> make_predictor(const Vector& params, const TrainingEvidence& training,
                                            const Communicator& comm) const override;

  // The data-parallel step (vae_training_step.hpp); fp64 rows only.
  std::unique_ptr<TrainingStep> make_step(const Communicator& comm, const RowPartition& partition,
                                          LocalRows local_rows) const override;

 private:
  VaeElbo elbo_;
  ParameterLayout layout_;
  bool reproducible_sums_;
  mutable MlpWorkspace<double> mean_workspace_, variance_workspace_;  // encode's
};

}  // namespace gplvm
