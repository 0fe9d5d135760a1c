#pragma once
// Run configuration: a declared schema of dotted keys, resolved from defaults, a TOML file and
// command-line overrides (in that order of precedence).
//
// A run's behaviour must be reproducible from its stored config, so nothing is accepted silently:
// unknown keys, wrong types, malformed TOML and rule violations are all gplvm::InputError naming the
// key, the value, and where it came from (file:line:column or "command line"). Asking a Config for an
// undeclared key or with the wrong type is a bug in the caller and throws gplvm::Error.
//
// Typical use (apps):
//   ConfigSchema schema;
//   schema.add_int("train.batch_size", 256, "minibatch size B", {ConfigRule::range(1, 1 << 20)})
//       .add_required("data.path", ConfigType::string, "HDF5 input file")
//       .add_int_list("model.encoder_hidden", {512, 256}, "encoder hidden layer widths");
//   Config config = resolve_config(schema, config_path, overrides);  // overrides: {"train.lr=1e-3"}
//   const auto batch = config.get_int("train.batch_size");
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gplvm {

// The alternatives of ConfigValue are in the same order, so a value's index() is its ConfigType.
enum class ConfigType { int64, float64, boolean, string, int_list, double_list, string_list };

using ConfigValue = std::variant<std::int64_t, double, bool, std::string, std::vector<std::int64_t>,
                                 std::vector<double>, std::vector<std::string>>;

// "int", "float", "bool", "string", "list of int", "list of float", "list of string".
std::string_view config_type_name(ConfigType type);
ConfigType config_type_of(const ConfigValue& value);
// The value as TOML text: 3, 1.0e-3 -> "0.001", "quoted \"string\"", [512, 256].
std::string config_value_to_toml(const ConfigValue& value);

// A validation rule declared with a key. Numeric and allowed-string rules apply to every element of a
// list; non_empty applies to the string or list as a whole.
class ConfigRule {
 public:
  static ConfigRule range(double lo, double hi);  // lo <= v <= hi (NaN fails)
  static ConfigRule at_least(double lo);          // v >= lo
  static ConfigRule greater_than(double lo);      // v > lo, e.g. greater_than(0) for "positive"
  static ConfigRule one_of(std::vector<std::string> allowed);
  static ConfigRule non_empty();
  // check receives the whole value; types lists the ConfigTypes the rule may be declared on.
  static ConfigRule custom(std::string description, std::vector<ConfigType> types,
                           std::function<bool(const ConfigValue&)> check);

  // For users: "in [1, 1048576]", "one of: adam, lbfgs", "non-empty".
  const std::string& description() const { return description_; }
  // True when the rule is checked element by element on list values.
  bool elementwise() const { return elementwise_; }
  bool applies_to(ConfigType type) const;
  bool accepts(const ConfigValue& value) const { return check_(value); }

 private:
  ConfigRule(std::string description, std::vector<ConfigType> types, bool elementwise,
             std::function<bool(const ConfigValue&)> check);
  std::string description_;
  std::vector<ConfigType> types_;
  bool elementwise_;
  std::function<bool(const ConfigValue&)> check_;
};

struct ConfigKey {
  std::string name;  // "section.key" or deeper ("model.kernel.lengthscale"); bare TOML key segments
  ConfigType type;
  std::optional<ConfigValue> default_value;  // nullopt: required
  std::string description;                   // one line, for --help
  std::vector<ConfigRule> rules;
};

class ConfigSchema {
 public:
  // Declaration mistakes (bad name, duplicate, a key that is also a table, default of the wrong type
  // or breaking its own rule, a rule on a type it cannot check) throw gplvm::Error.
  ConfigSchema& add(ConfigKey key);
  ConfigSchema& add_int(std::string name, std::int64_t default_value, std::string description,
                        std::vector<ConfigRule> rules = {});
  ConfigSchema& add_double(std::string name, double default_value, std::string description,
                           std::vector<ConfigRule> rules = {});
  ConfigSchema& add_bool(std::string name, bool default_value, std::string description,
                         std::vector<ConfigRule> rules = {});
  ConfigSchema& add_string(std::string name, std::string default_value, std::string description,
                           std::vector<ConfigRule> rules = {});
  ConfigSchema& add_int_list(std::string name, std::vector<std::int64_t> default_value,
                             std::string description, std::vector<ConfigRule> rules = {});
  ConfigSchema& add_double_list(std::string name, std::vector<double> default_value, std::string description,
                                std::vector<ConfigRule> rules = {});
  ConfigSchema& add_string_list(std::string name, std::vector<std::string> default_value,
                                std::string description, std::vector<ConfigRule> rules = {});
  ConfigSchema& add_required(std::string name, ConfigType type, std::string description,
                             std::vector<ConfigRule> rules = {});

  // In declaration order.
  const std::vector<ConfigKey>& keys() const { return keys_; }
  // nullptr when undeclared.
  const ConfigKey* find(std::string_view name) const;
  std::optional<std::size_t> index_of(std::string_view name) const;
  // True when `path` is a proper prefix table of some key ("model", "model.kernel").
  bool is_table(std::string_view path) const;
  // The declared key nearest to `name` by edit distance (or, failing that, one with the same last
  // segment), if close enough to be a plausible typo.
  std::optional<std::string> closest_key(std::string_view name) const;

  // One line per key: name, type, default (or "required"), description and rules, aligned.
  std::string help_text() const;

 private:
  std::vector<ConfigKey> keys_;
  std::map<std::string, std::size_t, std::less<>> index_;
  std::map<std::string, int, std::less<>> tables_;  // table path -> number of keys below it
};

enum class ConfigSource { default_value, file, command_line };

class Config;
// Reads the TOML file (none when the path is empty), then applies overrides "section.key=value" in
// order (a later override of the same key wins).
Config resolve_config(const ConfigSchema& schema, const std::string& toml_path_or_empty,
                      const std::vector<std::string>& overrides);
// The same from TOML text, e.g. a config stored in a result file; source_name labels errors.
Config resolve_config_text(const ConfigSchema& schema, std::string_view toml_text,
                           const std::string& source_name, const std::vector<std::string>& overrides);

// A fully resolved configuration: every schema key has a value that passed its rules.
class Config {
 public:
  std::int64_t get_int(std::string_view key) const;
  double get_double(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  const std::string& get_string(std::string_view key) const;
  const std::vector<std::int64_t>& get_int_list(std::string_view key) const;
  const std::vector<double>& get_double_list(std::string_view key) const;
  const std::vector<std::string>& get_string_list(std::string_view key) const;
  const ConfigValue& get(std::string_view key) const;

  // Set by the file or an override, as opposed to left at its default.
  bool was_set(std::string_view key) const { return source(key) != ConfigSource::default_value; }
  ConfigSource source(std::string_view key) const;
  const ConfigSchema& schema() const { return schema_; }

  // Every key, one table per section in schema order; resolve_config_text(schema, to_toml()) gives
  // back an equal Config.
  std::string to_toml() const;
  // An object nested by section: {"train": {"batch_size": 256, ...}, ...}. Non-finite doubles are null.
  std::string to_json(int indent = 2) const;

  // Same keys and values; where the values came from is ignored (NaN never compares equal).
  friend bool operator==(const Config& a, const Config& b);

 private:
  friend Config resolve_config_text(const ConfigSchema&, std::string_view, const std::string&,
                                    const std::vector<std::string>&);
  Config(ConfigSchema schema, std::vector<ConfigValue> values, std::vector<ConfigSource> sources);
  std::size_t index_or_throw(std::string_view key) const;
  std::size_t checked_index(std::string_view key, ConfigType wanted) const;

  ConfigSchema schema_;
  std::vector<ConfigValue> values_;
  std::vector<ConfigSource> sources_;
};

}  // namespace gplvm
