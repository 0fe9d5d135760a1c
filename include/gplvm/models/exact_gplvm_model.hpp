#pragma once
// The exact GPLVM (model.kind = "exact") as a Model: the GP decoder of SAS with free point latents,
// PCA-initialised, trained full batch on the exact log marginal likelihood (the ScaLAPACK engine,
// exact_gplvm_objective.hpp) by L-BFGS. It has no minibatch step.
//
// Flat layout, SasModel's with free latents: [ kernel log-hyperparameters | log noise variance ]
// shared, [ X rows of this rank (N_loc x Q) ] local. The noise variance is bounded below by
// min_noise_variance (FullBatchObjective::shared_lower_bounds).
//
// With model.basepoint = "linear" (on the sphere; docs/math/wrapped_gplvm.md) the shared block
// ends with the map A (D x Q, column-major, D the tangent dimension) of the basepoint
// m(x) = Exp_mu0(B0 A x), and the objective is the wrapped log-likelihood of the coordinates
// V(x_j, p_j) at m(x_j): each rank computes its own rows' V and their Jacobians, K and its factor
// are the exact kind's (ScaLAPACK), and dL/dV = -alpha comes back to the rows' owners. The rows
// the model is given stay the chart's coordinates at mu0; the points are rebuilt from them in the
// chart's frame (chart_frame_points), where mu0 = e_0 and B0 = [0; I]. A starts at 0: the
// constant-basepoint model at the same (PCA) latents.
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/objectives/exact_distributed.hpp"

namespace gplvm {

struct ExactGplvmConfig {
  // What exact shares with sas: the latents (free, float64) and the decoder (kernel, noise, and the
  // hyperparameters held fixed: by the kernel's hyperparameter_name ("log_kappa") or without its
  // "log_" ("kappa"), so that no optimiser moves them; the hGP-LVM paper fixes kappa).
  SasModelConfig base;
  // The likelihood grows without limit as s2 -> 0 once the latents interpolate the data, and
  // K + s2 I turns numerically singular there: the floor keeps its condition number <= ~N theta / s2.
  double min_noise_variance = 1e-6;
  ExactDistributedOptions gp;     // block size, grid, jitter (with_gradient is always on)
  bool linear_basepoint = false;  // model.basepoint = "linear"
};

// model.*, exact.* from the resolved configuration; InputError naming the key for float32 or an
// initial noise variance below the floor.
ExactGplvmConfig exact_gplvm_config(const Config& config, Index data_dim);

class ExactGplvmModel final : public Model {
 public:
  ExactGplvmModel(ExactGplvmConfig config, std::uint64_t num_data, std::uint64_t local_begin,
                  std::uint64_t local_rows);

  std::string kind() const override { return "exact"; }
  // The decoder's replicated blocks, the basepoint map A (D x Q, "basepoint_map") with the linear
  // basepoint, then the free latents.
  const ParameterLayout& parameter_layout() const override { return layout_; }
  // The decoder's kernel and noise sit where they sit in the decoder's own vector.
  const GpDecoder* gp_decoder() const override { return decoder_.gp_decoder(); }
  // Indices in the parameter vector of the fixed kernel hyperparameters.
  std::vector<Index> fixed_parameters() const { return layout_.fixed_indices(); }
  // The decoder's free-latent start (model.init: PCA after initialise_from_data, or keyed draws),
  // on the model's latent space.
  Vector initial_parameters() const override;

  // The decoder's parameters and, with the linear basepoint, /params/basepoint_map (D x Q).
  void write_parameters(Hdf5ResultWriter& out, const Vector& params) const override;
  void encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override {
    decoder_.encode(decoder_values(params), data, first_row, mean, variance);
  }
  void encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override {
    decoder_.encode(decoder_values(params), data, first_row, mean, variance);
  }
  std::optional<SphereLinearBasepoint> linear_basepoint(const Vector& params) const override;
  // A (D x Q) under params; empty unless the basepoint is linear.
  Matrix basepoint_map(const Vector& params) const;

  void initialise_from_data(const Communicator& comm, const RowPartition& partition,
                            LocalRows local_rows) override;
  // InputError: the exact model has no minibatch step.
  std::unique_ptr<TrainingStep> make_step(const Communicator& comm, const RowPartition& partition,
                                          LocalRows local_rows) const override;
  // Runs the memory check of ExactDistributedGp once (collective), then returns the objective.
  std::unique_ptr<FullBatchObjective> make_full_batch_objective(const Communicator& comm,
                                                                const RowPartition& partition,
                                                                LocalRows local_rows) const override;

 private:
  // The decoder's flat vector: these parameters without A (a copy only when A is there).
  Vector decoder_values(const Vector& values) const;

  ExactGplvmConfig config_;
  SasModel decoder_;
  Index map_size_ = 0;  // D x Q with the linear basepoint, else 0
  ParameterLayout layout_;
};

}  // namespace gplvm
