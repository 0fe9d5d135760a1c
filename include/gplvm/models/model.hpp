#pragma once
// The interface every model kind implements (sas, bayesian_sas, exact, sparse_gplvm,
// bayesian_gplvm, vae, ...): the trainer, checkpoints, the run file, encode, exact and evaluate
// are written against it, never against one model.
//
// A model owns one flat parameter vector (docs/architecture.md, "One flat parameter vector"):
//   [ shared block: replicated on every rank ]  [ local block: values of this rank's rows ]
// Inside the shared block, summed_block() is the part whose gradient is a sum over the ranks'
// rows (encoder or decoder weights): sharded Adam splits it. The rest of the shared block
// (kernel, noise, inducing inputs, ...) every rank computes identically.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gplvm/core/precision.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/model/sphere_linear_basepoint.hpp"
#include "gplvm/models/parameter_layout.hpp"
#include "gplvm/models/predictor.hpp"
#include "gplvm/optim/float32_shadow.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

enum class LatentKind { amortised, free };
LatentKind parse_latent_kind(const std::string& name);  // "amortised" | "free"
std::string to_string(LatentKind kind);

// Which step a batch belongs to: keys the step's random draws (reparameterisation noise).
struct StepKey {
  std::uint64_t epoch = 0;
  std::uint64_t step = 0;
};

// What one step's objective is made of (all maximised).
struct BatchTerms {
  double objective = 0.0;
  double sas = 0.0;  // the data term (equals objective unless Bayesian)
  double kl = 0.0;   // unweighted KL over the batch rows (Bayesian)
};

// This rank's data rows, as float64 or (fp32 models: half the memory) float32.
using LocalRows = std::variant<DataRef, DataRefF>;

// What a progress line says about the decoder under some parameters.
struct DecoderSummary {
  double noise_variance = 0.0;
  bool has_lengthscales = false;  // false: a decoder without lengthscales (a VAE's MLP)
  double min_lengthscale = 0.0, max_lengthscale = 0.0;
};

// One training step of a model over this rank's rows: the objective of a batch and its gradient.
class TrainingStep {
 public:
  virtual ~TrainingStep() = default;
  // Objective of the batch (same on every rank) and its gradient (overwritten): the shared block
  // identical on every rank, the local block for this rank's rows. With summed_slices (one count
  // per rank over the model's summed_block(), as ShardedAdam::slice_counts gives them) the summed
  // block's gradient need only be reduced in this rank's slice. fp32 models may pass an fp32
  // shadow of the summed block (Model::uses_float32_shadow).
  virtual BatchTerms evaluate(const Vector& params, const std::vector<std::uint64_t>& batch_rows, StepKey key,
                              Vector& gradient, const std::vector<int>* summed_slices,
                              Float32Shadow* shadow) const = 0;
};

// The whole-data objective of a model that can be trained full batch (PETSc TAO L-BFGS): every
// row at once, no sampling. Collective.
class FullBatchObjective {
 public:
  virtual ~FullBatchObjective() = default;
  // The objective (maximised; the same on every rank) and its gradient (overwritten), laid out as
  // the model's parameters: the shared block identical on every rank, the local block this rank's.
  virtual double evaluate(const Vector& params, Vector& gradient) const = 0;
  // Objectives of Monte Carlo estimates with noise redrawn per iteration (the Bayesian hGP-LVM's
  // model.psi_noise = "fresh"): true, and set_noise_draw(i) makes later evaluations use draw i,
  // keyed by i alone (the same at any rank count). A trainer calls it before each iteration's
  // evaluations, so two values it compares share their draws. Others: one deterministic function.
  virtual bool redraws_noise() const { return false; }
  virtual void set_noise_draw(std::uint64_t /*draw*/) const {}
  // Lower bounds on shared parameters, as (index in the shared block, bound); the rest are free.
  virtual std::vector<std::pair<Index, double>> shared_lower_bounds() const { return {}; }
  // What the value is, for summaries and the run file ("log_marginal_likelihood" for the exact
  // model; a bound otherwise).
  virtual std::string value_name() const { return "objective"; }
};

// What a model's latents are: fixed when the model is built.
struct LatentDescription {
  LatentKind kind = LatentKind::amortised;  // an encoder, or free parameters per row
  bool bayesian = false;                    // distributions (a variance per value) rather than points
  Index dim = 0;                            // Q, the intrinsic dimension
  std::string space = kEuclideanSpace;      // the model.latent_space (gplvm/model/latent_space.hpp)
};

// What every model is built with: the data set's size and this rank's rows, the data width, the
// precision of its data products, its seed and its latents.
struct ModelFacts {
  std::uint64_t num_data = 0;
  std::uint64_t local_begin = 0;  // [local_begin, local_begin + local_rows): this rank's rows
  std::uint64_t local_rows = 0;
  Index data_dim = 0;                        // D
  Precision precision = Precision::float64;  // float32 models hold fp32 rows
  std::uint64_t seed = 0;
  LatentDescription latents = {};
};

