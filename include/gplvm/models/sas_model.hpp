#pragma once
// A SAS or Bayesian SAS GP decoder with its latents (amortised MLP encoder or free parameters),
// as one flat parameter vector and one batch objective with its gradient.
//
// Flat layout: [ kernel hyperparameters (log theta, log l_1..l_Q) | log noise variance |
//                mean encoder | variance encoder (Bayesian, amortised) ]   -- replicated on every rank
//              [ free latents of the local rows: X, or mu then log v ]      -- owned by one rank
// The first block is what data-parallel training allreduces; the second stays on the owner.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include <memory>
#include "gplvm/core/precision.hpp"

#include "gplvm/model/kernel.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/model/mlp.hpp"
#include "gplvm/models/encoder_pretraining.hpp"
#include "gplvm/models/free_latents.hpp"
#include "gplvm/models/gp_decoder.hpp"
#include "gplvm/models/gp_latent_model_settings.hpp"
#include "gplvm/models/latent_encoders.hpp"
#include "gplvm/models/latent_init.hpp"
#include "gplvm/models/local_rows_check.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/objectives/sas.hpp"
#include "gplvm/optim/float32_shadow.hpp"
#include "gplvm/parallel/reproducible_sum.hpp"

namespace gplvm {

// SAS's settings: the shared latent and decoder settings (docs/math/sas.md's start: theta 0.5,
// l 0.1, noise 0.5; amortised latents) and SAS's own.
struct SasModelConfig : GpLatentModelSettings {
  SasModelConfig() {
    latents = LatentKind::amortised;
    decoder = {.kernel = "eq_ard", .init = {.variance = 0.5, .lengthscale = 0.1}, .noise_variance = 0.5};
  }
  Index active_size = 200;  // A: the first A rows of each training batch are its active set
  RemainderScaling scaling = RemainderScaling::full_data;
  Precision precision = Precision::float64;  // float32: encoder and data products in fp32
  bool flush_denormals = true;               // float32 steps flush subnormals to zero (core/denormals.hpp)
};

// One batch: global row ids (the first num_active are the active set) and their data rows.
struct Batch {
  const std::vector<std::uint64_t>& rows;
  DataRef data;
  Index num_active;
};

class SasModel final : public Model {
 public:
  // num_data: N of the whole data set; [local_begin, local_begin + local_rows) are the rows whose
  // free latents this process owns (all of them in serial use).
  SasModel(SasModelConfig config, std::uint64_t num_data, std::uint64_t local_begin,
           std::uint64_t local_rows);

  const SasModelConfig& config() const noexcept { return config_; }
  std::string kind() const override { return config_.bayesian ? "bayesian_sas" : "sas"; }
  const ParameterLayout& parameter_layout() const override { return layout_; }
  const GpDecoder* gp_decoder() const override { return &*decoder_; }
  // Coordinates per latent: Q, or Q + 1 on the hyperboloid (what kernels and /latent/mean hold).
  Index ambient_dim() const noexcept { return latent_space_->ambient_dim(); }
  Index num_local_parameters() const noexcept { return layout_.num_local(); }
  std::unique_ptr<TrainingStep> make_step(const Communicator& comm, const RowPartition& partition,
                                          LocalRows local_rows) const override;
  void write_parameters(Hdf5ResultWriter& out, const Vector& params) const override;

  // PCA free latents (model.init = "pca") or the mean encoder pre-trained to PCA latents
  // (model.encoder_pretrain_steps > 0); nothing otherwise. Collective.
  void initialise_from_data(const Communicator& comm, const RowPartition& partition,
                            LocalRows local_rows) override;
  Vector initial_parameters() const override;
  const Kernel& kernel_prototype() const noexcept { return decoder_->prototype(); }

  // The batch objective (maximised) and its gradient w.r.t. every parameter (overwrites gradient).
  BatchTerms evaluate(const Vector& params, const Batch& batch, StepKey key, Vector& gradient) const;

  // Latent means (and variances for Bayesian models) of data rows with the given global ids.
  Matrix latent_mean(const Vector& params, const std::vector<std::uint64_t>& rows, const DataRef& data) const;
  Matrix latent_variance(const Vector& params, const std::vector<std::uint64_t>& rows,
                         const DataRef& data) const;

