#pragma once
// ProbDR methods by name (`probdr.method`): each is a moment estimator (step 1, moment.hpp), or a
// neighbour embedding (SNE, t-SNE, UMAP: affinities and an optimiser, neighbour_embedding.hpp),
// registered with what it is, so that a new method is its own file plus one registration and the
// model kind, the `embed` command and the help know no method by name.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/moment.hpp"
#include "gplvm/probdr/neighbour_embedding_settings.hpp"
#include "gplvm/probdr/out_of_sample.hpp"
#include "gplvm/probdr/probdr_settings.hpp"

namespace gplvm {

// Collective: the moment of this rank's data rows (consecutive blocks in rank order, as
// RowPartition's). Input errors (a disconnected graph, k >= n, NaN, n above the dense limit) are
// thrown alike on every rank.
using MomentEstimator = std::function<MomentEstimate(
    const DataRef& local_data, const ProbdrSettings& settings, const Communicator& comm)>;

struct ProbdrMethod {
  std::string name;     // probdr.method, e.g. "isomap"
  std::string summary;  // a few words for probdr.method's help, e.g. "geodesic classical MDS"
  MomentForm form = MomentForm::covariance;
  MomentEstimator estimate;
  bool uses_graph = false;  // reads graph.*
  // The out-of-sample extension (out_of_sample.hpp): latents of new rows from the training rows and
  // their fitted latents, collective; empty for a method without one. `extension` names it in words.
  std::function<RowMatrix(const OutOfSampleInputs&, const ProbdrSettings&, const Communicator&)> extend;
  std::string extension;
  // A neighbour embedding (no moment: `estimate` and `extend` empty): fitted by its own optimiser
  // (neighbour_embedding.hpp), its objective named here.
  std::optional<NeighbourObjective> neighbour_embedding;
};

// Adds (or replaces) a method; InputError for an empty name or a missing estimator (other than a
// neighbour embedding's).
void register_probdr_method(ProbdrMethod method);
std::vector<std::string> registered_probdr_methods();  // sorted
// InputError naming probdr.method and the known methods for an unknown name.
const ProbdrMethod& probdr_method(const std::string& name);

}  // namespace gplvm
