#pragma once
// The sparse GPLVM (point latents; model.kind = "sparse_gplvm") and the Bayesian GPLVM (Gaussian
// q(x_n) = N(mu_n, diag s_n) under a N(0, I) prior; "bayesian_gplvm") as Models, with M learned
// inducing inputs Z (objectives/sparse_gplvm.hpp, docs/math/sparse_gplvm.md).
//
// Flat layout (the objectives header's suggestion; A = the latent space's ambient dimension, Q on
// euclidean, Q + 1 on lorentz):
//   shared, replicated:  [ Z (M x A, column-major) | kernel hyperparameters (H) | log s2 |
//                          q(u) (minibatch training only: InducingPosterior::pack) |
//                          encoders (amortised latents: the summed block) ]
//   local, per row:      free latents: X rows (N_loc x A), or mu rows (N_loc x A) then log s rows
//                        (N_loc x Q)
//
// On the hyperboloid latent space (the sparse and Bayesian hGP-LVM, docs/math/lorentz.md) the
// latents and Z are points of the hyperboloid, moved by Riemannian steps (curved_point_space,
// curved_shared_points; minibatch or full batch), or Z is the active set (active_set: M latents
// redrawn every sparse.active_set_refresh full-batch iterations or minibatch steps, no gradient);
// the Bayesian kind's q(x_n) is a wrapped normal whose Psi-statistics and KL are Monte Carlo
// estimates over model.psi_samples reparameterised samples (objectives/wrapped_psi.hpp).
//
// Training: minibatch steps maximise the uncollapsed bound with explicit q(u), each rank forming
// the statistics of the batch rows it owns, scaled by N/B (unbiased); full batch maximises the
// collapsed bound over every row (make_full_batch_objective, for L-BFGS). Either way one
// evaluation is one allreduce of the statistics and one of the shared gradient (Z, kernel,
// encoder weights): nothing else crosses ranks.
//
// With reproducible_sums (train.reproducible) a minibatch step's batch is cut into blocks of 64
// positions, whole blocks assigned to ranks (models/batch_workers.hpp) and their data rows (and
// free latents, from their owners) moved there (models/batch_row_exchange.hpp); each block's
// statistics and its share of the shared gradient (Z, kernel, encoders, products of the block's own
// shape) are added exactly (parallel/reproducible_sum.hpp), and free latents' gradients go back to
// their owners. The start (PCA latents, the encoders' latents for k-means, q(u) at its optimum) and
// the full-batch collapsed bound with its gradient sum over fixed blocks of global rows the same way
// (models/global_row_blocks.hpp); full-batch training then runs L-BFGS on a replicated vector
// (train/full_batch_trainer.hpp).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gplvm/model/kernel.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/models/encoder_pretraining.hpp"
#include "gplvm/models/free_latents.hpp"
#include "gplvm/models/global_row_blocks.hpp"
#include "gplvm/models/gp_decoder.hpp"
#include "gplvm/models/gp_latent_model_settings.hpp"
#include "gplvm/models/inducing_init.hpp"
#include "gplvm/models/latent_encoders.hpp"
#include "gplvm/models/latent_init.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/objectives/sparse_gplvm.hpp"
#include "gplvm/objectives/uncollapsed_bound.hpp"
#include "gplvm/objectives/wrapped_psi.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

enum class SparseTraining { minibatch, full_batch };
SparseTraining parse_sparse_training(const std::string& name);  // "minibatch" | "full_batch"

// The wrapped-normal samples' noise (model.psi_noise): the same draws at every step (keyed by
// seed, row, sample and dimension: common random numbers, as the hGP-LVM paper's code) or fresh
// draws each step (keyed by epoch and step as well).
enum class PsiNoise { fixed, fresh };
PsiNoise parse_psi_noise(const std::string& name);  // "fixed" | "fresh"

// The sparse GPLVMs' settings: the shared latent and decoder settings (free latents; theta 1, l 1,
// noise 0.1) and their own.
struct SparseGplvmConfig : GpLatentModelSettings {
  SparseGplvmConfig() {
    latents = LatentKind::free;
    decoder = {.kernel = "eq_ard", .init = {.variance = 1.0, .lengthscale = 1.0}, .noise_variance = 0.1};
  }
  Index psi_samples = 10;  // L: wrapped-normal samples per row (Bayesian, lorentz)
  PsiNoise psi_noise = PsiNoise::fixed;
  KlMode kl_mode = KlMode::exact;
  Index num_inducing = 100;  // M
  InducingInit inducing_init = InducingInit::kmeans;
  SparseTraining training = SparseTraining::minibatch;
  // sparse.active_set_refresh: 0, or K > 0 (lorentz): Z is no parameter but M latents redrawn
  // every K full-batch iterations or minibatch steps (Model::active_set, models/active_set.hpp).
  Index active_set_refresh = 0;
};