class GpDecoder;

class Model {
 public:
  virtual ~Model() = default;

  virtual std::string kind() const = 0;  // the model.kind name

  const ModelFacts& facts() const noexcept { return facts_; }
  std::uint64_t num_data() const noexcept { return facts_.num_data; }
  std::uint64_t local_begin() const noexcept { return facts_.local_begin; }
  std::uint64_t local_rows() const noexcept { return facts_.local_rows; }
  Index data_dim() const noexcept { return facts_.data_dim; }
  Precision precision() const noexcept { return facts_.precision; }
  std::uint64_t seed() const noexcept { return facts_.seed; }
  LatentKind latents() const noexcept { return facts_.latents.kind; }
  bool bayesian() const noexcept { return facts_.latents.bayesian; }
  Index latent_dim() const noexcept { return facts_.latents.dim; }
  // Curved latents (the hyperboloid, the sphere) are written as their Q + 1 ambient coordinates.
  const std::string& latent_space() const noexcept { return facts_.latents.space; }

  // Where every value sits in the flat parameter vector (models/parameter_layout.hpp): what the
  // trainer, the optimisers, checkpoints and the run file read.
  virtual const ParameterLayout& parameter_layout() const = 0;
  Index num_parameters() const { return parameter_layout().num_parameters(); }
  Index num_shared_parameters() const { return parameter_layout().num_shared(); }
  // The part of the shared block whose gradient is a sum over the ranks' rows (encoder or
  // decoder weights): sharded Adam splits it.
  IndexRange summed_block() const { return parameter_layout().summed_range(); }
  // fp32 models keep an fp32 shadow of the summed block (optim/float32_shadow.hpp).
  bool uses_float32_shadow() const {
    const IndexRange r = summed_block();
    return precision() == Precision::float32 && r.end > r.begin;
  }
  // Indices in the flat vector of values held at their initial values
  // (model.fixed_hyperparameters): optimisers zero their gradient entries, so their moments stay
  // zero and the values keep their bits.
  std::vector<Index> fixed_parameter_indices() const { return parameter_layout().fixed_indices(); }
  // The local block as one row per data row (checkpoints store it in global row order, so a run
  // resumes at any rank count); zero columns when the model has no per-row parameters.
  Index local_values_per_row() const { return parameter_layout().values_per_row(); }
  RowMatrix local_block_rows(const Vector& values) const { return parameter_layout().local_rows_of(values); }
  void set_local_block_rows(Vector& values, const RowMatrix& rows) const {
    parameter_layout().set_local_rows(values, rows);
  }
  // Free latents on a curved space are point parameters: the first ambient_dim() columns of
  // local_block_rows are points of this space, which an optimiser must move by Riemannian steps
  // (train/riemannian_full_batch_trainer.hpp). Null when every parameter is Euclidean.
  const LatentSpace* curved_point_space() const { return parameter_layout().local_point_space(); }
  // Where those points lie in the flat vector: local_rows() x ambient_dim() values, row-major, from
  // this offset (-1 without them), so that an optimiser moves them in place.
  Index curved_local_points_offset() const { return parameter_layout().local_points_offset(); }
  // Replicated point parameters of the same space (inducing inputs on the hyperboloid): `rows`
  // points of ambient_dim() coordinates stored column-major from `offset` in the shared block.
  // Empty (rows 0) when there are none.
  struct SharedPoints {
    Index offset = 0;
    Index rows = 0;
  };
  SharedPoints curved_shared_points() const;
  // Replicated points that are not parameters but copies of latents (the hGP-LVM's active set of
  // inducing inputs): redrawn from the current latents every `every` full-batch iterations or
  // minibatch steps by models/active_set.hpp; their gradient is zero. every 0: none.
  struct ActiveSet {
    SharedPoints points;
    Index every = 0;
  };
  ActiveSet active_set() const;
  // Called by models/active_set.hpp once it has moved the active set from `previous` (its points
  // before the redraw) to the points now in params, when the two differ: parameters that are tied
  // to where the inducing inputs are (an explicit q(u)) follow them. Default: nothing does.
  virtual void carry_over_active_set(const Matrix& /*previous*/, Vector& /*params*/) const {}

  virtual Vector initial_parameters() const = 0;

  // The GP decoder (kernel and Gaussian noise, models/gp_decoder.hpp), or null for a model
  // without one (a VAE).
  virtual const GpDecoder* gp_decoder() const { return nullptr; }
  bool has_gp_decoder() const { return gp_decoder() != nullptr; }
  // The decoder's kernel and noise under some parameters; an internal Error without a GP decoder.
  std::unique_ptr<Kernel> kernel(const Vector& params) const;
  double noise_variance(const Vector& params) const;
  // The noise and the range of the kernel's hyperparameter groups named "lengthscales" (those of
  // a sum or product's parts included); models without a GP decoder give their own noise.
  virtual DecoderSummary decoder_summary(const Vector& params) const;

