#pragma once
// Fitting methods by name (`optim.method`): how a built model is trained into a run file. Each is a
// function over the model and its rows, registered with what it does (minibatch steps or one
// optimisation over every row) and which latent points it can move (Euclidean ones, points of a
// curved space). `auto` resolves to the model's natural method; the train command resolves the
// name, checks it against the model and calls it, and knows no method by name.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/run/train_config.hpp"
#include "gplvm/train/run_file.hpp"

namespace gplvm {

// What a fitting method is given: the model, initialised from its data, and where its outputs go.
struct FitRun {
  const Model& model;
  const Communicator& comm;
  const RowPartition& partition;
  LocalRows rows;
  const std::vector<std::int64_t>* labels;  // may be null
  // The run file's metadata; computing it takes a pass over the data (the fingerprint), so a method
  // calls it once it has validated what is cheap to validate.
  std::function<RunMetadata()> metadata;
  const TrainSettings& settings;
  std::string config_file;  // --config: an input, never replaced by an output
  std::string resume;       // --resume: empty, "auto" or a checkpoint file
  bool force = false;       // --force: replace an existing run file (never an input)
  bool json = false;        // --json: a JSON summary on stdout
};

// Trains, writes the run file (or a checkpoint when stopped) and returns the exit code.
using FitFunction = std::function<int(const FitRun& run)>;

struct FittingMethod {
  std::string name;     // optim.method
  std::string summary;  // a few words for optim.method's help
  FitFunction fit;
  // One optimisation over every row (the model's full-batch objective), else minibatch steps.
  bool full_batch = false;
  // Which latent points it moves: Euclidean ones, points of a curved latent space, or both.
  bool moves_euclidean_points = true;
  bool moves_curved_points = false;
  // What optim.method = "auto" picks for the training and the points it covers (one per pair).
  bool automatic = false;
  // Writes the model's closed-form optimum instead of training (Model::closed_form_parameters):
  // only for kinds registered with ModelKind::closed_form.
  bool closed_form = false;
};

// Adds (or replaces) a method; InputError for an empty name, "auto", or a missing function.
void register_fitting_method(FittingMethod method);
std::vector<std::string> registered_fitting_methods();  // sorted
// The registration of `name`; InputError naming optim.method and the known methods otherwise.
const FittingMethod& fitting_method(const std::string& name);

// The method that trains config's model: optim.method, with "auto" resolved (a kind that chooses
// its own method by its keys, ModelKind::fitting_method: that one; minibatch models: the minibatch
// method; full-batch ones: L-BFGS on Euclidean latents, Riemannian Adam on curved ones).
// InputError naming optim.method when the method cannot train that model: full batch against
// minibatch, or points it cannot move.
const FittingMethod& fitting_method_for(const Config& config);

}  // namespace gplvm
