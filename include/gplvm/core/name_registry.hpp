#pragma once
// A table of named entries of one kind: model kinds, fitting methods, latent spaces. Each registry
// owns one table; registration replaces an entry of the same name, lookup of an unknown name is an
// input error naming the configuration key and the known names, and messages can list the names
// whose entries have some property ("sas, exact and vae").
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gplvm/core/error.hpp"

namespace gplvm {

// "a, b, c": names for messages and help texts.
inline std::string comma_joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

template <class Entry>
class NameRegistry {
 public:
  // `key` is the configuration key that names entries (e.g. "model.kind"); `what` names one entry in
  // messages (e.g. "model kind").
  NameRegistry(std::string key, std::string what) : key_(std::move(key)), what_(std::move(what)) {}

  void add(const std::string& name, Entry entry) {
    require(!name.empty(), "a registered " + what_ + " needs a name", {"", key_, name});
    entries_.insert_or_assign(name, std::move(entry));
  }
  // The entry of `name`; InputError naming the key, the name and the known names otherwise.
  const Entry& at(const std::string& name) const {
    const auto it = entries_.find(name);
    if (it != entries_.end()) return it->second;
    throw InputError(
        "unknown " + what_ + " (known: " + names_where([](const Entry&) { return true; }, ", ") + ")",
        {"", key_, name});
  }
  bool contains(const std::string& name) const { return entries_.count(name) > 0; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_) out.push_back(name);
    return out;
  }
  // The names (sorted) of the entries with the property, as "a, b" + last_separator + "c"; "none"
  // when there are none.
  template <class Predicate>
  std::string names_where(Predicate has, const std::string& last_separator = " and ") const {
    std::vector<std::string> found;
    for (const auto& [name, entry] : entries_)
      if (has(entry)) found.push_back(name);
    std::string text;
    for (std::size_t i = 0; i < found.size(); ++i)
      text += (i == 0 ? "" : i + 1 == found.size() ? last_separator : ", ") + found[i];
    return text.empty() ? "none" : text;
  }
  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::string key_, what_;
  std::map<std::string, Entry> entries_;
};

}  // namespace gplvm
