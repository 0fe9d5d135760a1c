#include "gplvm/apps/sweep_grid.hpp"

#include <toml++/toml.h>
#include <charconv>
#include <filesystem>
#include <sstream>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// An axis value as text an override reads back to the same value: doubles in their shortest exact
// form (with a decimal point), strings quoted.
std::string value_text(const toml::node& n, const std::string& file, const std::string& key) {
  if (const auto* d = n.as_floating_point()) {
    char buffer[64];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, d->get()).ptr;
    std::string text(buffer, end);
    // 2.0 stays a float in the table ("2" would read as an integer axis).
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
  }
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* s = n.as_string()) {
    std::ostringstream os;
    os << *s;  // TOML's quoting and escapes
    return os.str();
  }
  throw InputError("an axis value must be a number, a boolean or a string", {file, key, ""});
}

void collect_axes(const toml::table& table, const std::string& prefix, const ConfigSchema& schema,
                  const std::string& file, std::vector<SweepAxis>& axes) {
  for (const auto& [name, node] : table) {
    const std::string key = prefix.empty() ? std::string(name.str()) : prefix + "." + std::string(name.str());
    if (const auto* sub = node.as_table()) {
      collect_axes(*sub, key, schema, file, axes);
      continue;
    }
    if (!schema.find(key)) {
      const auto near = schema.closest_key(key);
      throw InputError("not a configuration key of gplvm train" +
                           (near ? " (did you mean " + *near + "?)" : std::string()),
                       {file, key, ""});
    }
    require(key != "output.path" && key != "output.checkpoint_dir",
            "the sweep names each model's output itself (DIR/model-NNNNN.h5)", {file, key, ""});
    const auto* array = node.as_array();
    require(array != nullptr && !array->empty(), "an axis needs a non-empty list of values", {file, key, ""});
    SweepAxis axis;
    axis.key = key;
    axis.replicate = key.size() > 5 && key.substr(key.size() - 5) == ".seed";
    for (const toml::node& v : *array) axis.values.push_back(value_text(v, file, key));
    axes.push_back(std::move(axis));
  }
}

}  // namespace

std::size_t SweepGrid::points() const {
  std::size_t n = 1;
  for (const SweepAxis& a : axes) n *= a.values.size();
  return n;
}

std::vector<std::size_t> SweepGrid::coordinates(std::size_t point) const {
  std::vector<std::size_t> at(axes.size());
  for (std::size_t k = axes.size(); k-- > 0;) {
    at[k] = point % axes[k].values.size();
    point /= axes[k].values.size();
  }
  return at;
}

std::vector<std::string> SweepGrid::overrides(std::size_t point) const {
  const std::vector<std::size_t> at = coordinates(point);
  std::vector<std::string> out;
  for (std::size_t k = 0; k < axes.size(); ++k) out.push_back(axes[k].key + "=" + axes[k].values[at[k]]);
  return out;
}

std::string SweepGrid::cell(std::size_t point) const {
  const std::vector<std::size_t> at = coordinates(point);
  std::string text;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    if (axes[k].replicate) continue;
    text += (text.empty() ? "" : " ") + axes[k].key + "=" + axes[k].values[at[k]];
  }
  return text.empty() ? "all" : text;
}

SweepGrid read_sweep_grid(const std::string& path, const ConfigSchema& schema) {
  require(std::filesystem::is_regular_file(path), "grid file not found", {path, "--grid", ""});
  toml::table doc;
  try {
    doc = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw InputError(
        "malformed TOML: " + std::string(e.description()),
        {path, "", "line " + std::to_string(where.line) + ", column " + std::to_string(where.column)});
  }
  SweepGrid grid;
  collect_axes(doc, "", schema, path, grid.axes);
  require(!grid.axes.empty(), "the grid names no axes (config keys with lists of values)", {path, "", ""});
  constexpr std::size_t kMaxModels = 100000;
  std::size_t n = 1;
  for (const SweepAxis& a : grid.axes) {
    n *= a.values.size();
    require(n <= kMaxModels, "the grid has more than " + std::to_string(kMaxModels) + " points",
            {path, a.key, ""});
  }
  return grid;
}

}  // namespace gplvm
