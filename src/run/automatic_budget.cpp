#include "gplvm/run/automatic_budget.hpp"

#include <algorithm>

#include "gplvm/models/model_registry.hpp"

namespace gplvm {
namespace {

constexpr std::int64_t kDefaultEpochs = 10;

void choose(AutomaticBudget& budget, const std::string& key, const std::string& value) {
  budget.overrides.push_back(key + "=" + value);
  budget.note += (budget.note.empty() ? "" : ", ") + key + " = " + value;
}

// The batch: at most a quarter of the rows, so that an epoch has several steps. A default active
// set (SAS) as large as that batch is halved with it (A < B).
std::uint64_t choose_batch(const Config& given, std::uint64_t n, AutomaticBudget& budget) {
  const auto batch = static_cast<std::uint64_t>(given.get_int("sas.batch_size"));
  if (given.was_set("sas.batch_size")) return batch;
  const std::uint64_t chosen = std::max<std::uint64_t>(2, std::min(batch, n / kBatchesAtLeast));
  if (chosen == batch) return batch;
  choose(budget, "sas.batch_size", std::to_string(chosen));
  const auto active = static_cast<std::uint64_t>(given.get_int("sas.active_size"));
  if (!given.was_set("sas.active_size") && active >= chosen)
    choose(budget, "sas.active_size", std::to_string(std::max<std::uint64_t>(1, chosen / 2)));
  return chosen;
}

// The epochs: the default ten, or as many as give kMinimumSteps steps (batches hold B to 2B - 1
// rows: floor(N / B) per epoch).
void choose_epochs(const Config& given, std::uint64_t n, std::uint64_t batch, AutomaticBudget& budget) {
  if (given.was_set("train.epochs") || given.was_set("train.max_steps") || batch == 0 || batch > n) return;
  const std::uint64_t per_epoch = n / batch;
  const auto epochs = std::max<std::uint64_t>(static_cast<std::uint64_t>(kDefaultEpochs),
                                              (kMinimumSteps + per_epoch - 1) / per_epoch);
  if (epochs != static_cast<std::uint64_t>(given.get_int("train.epochs")))
    choose(budget, "train.epochs", std::to_string(epochs));
}

}  // namespace

AutomaticBudget automatic_budget(const Config& given, std::uint64_t num_rows) {
  AutomaticBudget budget;
  const ModelKind& kind = model_kind(given.get_string("model.kind"));
  // The exact GPLVM and the ProbDR methods have budgets of their own (full_batch.*, probdr.*).
  if (kind.full_batch_only || kind.fitting_method || num_rows == 0) return budget;
  // A user who set a minibatch budget asked for minibatch training.
  const bool minibatch_keys =
      given.was_set("train.epochs") || given.was_set("train.max_steps") || given.was_set("sas.batch_size");
  // Not for an encoder's Gaussian latents: L-BFGS's trial steps on the variance encoder can reach
  // variances that overflow (the depth-5 tree stopped at iteration 13), where Adam's steps do not.
  const bool encoded_posteriors = kind.posterior_latents && given.get_string("model.latents") != "free";
  if (kind.inducing_points && !encoded_posteriors && !given.was_set("sparse.training") &&
      !given.was_set("optim.method") && !minibatch_keys && num_rows <= kFullBatchRows)
    choose(budget, "sparse.training", "full_batch");
  const bool full_batch = trains_full_batch(given) || !budget.overrides.empty();
  if (!full_batch) choose_epochs(given, num_rows, choose_batch(given, num_rows, budget), budget);
  if (!budget.note.empty())
    budget.note = "automatic budget for N = " + std::to_string(num_rows) + " rows: " + budget.note +
                  " (set a key to choose it; docs/guide/training.md)";
  return budget;
}

}  // namespace gplvm