class SparseGplvmModel final : public Model {
 public:
  SparseGplvmModel(SparseGplvmConfig config, std::uint64_t num_data, std::uint64_t local_begin,
                   std::uint64_t local_rows);

  const SparseGplvmConfig& config() const noexcept { return config_; }
  std::string kind() const override { return config_.bayesian ? "bayesian_gplvm" : "sparse_gplvm"; }
  const ParameterLayout& parameter_layout() const override { return layout_; }
  const GpDecoder* gp_decoder() const override { return &*decoder_; }
  Index ambient_dim() const { return latent_space_->ambient_dim(); }
  // Minibatch training's explicit q(u) is replaced by the law at the new Z of the function
  // posterior it implies (objectives/inducing_posterior_transfer.hpp).
  void carry_over_active_set(const Matrix& previous, Vector& params) const override;

  Vector initial_parameters() const override;

  Matrix inducing_inputs(const Vector& params) const;  // M x A
  // q(u) of minibatch training (InputError for a full-batch model, which has none).
  InducingPosterior inducing_posterior(const Vector& params) const;
  Index num_inducing() const noexcept { return config_.num_inducing; }
  Index inducing_offset() const noexcept { return 0; }
  Index kernel_offset() const noexcept { return kernel_offset_; }
  Index noise_offset() const noexcept { return noise_offset_; }
  Index posterior_offset() const noexcept { return posterior_offset_; }  // size 0 when full batch
  Index encoder_offset() const noexcept { return encoder_offset_; }      // the summed block's start
  // The mean encoder's output bias when it is frozen (empty otherwise): a stationary kernel without
  // a prior on the latents (sparse_gplvm, amortised) leaves the bound unchanged when every latent
  // and every inducing input move by the same vector, and amortised latents move so through this
  // bias; it stays at its initial value (gradient zero) and Z carries the translation
  // (docs/math/sparse_gplvm.md, "The translation").
  IndexRange frozen_translation_block() const;

  void write_parameters(Hdf5ResultWriter& out, const Vector& params) const override;
  void encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;
  void encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;

  // PCA latents (free) or the initial encoders' (amortised), inducing inputs chosen from them,
  // and (minibatch) q(u) at its optimum for those: collective over every rank's rows.
  void initialise_from_data(const Communicator& comm, const RowPartition& partition,
                            LocalRows local_rows) override;

  std::unique_ptr<TrainingStep> make_step(const Communicator& comm, const RowPartition& partition,
                                          LocalRows local_rows) const override;
  std::unique_ptr<FullBatchObjective> make_full_batch_objective(const Communicator& comm,
                                                                const RowPartition& partition,
                                                                LocalRows local_rows) const override;

  // The predictive from the inducing points (models/inducing_predictor.hpp): q(u) as trained
  // (minibatch), or at its optimum for the training rows at their trained latents (full batch:
  // one pass over the rows, collective).
  std::unique_ptr<Predictor> make_predictor(const Vector& params, const TrainingEvidence& training,
                                            const Communicator& comm) const override;

  // One evaluation over some of this rank's rows (local positions `rows`, data `data` in the
  // same order), collective: the uncollapsed bound with the statistics scaled by `scale` (a batch:
  // N/B), or the collapsed bound (scale 1, every row). gradient is overwritten in the full
  // layout: shared block reduced and identical on every rank, local block for this rank's rows.
  enum class Bound { collapsed, uncollapsed };
  // `key` picks the wrapped-normal noise of fresh draws (model.psi_noise); nothing else reads it.
  BatchTerms evaluate_rows(const Communicator& comm, const Vector& params, const std::vector<Index>& rows,
                           const DataRef& data, double scale, Bound bound, Vector& gradient,
                           StepKey key = {}) const;
  // The same for a batch (global rows, every rank passes the same) under reproducible_sums: the
  // uncollapsed bound at N/B times the batch's statistics, formed over row blocks whatever the rank
  // count (file comment). Collective; `local` is this rank's partition block.
  BatchTerms evaluate_batch_in_blocks(const Communicator& comm, const RowPartition& partition,
                                      const Vector& params, const std::vector<std::uint64_t>& batch_rows,
                                      const DataRef& local, Vector& gradient, StepKey key = {}) const;

  // The collapsed bound over every row under reproducible_sums (full-batch training): the
  // statistics and each row's share of the shared gradient formed per block of `blocks`
  // (global_row_blocks(partition)) and added by sum_global_blocks, free latents moved to the
  // blocks' ranks and their gradients back to the owners. block_data: this rank's rows of the block
  // layout; local: its partition rows. Returns the bound; gradient as evaluate_rows. Collective.
  double evaluate_full_batch_in_blocks(const Communicator& comm, const RowPartition& partition,
                                       const GlobalRowBlocks& blocks, const Vector& params,
                                       const DataRef& local, const DataRef& block_data, Vector& gradient,
                                       StepKey key = {}) const;

