#pragma once
// Model kinds by name (`model.kind`): each kind reads its own settings from the resolved
// configuration and builds its Model. The trainer, checkpoints, run files and commands ask the
// registry, so a new kind is one registration and no other edits.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"
#include "gplvm/models/model.hpp"

namespace gplvm {

// Where the model's rows are: N in all, and this process's [local_begin, local_begin + local_rows).
struct ModelRows {
  Index data_dim = 0;  // D, from the data file
  std::uint64_t num_data = 0, local_begin = 0, local_rows = 0;
};

using ModelFactory = std::function<std::unique_ptr<Model>(const Config& config, const ModelRows& rows)>;

// Adds (or replaces) a kind.
void register_model_kind(const std::string& kind, ModelFactory factory);
std::vector<std::string> registered_model_kinds();  // sorted

// The model of config's model.kind; InputError naming model.kind for an unknown kind.
std::unique_ptr<Model> make_model(const Config& config, const ModelRows& rows);

}  // namespace gplvm
