#pragma once
// model.kind = "probdr" with probdr.method = sne, tsne or umap (docs/math/neighbour_embedding.md):
// classical neighbour embedding read as variational inference over a random graph. Step 1
// (initialise_from_data) computes the affinities on the distributed k-NN graph and the start;
// step 2 is the method's own optimiser (probdr/neighbour_embedding.hpp), run by the
// `neighbour_descent` fitting method. Parameters: the latents X, l per local row, nothing shared.
// The run file holds the objective as the negative KL, as every model's objective is maximised.
#include <memory>
#include <optional>
#include <string>

#include "gplvm/models/free_latents.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/probdr/neighbour_embedding.hpp"
#include "gplvm/probdr/probdr_settings.hpp"

namespace gplvm {

class NeighbourEmbeddingModel : public Model {
 public:
  NeighbourEmbeddingModel(ProbdrSettings settings, Index data_dim, std::uint64_t num_data,
                          std::uint64_t local_begin, std::uint64_t local_rows);

  std::string kind() const override { return "probdr"; }
  const ParameterLayout& parameter_layout() const override { return layout_; }
  Vector initial_parameters() const override;
  std::string out_of_sample_extension() const override;
  RowMatrix extend_out_of_sample(const Vector& params, const DataRef& training,
                                 const ConstMatrixRef& training_latents, const DataRef& new_rows,
                                 const Communicator& comm) const override;
  void write_parameters(Hdf5ResultWriter& out, const Vector& params) const override;
  void encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;
  void encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
              RowMatrix* variance) const override;
  // The affinities and the start (collective: the k-NN graph, the calibration, PCA or the spectral
  // start).
  void initialise_from_data(const Communicator& comm, const RowPartition& partition,
                            LocalRows local_rows) override;
  std::unique_ptr<TrainingStep> make_step(const Communicator& comm, const RowPartition& partition,
                                          LocalRows local_rows) const override;

  const ProbdrSettings& settings() const noexcept { return settings_; }
  // An internal Error before initialise_from_data.
  const NeighbourAffinities& affinities() const;
  // The latents of this rank's rows in params, and params with them replaced.
  RowMatrix latents(const Vector& params) const;
  void set_latents(Vector& params, const RowMatrix& latents) const;
  // What the optimiser approximated, recorded in the run file (set by the fitting method).
  void record_optimisation(std::string approximation, double final_kl, bool kl_estimated) const;

 private:
  ProbdrSettings settings_;
  std::unique_ptr<LatentSpace> space_;
  ParameterLayout layout_;
  FreeLatents latents_;
  std::shared_ptr<NeighbourAffinities> affinities_;
  std::optional<RowMatrix> start_;
  mutable std::string approximation_;
  mutable std::optional<double> final_kl_;
  mutable bool kl_estimated_ = false;
};

}  // namespace gplvm