  // The wrapped-normal noise of this rank's local rows (n x L Q) under `key`.
  Matrix wrapped_noise(const std::vector<Index>& rows, StepKey key) const;

 private:
  // Fits the mean encoder to this data's PCA latents (config_.encoder_pretraining). Collective.
  void pretrain_mean_encoder(const Communicator& comm, const RowPartition& partition, const DataRef& local);
  bool curved() const { return latent_space_->ambient_dim() != latent_space_->intrinsic_dim(); }
  // Bayesian latents whose Psi-statistics are Monte Carlo estimates (objectives/wrapped_psi.hpp).
  bool wrapped() const { return config_.bayesian && curved(); }
  struct Latents {
    Matrix mean, variance;  // variance for Bayesian models only
    Matrix eps;             // wrapped(): the rows' noise, n x L Q
  };
  Latents latents_forward(const Vector& params, const std::vector<Index>& rows, const DataRef& data,
                          StepKey key = {}) const;
  // Free latents: adds to the local block. Amortised: writes this rank's encoder gradient.
  void latents_backward(const Vector& params, const std::vector<Index>& rows, const DataRef& data,
                        const Latents& latents, const Matrix& d_mean, const Matrix& d_variance,
                        Vector& gradient) const;
  // Sums over the ranks, in one allreduce, the shared gradient's parts that are sums over rows:
  // Z and the kernel (before K_ZZ's share is added) and the encoders.
  void sum_row_shares(const Communicator& comm, Vector& gradient) const;
  // Steps 1 and 4 for the rows of one set of latents (points or Gaussian by the model's kind).
  // What the forward pass keeps for the backward one.
  struct RowsCache {
    PsiStatistics psi;
    WrappedSamples samples;  // wrapped() only
  };
  SparseStatistics rows_statistics(const Kernel& kernel, const Matrix& Z, const Latents& l,
                                   const DataRef& data, RowsCache& cache) const;
  void rows_backward(const Kernel& kernel, const Matrix& Z, const Latents& l, const DataRef& data,
                     const RowsCache& cache, const StatisticsAdjoint& adjoint, Matrix& d_mean,
                     Matrix& d_variance, SharedGradient& shared) const;
  // Step 3, on every rank alike: zeroes gradient, writes its noise (and q(u)) entries and returns
  // the bound with the adjoints for steps 4 and 6. statistics are the scaled ones.
  struct BoundAdjoints {
    double value = 0.0;
    StatisticsAdjoint adjoint;  // with respect to the unscaled statistics
    Matrix d_inducing_kernel;
  };
  BoundAdjoints bound_adjoints(const Vector& params, const SparseStatistics& statistics, const Matrix& K,
                               double scale, Bound bound, Vector& gradient) const;
  // Step 6: K_ZZ's share, identical on every rank, added after the sums.
  void add_inducing_kernel_share(const Kernel& kernel, const Matrix& Z, const Matrix& K, const Matrix& G,
                                 Vector& gradient) const;
  // Zeroes the gradient of frozen_translation_block().
  void freeze_translation(Vector& gradient) const;
  // reproducible_sums' start: the latents of this rank's rows (partition layout) from the encoders
  // run over whole blocks of global rows, and q(u) at its optimum from statistics summed over them.
  Matrix encode_in_global_blocks(const Communicator& comm, const RowPartition& partition,
                                 const Vector& params, const DataRef& local) const;
  Vector optimal_posterior_in_blocks(const Communicator& comm, const RowPartition& partition,
                                     const Vector& params, const DataRef& local) const;
  // Every local row's index, 0 to local_rows() - 1.
  std::vector<Index> all_local_rows() const;
  // The owners' free latents (mean, variance, noise: one packed row per data row) moved to the
  // rows of `blocks` this rank holds, and the Latents of packed rows [first, first + n).
  RowMatrix free_latents_in_blocks(const Communicator& comm, const RowPartition& partition,
                                   const GlobalRowBlocks& blocks, const Latents& owned) const;
  Latents latent_rows(const RowMatrix& packed, Index first, Index n) const;
  void encode_rows(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
                   RowMatrix* variance) const;
  // q(u) at its optimum for the statistics of every row under params (collective).
  Vector optimal_posterior(const Communicator& comm, const Vector& params, const DataRef& local) const;

  SparseGplvmConfig config_;
  std::shared_ptr<const LatentSpace> latent_space_;
  ParameterLayout layout_;
  std::optional<GpDecoder> decoder_;
  std::optional<LatentEncoders> encoders_;
  std::optional<FreeLatents> free_latents_;
  Index kernel_offset_ = 0, noise_offset_ = 0, posterior_offset_ = 0, encoder_offset_ = 0;
  // Set by initialise_from_data (otherwise keyed random draws stand in).
  std::optional<Matrix> initial_latents_, initial_inducing_;
  std::optional<Vector> initial_posterior_, initial_mean_encoder_;
};

}  // namespace gplvm