  // Latent means (and, for Bayesian models, variances) of consecutive data rows starting at global
  // row first_row, encoded in chunks so memory stays bounded for any number of rows.
  void encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;
  // The same from fp32 rows (the encoder then runs in fp32, as in fp32 training).
  void encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;

  // The latent half of a step, for any subset of batch rows (data-parallel training calls these
  // on the rows a rank owns). `sample` is the latent the SAS objective sees: the mean, or for
  // Bayesian models mean + sqrt(variance) o eps with eps keyed by (key, global row, dimension).
  // Latents are ambient coordinates of the latent space (ambient_dim() columns: mean, sample);
  // variances and eps are per intrinsic dimension (latent_dim() columns), in the tangent space at
  // the mean. `tangent` is the mean encoder's output, which the space maps to the mean.
  struct LatentBatch {
    Matrix mean, variance, eps, sample;  // variance and eps only for Bayesian models
    Matrix tangent;                      // amortised models only
  };
  // The DataRefF overloads run the encoder in fp32 (float copies of its weights, made by the
  // forward call and reused by the backward call that follows it). With an fp32 shadow of the
  // encoder block (block == encoder_block()), the forward call uses the shadow's weights (making
  // them first unless weights_current) and the backward call leaves the summed float gradient in
  // the shadow (gradient_ready), not in `gradient`, whose encoder block it then does not write.
  // With block_rows (the rows come in consecutive blocks of these sizes), the encoder runs one
  // product per block (Mlp::forward_in_blocks), for a backward call that sums by blocks.
  using RowBlocks = std::optional<std::span<const Index>>;
  LatentBatch latents_forward(const Vector& params, const std::vector<std::uint64_t>& rows,
                              const DataRef& data, StepKey key, RowBlocks block_rows = std::nullopt) const;
  LatentBatch latents_forward(const Vector& params, const std::vector<std::uint64_t>& rows,
                              const DataRefF& data, StepKey key, Float32Shadow* shadow = nullptr,
                              RowBlocks block_rows = std::nullopt) const;
  // Sums the encoder gradient over the ranks that share the encoder, in the precision it was
  // computed in: an fp32 model's float gradient is summed as floats (half the bytes of the fp64
  // master gradient) before it is cast into `gradient` or left in an fp32 shadow. Empty members:
  // nothing to sum (one process).
  // With block_rows set (the rows given come in consecutive blocks of these sizes), the gradient
  // is instead formed per block and the blocks' partials are summed by blocks_f64 / blocks_f32
  // into the encoder block: a sum whose bits do not depend on which rank holds which block
  // (parallel/reproducible_sum.hpp).
  struct EncoderGradientSum {
    std::function<void(double*, Index)> f64;
    std::function<void(float*, Index)> f32;
    std::optional<std::span<const Index>> block_rows;
    std::function<void(const BlockPartials<double>&, double*)> blocks_f64;
    std::function<void(const BlockPartials<float>&, float*)> blocks_f32;
  };
  // Sizes gradient to num_parameters() and zeroes every element but the encoder block, which
  // latents_backward writes: what a step does before it fills in its terms.
  void zero_all_but_encoder(Vector& gradient) const;
  // Given dL/d(sample) for those rows, the latent-side gradient (through the reparameterisation,
  // plus -kl_weight * dKL): the encoder weights' part is written to gradient's encoder block
  // (whatever it held), summed by `sum`; free latents' parts are added into gradient. Returns the
  // unweighted KL of the rows (0 unless Bayesian).
  double latents_backward(const Vector& params, const std::vector<std::uint64_t>& rows, const DataRef& data,
                          const LatentBatch& latents, const Matrix& d_sample, double kl_weight,
                          Vector& gradient, const EncoderGradientSum& sum = {}) const;
  double latents_backward(const Vector& params, const std::vector<std::uint64_t>& rows, const DataRefF& data,
                          const LatentBatch& latents, const Matrix& d_sample, double kl_weight,
                          Vector& gradient, const EncoderGradientSum& sum = {},
                          Float32Shadow* shadow = nullptr) const;
  // Length of the shared prefix that every rank computes identically (kernel and noise); the rest
  // of the shared block (the encoders) is summed over ranks.
  Index num_hyperparameters() const noexcept { return decoder_->num_parameters(); }
  // The encoders' weights: what ranks sum over their rows (empty for free latents).
  IndexRange encoder_block() const noexcept { return {num_hyperparameters(), layout_.num_shared()}; }
  double remainder_weight(Index batch_size, Index num_active) const;
  // The amortised latents' encoders (null for free latents), at encoder_block().begin.
  const LatentEncoders* encoders() const noexcept { return encoders_ ? &*encoders_ : nullptr; }
  double kl_weight(Index batch_size) const;
  // KL(q || prior) of rows [first, first + count) of a forward pass (0 unless Bayesian), as the
  // latent space estimates it (closed form or at the pass's samples).
  double latents_kl(const LatentBatch& latents, Index first, Index count) const;
  // Throws InputError for a data width other than D or a non-finite row (naming its global id).
  void validate_rows(const std::vector<std::uint64_t>& rows, const DataRef& data) const;