  // Writes the model's parameters under /params in natural units: /params/kernel/<name> as the
  // kernel names them, /params/noise_variance, and the model's own (encoders, inducing inputs).
  virtual void write_parameters(Hdf5ResultWriter& out, const Vector& params) const = 0;

  // Latent means (and variances for Bayesian models) of consecutive data rows starting at global
  // row first_row, from float64 or (an fp32 model's encoder in fp32) float32 rows. Free latents:
  // the rows must be this rank's own (first_row = local_begin()).
  virtual void encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
                      RowMatrix* variance) const = 0;
  virtual void encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
                      RowMatrix* variance) const = 0;

  // The model's own out-of-sample extension, for latents fitted per training row without an encoder
  // or a GP decoder to infer new ones by (ProbDR: each method's Nystrom or reconstruction formula):
  // its name in words, empty for a model without one.
  virtual std::string out_of_sample_extension() const { return {}; }
  // Latents of this rank's `new_rows` from this rank's training rows and their fitted latents
  // (collective; rows split as RowPartition splits each set). An internal Error for a model without
  // an extension.
  virtual RowMatrix extend_out_of_sample(const Vector& params, const DataRef& training,
                                         const ConstMatrixRef& training_latents, const DataRef& new_rows,
                                         const Communicator& comm) const;

  // Initial values that depend on the data (PCA latents, inducing inputs by k-means), computed
  // once before initial_parameters() by whoever trains the model. Collective. Models whose start
  // needs no data keep this no-op.
  virtual void initialise_from_data(const Communicator& comm, const RowPartition& partition,
                                    LocalRows local_rows) {}

  // The step over this rank's rows (partition's share); validates them (InputError naming the
  // global row of a non-finite value, on every rank).
  virtual std::unique_ptr<TrainingStep> make_step(const Communicator& comm, const RowPartition& partition,
                                                  LocalRows local_rows) const = 0;
  // The full-batch objective over this rank's rows, or null if the model is trained by steps only.
  virtual std::unique_ptr<FullBatchObjective> make_full_batch_objective(const Communicator& comm,
                                                                        const RowPartition& partition,
                                                                        LocalRows local_rows) const {
    return nullptr;
  }

  // The parameters at the model's closed-form optimum, for a model that has one (ProbDR's spectral
  // fit: the moment's extreme eigenpairs), computed after initialise_from_data (collective); none
  // for a model that is only trained. `progress` receives lines for long computations.
  using ClosedFormProgress = std::function<void(const std::string& line)>;
  virtual std::optional<Vector> closed_form_parameters(const Communicator& comm,
                                                       const ClosedFormProgress& progress) const {
    return std::nullopt;
  }

  // A wrapped model whose basepoint moves with the latent (model.basepoint = "linear"): m(x) under
  // params, in its chart's frame (model/sphere_linear_basepoint.hpp). The GP's outputs are then the
  // coordinates V(x, p) at m(x), not the chart's coordinates at mu0. None for every other model.
  virtual std::optional<SphereLinearBasepoint> linear_basepoint(const Vector& params) const {
    return std::nullopt;
  }

  // The model's own predictive under params, conditioned where it needs to be on the training
  // evidence (collective), or null for a GP decoder whose predictive is the exact GP conditioned
  // on the training data (eval/exact_gp_predictor.hpp builds that one).
  virtual std::unique_ptr<Predictor> make_predictor(const Vector& params, const TrainingEvidence& training,
                                                    const Communicator& comm) const {
    return nullptr;
  }

 protected:
  explicit Model(ModelFacts facts) : facts_(std::move(facts)) {}
  Model(const Model&) = default;
  Model& operator=(const Model&) = default;

 private:
  ModelFacts facts_;
};

// Free latents are parameters of the training rows, not a function of data: "encoding" them can only
// return the stored latents of rows this model owns. An internal Error (exit 1) when rows
// [first_row, first_row + rows) are not among them, saying that held-out rows need latent
// inference (eval/latent_inference.hpp) instead of quietly returning other rows' latents.
void require_own_free_latent_rows(const Model& model, std::uint64_t first_row, Index rows);

// A copy of `prototype` with the hyperparameters params[offset, offset + H): how every GP model
// with a flat parameter vector builds its kernel.
std::unique_ptr<Kernel> kernel_with_hyperparameters(const Kernel& prototype, const Vector& params,
                                                    Index offset);

// /params/kernel/<name> for each of the kernel's named hyperparameters (a scalar when the group
// has one value) and /params/noise_variance: what every GP model writes.
void write_gp_parameters(Hdf5ResultWriter& out, const Kernel& kernel, double noise_variance);

}  // namespace gplvm
