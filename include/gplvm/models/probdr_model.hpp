#pragma once
// model.kind = "probdr" (docs/math/probdr.md): a classical dimensionality-reduction method read as
// maximum-a-posteriori inference in a Wishart model. Step 1 estimates the method's moment from the
// data (probdr/probdr_method.hpp: a covariance S_hat or a precision Gamma_hat, distributed by rows);
// step 2 fits the latents X (n x l, free, one row per data row) and one noise (sigma^2 or beta) to
// it, either in closed form (the `spectral` fitting method: the moment's extreme eigenpairs) or by
// L-BFGS on the Wishart objective (probdr.fit = "gradient"). Both minimise the same KL; the run
// file holds its negative as the objective, as every model's objective is maximised.
//
// Parameters: [ log noise ] [ X: l per local row ]. The noise starts at the moment's mean
// eigenvalue (tr S_hat / n), or its inverse for a precision (n / tr Gamma), so that a start does
// not depend on the data's units; X starts as model.init says (PCA scores or keyed N(0, 1) draws,
// times model.free_latent_scale), with its components along the moment's known null vectors
// removed (MomentEstimate::null_space: the objective is evaluated at X off them).
#include <memory>
#include <optional>
#include <string>

#include "gplvm/models/free_latents.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/probdr/moment.hpp"
#include "gplvm/probdr/probdr_settings.hpp"
#include "gplvm/probdr/spectral_fit.hpp"

namespace gplvm {

struct ProbdrModelConfig {
  ProbdrSettings probdr;
  FreeLatentStart start;  // model.init, model.free_latent_scale (gradient fits)
};
ProbdrModelConfig probdr_model_config(const Config& config);

class ProbdrModel : public Model {
 public:
  ProbdrModel(ProbdrModelConfig config, Index data_dim, std::uint64_t num_data, std::uint64_t local_begin,
              std::uint64_t local_rows);

  std::string kind() const override { return "probdr"; }
  const ParameterLayout& parameter_layout() const override { return layout_; }
  Vector initial_parameters() const override;
  DecoderSummary decoder_summary(const Vector& params) const override;
  // The method's extension (ProbdrMethod::extend), or empty when it has none.
  std::string out_of_sample_extension() const override;
  RowMatrix extend_out_of_sample(const Vector& params, const DataRef& training,
                                 const ConstMatrixRef& training_latents, const DataRef& new_rows,
                                 const Communicator& comm) const override;
  void write_parameters(Hdf5ResultWriter& out, const Vector& params) const override;
  void encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;
  void encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;
  // Estimates the moment (collective: the k-NN graph, shortest paths, kernels), and the PCA start.
  void initialise_from_data(const Communicator& comm, const RowPartition& partition,
                            LocalRows local_rows) override;
  std::unique_ptr<TrainingStep> make_step(const Communicator& comm, const RowPartition& partition,
                                          LocalRows local_rows) const override;
  std::unique_ptr<FullBatchObjective> make_full_batch_objective(const Communicator& comm,
                                                                const RowPartition& partition,
                                                                LocalRows local_rows) const override;
  std::optional<Vector> closed_form_parameters(const Communicator& comm,
                                               const ClosedFormProgress& progress) const override;

  const ProbdrModelConfig& config() const noexcept { return config_; }
  // The estimated moment; an internal Error before initialise_from_data.
  const MomentEstimate& moment() const;
  // The Wishart's degrees of freedom (MomentEstimate::degrees_of_freedom).
  double degrees_of_freedom() const;

 private:
  ProbdrModelConfig config_;
  std::unique_ptr<LatentSpace> space_;
  ParameterLayout layout_;
  Index noise_offset_ = 0;  // set while latents_ is built (the noise block comes first)
  FreeLatents latents_;
  std::shared_ptr<MomentEstimate> moment_;
  std::optional<Matrix> start_latents_;  // this rank's rows of the start (initialise_from_data)
  double initial_noise_ = 1.0;
  // What the last closed-form fit found, for the run file (/probdr/eigenvalues, /probdr/classical).
  mutable std::optional<SpectralFit> spectral_;
};

}  // namespace gplvm