 private:
  template <typename Scalar>
  LatentBatch latents_forward_in(const Vector& params, const std::vector<std::uint64_t>& rows,
                                 const DataRefT<Scalar>& data, StepKey key, Float32Shadow* shadow,
                                 RowBlocks block_rows) const;
  template <typename Scalar>
  double latents_backward_in(const Vector& params, const std::vector<std::uint64_t>& rows,
                             const DataRefT<Scalar>& data, const LatentBatch& l, const Matrix& d_sample,
                             double kl_weight, Vector& gradient, const EncoderGradientSum& sum,
                             Float32Shadow* shadow) const;
  template <typename Scalar>
  void encode_in(const Vector& params, const DataRefT<Scalar>& data, std::uint64_t first_row, RowMatrix& mean,
                 RowMatrix* variance) const;
  template <typename Scalar>
  BatchTerms evaluate_in(const Vector& params, const Batch& batch, const DataRefT<Scalar>& data, StepKey key,
                         Vector& gradient) const;
  // The encoders' weights in Scalar: a pointer into params for double, else a float copy (the
  // shadow's, when one is given).
  template <typename Scalar>
  const Scalar* encoder_weights(const Vector& params, Float32Shadow* shadow) const;
  // The encoders' backward pass with one gradient per row block, summed by `sum` into grad.
  template <typename Scalar>
  void encoder_backward_in_blocks(
      const Scalar* weights, const DataRefT<Scalar>& data, const MatrixT<Scalar>& d_mean,
      const MatrixT<Scalar>& d_variance, std::span<const Index> block_rows, std::vector<Scalar>& blocks,
      Scalar* grad, const std::function<void(const BlockPartials<Scalar>&, Scalar*)>& sum) const;
  Index local_row(std::uint64_t global_row) const;
  // encoder_gradient: the gradient of the encoder block, from its first element.
  template <typename Scalar>
  void freeze_translation(Scalar* encoder_gradient) const;

  SasModelConfig config_;
  // Set by initialise_from_data: this rank's initial free latents, or pre-trained encoder weights.
  std::optional<Matrix> initial_latents_;
  std::optional<Vector> initial_mean_encoder_;
  std::shared_ptr<const LatentSpace> latent_space_;  // shared by copies, which the layout points into
  ParameterLayout layout_;
  std::optional<GpDecoder> decoder_;
  std::optional<LatentEncoders> encoders_;
  std::optional<FreeLatents> free_latents_;
  Index mean_encoder_offset_ = 0;
  Index free_mean_offset_ = 0, free_log_variance_offset_ = 0;
  // fp32 steps given no shadow: the float encoder weights (converted afresh by each forward call)
  // and gradient, made on first use.
  mutable std::optional<Float32Shadow> own_shadow_;
  // Per-block encoder gradients of a step summed by blocks (EncoderGradientSum::block_rows).
  mutable std::vector<double> block_gradients_;
  mutable std::vector<float> block_gradients_f32_;
};

}  // namespace gplvm
