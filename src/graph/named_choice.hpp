#pragma once
// The value of a configuration key that names one of a few choices (graph.search, graph.weight,
// ...): an InputError naming the key and the known names for anything else.
#include <initializer_list>
#include <string>
#include <utility>

#include "gplvm/core/name_registry.hpp"

namespace gplvm {

template <class Choice>
Choice named_choice(const std::string& name, const std::string& key, const std::string& what,
                    std::initializer_list<std::pair<const char*, Choice>> choices) {
  NameRegistry<Choice> registry(key, what);
  for (const auto& [choice_name, choice] : choices) registry.add(choice_name, choice);
  return registry.at(name);
}

}  // namespace gplvm
