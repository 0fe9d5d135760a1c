#include "gplvm/core/config.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/parse_number.hpp"

namespace gplvm {
namespace {

// ---------------------------------------------------------------- text helpers

bool is_bare_key(std::string_view s) {
  auto bare = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  };
  return !s.empty() && std::all_of(s.begin(), s.end(), bare);
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t pos; (pos = s.find(sep, start)) != std::string_view::npos; start = pos + 1)
    parts.emplace_back(s.substr(start, pos - start));
  parts.emplace_back(s.substr(start));
  return parts;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::string_view last_segment(std::string_view name) {
  return name.substr(name.rfind('.') + 1);
}

bool is_list(ConfigType t) {
  return t == ConfigType::int_list || t == ConfigType::double_list || t == ConfigType::string_list;
}

ConfigType element_type(ConfigType list) {
  if (list == ConfigType::int_list) return ConfigType::int64;
  return list == ConfigType::double_list ? ConfigType::float64 : ConfigType::string;
}

// TOML float: the shortest decimal that reads back to the identical value (std::to_chars), ".0"
// added to integral values so they stay floats; non-finite values in TOML's spelling.
std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::array<char, 32> buf;  // the shortest form of a double needs at most 24 characters
  const auto result = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  std::string text(buf.data(), result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// TOML basic string: escapes quote, backslash and every control character (DEL included: TOML forbids it
// raw). Bytes >= 0x80 pass through; override strings are checked to be UTF-8 on the way in.
std::string toml_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (const char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      out += {'\\', c};
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (byte < 0x20 || byte == 0x7F)
      out += std::string("\\u00") + kHex[byte >> 4] + kHex[byte & 0xF];
    else
      out += c;
  }
  return out + "\"";
}

// Rule bounds read best as integers when they are ("[1, 1048576]", not "[1.0, 1048576.0]").
std::string format_bound(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<std::int64_t>(v));
  return format_double(v);
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t len = b < 0x80           ? 1
                            : (b >> 5) == 0x6  ? 2
                            : (b >> 4) == 0xE  ? 3
                            : (b >> 3) == 0x1E ? 4
                                               : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += len;
  }
  return true;
}

// Optimal-string-alignment distance: a transposition ("trian") counts as one typo, not two.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// ---------------------------------------------------------------- values

struct TomlFormatter {
  std::string operator()(std::int64_t v) const { return std::to_string(v); }
  std::string operator()(double v) const { return format_double(v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(const std::string& v) const { return toml_quote(v); }
  template <class T>
  std::string operator()(const std::vector<T>& list) const {
    std::string out = "[";
    for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + (*this)(list[i]);
    return out + "]";
  }
};

// Calls pred on a number or on every element of a numeric list; false for other types.
bool all_numbers(const ConfigValue& value, const std::function<bool(double)>& pred) {
  return std::visit(
      [&](const auto& v) -> bool {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, double>) {
          return pred(static_cast<double>(v));
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>> ||
                             std::is_same_v<T, std::vector<double>>) {
          return std::all_of(v.begin(), v.end(), [&](auto e) { return pred(static_cast<double>(e)); });
        } else {
          return false;
        }
      },
      value);
}

const std::vector<ConfigType> kNumericTypes = {ConfigType::int64, ConfigType::float64, ConfigType::int_list,
                                               ConfigType::double_list};
const std::vector<ConfigType> kStringTypes = {ConfigType::string, ConfigType::string_list};
const std::vector<ConfigType> kSizedTypes = {ConfigType::string, ConfigType::int_list,
                                             ConfigType::double_list, ConfigType::string_list};

// "must be in [1, 8]" or, for a list, "every element must be in [1, 8]".
std::string requirement(const ConfigRule& rule, ConfigType type) {
  return (rule.elementwise() && is_list(type) ? "every element must be " : "must be ") + rule.description();
}

}  // namespace

std::string_view config_type_name(ConfigType type) {
  switch (type) {
    case ConfigType::int64:
      return "int";
    case ConfigType::float64:
      return "float";
    case ConfigType::boolean:
      return "bool";
    case ConfigType::string:
      return "string";
    case ConfigType::int_list:
      return "list of int";
    case ConfigType::double_list:
      return "list of float";
    case ConfigType::string_list:
      return "list of string";
  }
  return "?";
}

ConfigType config_type_of(const ConfigValue& value) {
  return static_cast<ConfigType>(value.index());
}

std::string config_value_to_toml(const ConfigValue& value) {
  return std::visit(TomlFormatter{}, value);
}

// ---------------------------------------------------------------- rules

ConfigRule::ConfigRule(std::string description, std::vector<ConfigType> types, bool elementwise,
                       std::function<bool(const ConfigValue&)> check)
    : description_(std::move(description)),
      types_(std::move(types)),
      elementwise_(elementwise),
      check_(std::move(check)) {}

bool ConfigRule::applies_to(ConfigType type) const {
  return std::find(types_.begin(), types_.end(), type) != types_.end();
}

ConfigRule ConfigRule::range(double lo, double hi) {
  return {"in [" + format_bound(lo) + ", " + format_bound(hi) + "]", kNumericTypes, true,
          [lo, hi](const ConfigValue& v) {
            return all_numbers(v, [&](double x) { return lo <= x && x <= hi; });
          }};
}

ConfigRule ConfigRule::at_least(double lo) {
  return {">= " + format_bound(lo), kNumericTypes, true,
          [lo](const ConfigValue& v) { return all_numbers(v, [&](double x) { return x >= lo; }); }};
}

ConfigRule ConfigRule::greater_than(double lo) {
  return {"> " + format_bound(lo), kNumericTypes, true,
          [lo](const ConfigValue& v) { return all_numbers(v, [&](double x) { return x > lo; }); }};
}

ConfigRule ConfigRule::one_of(std::vector<std::string> allowed) {
  std::string text = "one of:";
  for (std::size_t i = 0; i < allowed.size(); ++i) text += (i ? ", " : " ") + allowed[i];
  auto check = [allowed = std::move(allowed)](const ConfigValue& v) {
    auto ok = [&](const std::string& s) {
      return std::find(allowed.begin(), allowed.end(), s) != allowed.end();
    };
    if (const auto* s = std::get_if<std::string>(&v)) return ok(*s);
    const auto* list = std::get_if<std::vector<std::string>>(&v);
    return list && std::all_of(list->begin(), list->end(), ok);
  };
  return {std::move(text), kStringTypes, true, std::move(check)};
}

ConfigRule ConfigRule::non_empty() {
  return {"non-empty", kSizedTypes, false, [](const ConfigValue& v) {
            return std::visit(
                [](const auto& x) {
                  if constexpr (requires { x.empty(); })
                    return !x.empty();
                  else
                    return true;
                },
                v);
          }};
}

ConfigRule ConfigRule::custom(std::string description, std::vector<ConfigType> types,
                              std::function<bool(const ConfigValue&)> check) {
  return {std::move(description), std::move(types), false, std::move(check)};
}

// ---------------------------------------------------------------- schema

namespace {

void check_key_name(const std::string& name) {
  const auto segments = split(name, '.');
  const bool ok = segments.size() >= 2 && std::all_of(segments.begin(), segments.end(), is_bare_key);
  if (!ok)
    throw Error("config key must be 'section.key' made of letters, digits, '_' and '-'",
                ErrorContext("", name));
}

void check_key_declaration(const ConfigKey& key) {
  if (key.description.find('\n') != std::string::npos)
    throw Error("config key description must be one line", ErrorContext("", key.name));
  for (const auto& rule : key.rules)
    if (!rule.applies_to(key.type))
      throw Error(
          "rule '" + rule.description() + "' cannot check a " + std::string(config_type_name(key.type)),
          ErrorContext("", key.name));
  if (!key.default_value) return;
  if (config_type_of(*key.default_value) != key.type)
    throw Error("default value of config key has the wrong type", ErrorContext("", key.name));
  for (const auto& rule : key.rules)
    if (!rule.accepts(*key.default_value))
      throw Error("default value of config key " + requirement(rule, key.type),
                  ErrorContext("", key.name, config_value_to_toml(*key.default_value)));
}

}  // namespace

ConfigSchema& ConfigSchema::add(ConfigKey key) {
  check_key_name(key.name);
  check_key_declaration(key);
  if (index_.count(key.name)) throw Error("config key declared twice", ErrorContext("", key.name));
  if (tables_.count(key.name))
    throw Error("config key is already a table of other keys", ErrorContext("", key.name));
  std::vector<std::string> prefixes;
  for (std::size_t dot = key.name.find('.'); dot != std::string::npos; dot = key.name.find('.', dot + 1)) {
    prefixes.push_back(key.name.substr(0, dot));
    if (index_.count(prefixes.back()))
      throw Error("config key would make '" + prefixes.back() + "' both a key and a table",
                  ErrorContext("", key.name));
  }
  for (const auto& p : prefixes) ++tables_[p];
  index_.emplace(key.name, keys_.size());
  keys_.push_back(std::move(key));
  return *this;
}

ConfigSchema& ConfigSchema::add_int(std::string name, std::int64_t def, std::string description,
                                    std::vector<ConfigRule> rules) {
  return add({std::move(name), ConfigType::int64, def, std::move(description), std::move(rules)});
}

ConfigSchema& ConfigSchema::add_double(std::string name, double def, std::string description,
                                       std::vector<ConfigRule> rules) {
  return add({std::move(name), ConfigType::float64, def, std::move(description), std::move(rules)});
}

ConfigSchema& ConfigSchema::add_bool(std::string name, bool def, std::string description,
                                     std::vector<ConfigRule> rules) {
  return add({std::move(name), ConfigType::boolean, def, std::move(description), std::move(rules)});
}

ConfigSchema& ConfigSchema::add_string(std::string name, std::string def, std::string description,
                                       std::vector<ConfigRule> rules) {
  return add({std::move(name), ConfigType::string, std::move(def), std::move(description), std::move(rules)});
}

ConfigSchema& ConfigSchema::add_int_list(std::string name, std::vector<std::int64_t> def,
                                         std::string description, std::vector<ConfigRule> rules) {
  return add(
      {std::move(name), ConfigType::int_list, std::move(def), std::move(description), std::move(rules)});
}

ConfigSchema& ConfigSchema::add_double_list(std::string name, std::vector<double> def,
                                            std::string description, std::vector<ConfigRule> rules) {
  return add(
      {std::move(name), ConfigType::double_list, std::move(def), std::move(description), std::move(rules)});
}

ConfigSchema& ConfigSchema::add_string_list(std::string name, std::vector<std::string> def,
                                            std::string description, std::vector<ConfigRule> rules) {
  return add(
      {std::move(name), ConfigType::string_list, std::move(def), std::move(description), std::move(rules)});
}

ConfigSchema& ConfigSchema::add_required(std::string name, ConfigType type, std::string description,
                                         std::vector<ConfigRule> rules) {
  return add({std::move(name), type, std::nullopt, std::move(description), std::move(rules)});
}

std::optional<std::size_t> ConfigSchema::index_of(std::string_view name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

const ConfigKey* ConfigSchema::find(std::string_view name) const {
  const auto i = index_of(name);
  return i ? &keys_[*i] : nullptr;
}

bool ConfigSchema::is_table(std::string_view path) const {
  return tables_.find(path) != tables_.end();
}

std::optional<std::string> ConfigSchema::closest_key(std::string_view name) const {
  const ConfigKey* best = nullptr;
  std::size_t best_distance = std::string::npos;
  for (const auto& key : keys_) {
    const std::size_t d = edit_distance(name, key.name);
    if (d < best_distance) best = &key, best_distance = d;
  }
  if (best && best_distance <= std::max<std::size_t>(2, name.size() / 6)) return best->name;
  // Same final name in another table: typically a missing or misspelt [section] header.
  for (const auto& key : keys_)
    if (last_segment(key.name) == last_segment(name)) return key.name;
  return std::nullopt;
}

namespace {

std::string default_text(const ConfigKey& key) {
  return key.default_value ? config_value_to_toml(*key.default_value) : "required";
}

std::string help_line(const ConfigKey& key, std::size_t name_width, std::size_t default_width) {
  std::string line = "  " + key.name;
  line.append(name_width + 2 - key.name.size(), ' ');
  std::string type(config_type_name(key.type));
  line += type + std::string(16 - std::min<std::size_t>(type.size(), 15), ' ');
  const std::string def = default_text(key);
  line += def + std::string(def.size() < default_width ? default_width + 2 - def.size() : 2, ' ');
  line += key.description;
  for (std::size_t i = 0; i < key.rules.size(); ++i)
    line += (i ? "; " : " [") + requirement(key.rules[i], key.type) + (i + 1 == key.rules.size() ? "]" : "");
  return line;
}

}  // namespace

std::string ConfigSchema::help_text() const {
  constexpr std::size_t kMaxDefaultWidth = 20;  // a long list default may push its description right
  std::size_t name_width = 0, default_width = 0;
  for (const auto& key : keys_) {
    name_width = std::max(name_width, key.name.size());
    default_width = std::max(default_width, std::min(default_text(key).size(), kMaxDefaultWidth));
  }
  std::string out =
      "Configuration keys (set in the TOML file, or on the command line as --section.key=value):\n";
  std::string_view section;
  for (const auto& key : keys_) {
    const std::string_view this_section = std::string_view(key.name).substr(0, key.name.find('.'));
    if (!section.empty() && this_section != section) out += '\n';
    section = this_section;
    out += help_line(key, name_width, default_width) + '\n';
  }
  return out;
}

// ---------------------------------------------------------------- conversion of parsed values

namespace {

std::optional<std::int64_t> node_int(const toml::node& n) {
  if (const auto* i = n.as_integer()) return i->get();
  if (const auto* d = n.as_floating_point()) return exact_integer(d->get());
  return std::nullopt;
}

std::optional<double> node_double(const toml::node& n) {
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  if (const auto* d = n.as_floating_point()) return d->get();
  return std::nullopt;
}

std::optional<bool> node_bool(const toml::node& n) {
  if (const auto* b = n.as_boolean()) return b->get();
  return std::nullopt;
}

std::optional<std::string> node_string(const toml::node& n) {
  if (const auto* s = n.as_string()) return s->get();
  return std::nullopt;
}

template <class T, class Fn>
std::optional<ConfigValue> node_list(const toml::node& n, Fn element) {
  const auto* array = n.as_array();
  if (!array) return std::nullopt;
  std::vector<T> out;
  for (const toml::node& e : *array) {
    auto v = element(e);
    if (!v) return std::nullopt;
    out.push_back(std::move(*v));
  }
  return out;
}

template <class T>
std::optional<ConfigValue> widen(std::optional<T> v) {
  if (!v) return std::nullopt;
  return ConfigValue(std::move(*v));
}

// nullopt when the node does not hold a value of `type`.
std::optional<ConfigValue> from_node(const toml::node& n, ConfigType type) {
  switch (type) {
    case ConfigType::int64:
      return widen(node_int(n));
    case ConfigType::float64:
      return widen(node_double(n));
    case ConfigType::boolean:
      return widen(node_bool(n));
    case ConfigType::string:
      return widen(node_string(n));
    case ConfigType::int_list:
      return node_list<std::int64_t>(n, node_int);
    case ConfigType::double_list:
      return node_list<double>(n, node_double);
    case ConfigType::string_list:
      return node_list<std::string>(n, node_string);
  }
  return std::nullopt;
}

// A short rendering of what the user wrote, for error messages.
std::string node_text(const toml::node& n) {
  if (n.is_table()) return "a table";
  std::ostringstream os;
  n.visit([&os](const auto& v) { os << v; });
  std::string text = os.str();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

std::string_view node_kind(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::integer:
      return "int";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "bool";
    case toml::node_type::string:
      return "string";
    case toml::node_type::array:
      return "array";
    case toml::node_type::table:
      return "table";
    default:
      return "date/time";
  }
}

// ---------------------------------------------------------------- command-line values

// The strict number readers (core/parse_number.hpp); blanks around an override's value are allowed.
std::optional<double> parse_double(std::string_view s) {
  return read_real(trim(s));
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  return read_integer(trim(s));
}

std::optional<bool> parse_bool(std::string_view s) {
  s = trim(s);
  if (s == "true") return true;
  if (s == "false") return false;
  return std::nullopt;
}

// One pair of matching outer quotes is dropped ("--data.path='a b.h5'" survives shells that keep them).
std::string unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  return std::string(s);
}

std::optional<ConfigValue> parse_scalar_text(ConfigType type, std::string_view text) {
  switch (type) {
    case ConfigType::int64:
      return widen(parse_int(text));
    case ConfigType::float64:
      return widen(parse_double(text));
    case ConfigType::boolean:
      return widen(parse_bool(text));
    default:
      return ConfigValue(unquote(text));
  }
}

// "[512, 256]" is read as a TOML array, anything else as comma-separated elements ("" is empty).
std::optional<ConfigValue> parse_list_text(ConfigType type, std::string_view text) {
  const std::string_view t = trim(text);
  if (!t.empty() && t.front() == '[') {
    try {
      const toml::table doc = toml::parse("v = " + std::string(t));
      if (doc.size() != 1) return std::nullopt;  // "[1]\nz = 2" smuggles in a second key
      return from_node(*doc.get("v"), type);
    } catch (const toml::parse_error&) {
      return std::nullopt;
    }
  }
  std::vector<ConfigValue> elements;
  if (!t.empty())
    for (const auto& part : split(t, ',')) {
      auto v = parse_scalar_text(element_type(type), type == ConfigType::string_list ? trim(part) : part);
      if (!v) return std::nullopt;
      elements.push_back(std::move(*v));
    }
  auto collect = [&](auto list) -> ConfigValue {
    for (auto& e : elements) list.push_back(std::get<typename decltype(list)::value_type>(std::move(e)));
    return list;
  };
  if (type == ConfigType::int_list) return collect(std::vector<std::int64_t>{});
  if (type == ConfigType::double_list) return collect(std::vector<double>{});
  return collect(std::vector<std::string>{});
}

bool all_strings_utf8(const ConfigValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return valid_utf8(*s);
  if (const auto* list = std::get_if<std::vector<std::string>>(&v))
    return std::all_of(list->begin(), list->end(), [](const std::string& s) { return valid_utf8(s); });
  return true;
}

std::string type_hint(ConfigType type) {
  switch (type) {
    case ConfigType::int_list:
      return " (write 512,256 or [512, 256])";
    case ConfigType::double_list:
      return " (write 0.1,1e-3 or [0.1, 1e-3])";
    case ConfigType::string_list:
      return " (write a,b or [\"a\", \"b\"])";
    case ConfigType::boolean:
      return " (write true or false)";
    default:
      return "";
  }
}

ConfigValue parse_override_value(const ConfigKey& key, const std::string& text) {
  auto v = is_list(key.type) ? parse_list_text(key.type, text) : parse_scalar_text(key.type, text);
  if (!v)
    throw InputError("cannot read the value given on the command line: expected " +
                         std::string(config_type_name(key.type)) + type_hint(key.type),
                     ErrorContext("", key.name, text));
  if (!all_strings_utf8(*v))
    throw InputError("value given on the command line is not valid UTF-8", ErrorContext("", key.name, text));
  return std::move(*v);
}

// ---------------------------------------------------------------- resolution

std::string suggestion(const ConfigSchema& schema, std::string_view name) {
  const auto near = schema.closest_key(name);
  return near ? "; did you mean " + *near + "?" : "";
}

std::string position_text(const toml::source_region& where) {
  if (where.begin.line == 0) return "";
  return " at line " + std::to_string(where.begin.line) + ", column " + std::to_string(where.begin.column);
}

// A TOML key path as dotted text; a quoted segment stays quoted, so it never matches a (bare) schema key.
std::string dotted(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& segment : path)
    out += (out.empty() ? "" : ".") + (is_bare_key(segment) ? segment : toml_quote(segment));
  return out;
}

struct Slot {
  std::optional<ConfigValue> value;
  ConfigSource source = ConfigSource::default_value;
  std::string position;  // " at line 3, column 14" for file values
};

class Resolver {
 public:
  Resolver(const ConfigSchema& schema, std::string source_name)
      : schema_(schema), source_name_(std::move(source_name)) {
    for (const auto& key : schema.keys())
      slots_.push_back({key.default_value, ConfigSource::default_value, ""});
  }

  void read_toml(std::string_view text) {
    toml::table doc;
    try {
      doc = toml::parse(text, source_name_);
    } catch (const toml::parse_error& e) {
      throw InputError("malformed TOML" + position_text(e.source()) + ": " + std::string(e.description()),
                       ErrorContext(source_name_));
    }
    std::vector<std::string> path;
    visit_table(doc, path);
  }

  void apply_override(const std::string& assignment) {
    const auto eq = assignment.find('=');
    const std::string name(trim(std::string_view(assignment).substr(0, eq)));
    if (eq == std::string::npos || name.empty())
      throw InputError("command-line override must look like section.key=value",
                       ErrorContext("", "", assignment));
    const auto i = schema_.index_of(name);
    if (!i)
      throw InputError("unknown config key on the command line" + suggestion(schema_, name),
                       ErrorContext("", name, assignment.substr(eq + 1)));
    slots_[*i] = {parse_override_value(schema_.keys()[*i], assignment.substr(eq + 1)),
                  ConfigSource::command_line, ""};
  }

  // Every key has a value, and every value passes its rules.
  void check() const {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const ConfigKey& key = schema_.keys()[i];
      if (!slots_[i].value)
        throw InputError(
            "missing required config key; set it in the config file or with --" + key.name + "=...",
            ErrorContext(source_name_, key.name));
      for (const auto& rule : key.rules)
        if (!rule.accepts(*slots_[i].value)) throw rule_error(i, rule);
    }
  }

  std::vector<ConfigValue> values() && {
    std::vector<ConfigValue> out;
    for (auto& slot : slots_) out.push_back(std::move(*slot.value));
    return out;
  }

  std::vector<ConfigSource> sources() const {
    std::vector<ConfigSource> out;
    for (const auto& slot : slots_) out.push_back(slot.source);
    return out;
  }

 private:
  void visit_table(const toml::table& table, std::vector<std::string>& path) {
    for (auto&& [k, node] : table) {
      path.emplace_back(k.str());
      visit(node, k.source(), path);
      path.pop_back();
    }
  }

  // key_source: where the key itself was written (unknown keys point there, wrong values at the value).
  void visit(const toml::node& node, const toml::source_region& key_source, std::vector<std::string>& path) {
    const std::string name = dotted(path);
    if (const auto i = schema_.index_of(name)) return assign(*i, node);
    if (!schema_.is_table(name)) throw unknown_key(node, key_source, path);
    if (const auto* table = node.as_table()) return visit_table(*table, path);
    throw InputError("wrong type for config key" + position_text(node.source()) +
                         ": expected a table of keys (" + name + ".*), got " + std::string(node_kind(node)),
                     ErrorContext(source_name_, name, node_text(node)));
  }

  void assign(std::size_t i, const toml::node& node) {
    const ConfigKey& key = schema_.keys()[i];
    auto value = from_node(node, key.type);
    if (!value)
      throw InputError("wrong type for config key" + position_text(node.source()) + ": expected " +
                           std::string(config_type_name(key.type)) + ", got " + std::string(node_kind(node)),
                       ErrorContext(source_name_, key.name, node_text(node)));
    slots_[i] = {std::move(value), ConfigSource::file, position_text(node.source())};
  }

  // Names the first leaf under an unknown table, so the message shows the full dotted path.
  InputError unknown_key(const toml::node& node, toml::source_region where,
                         std::vector<std::string>& path) const {
    const toml::node* leaf = &node;
    while (const auto* table = leaf->as_table()) {
      if (table->empty()) break;
      path.emplace_back(table->cbegin()->first.str());
      where = table->cbegin()->first.source();
      leaf = &table->cbegin()->second;
    }
    const std::string name = dotted(path);
    return InputError("unknown config key" + position_text(where) + suggestion(schema_, name),
                      ErrorContext(source_name_, name));
  }

  InputError rule_error(std::size_t i, const ConfigRule& rule) const {
    const ConfigKey& key = schema_.keys()[i];
    const Slot& slot = slots_[i];
    const bool from_file = slot.source == ConfigSource::file;
    const std::string where =
        from_file ? "; set in the config file" + slot.position : "; set on the command line";
    return InputError(
        "invalid config value: " + requirement(rule, key.type) + where,
        ErrorContext(from_file ? source_name_ : "", key.name, config_value_to_toml(*slot.value)));
  }

  const ConfigSchema& schema_;
  std::string source_name_;
  std::vector<Slot> slots_;
};

std::string read_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError("config file not found", ErrorContext(path));
  if (fs::is_directory(path, ec)) throw InputError("config file path is a directory", ErrorContext(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open config file", ErrorContext(path));
  // Not `stream << rdbuf()`: that sets failbit on an empty file, which is a valid (all-default) config.
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError("cannot read config file", ErrorContext(path));
  return text;
}

}  // namespace

Config resolve_config_text(const ConfigSchema& schema, std::string_view toml_text,
                           const std::string& source_name, const std::vector<std::string>& overrides) {
  Resolver resolver(schema, source_name);
  resolver.read_toml(toml_text);
  for (const auto& assignment : overrides) resolver.apply_override(assignment);
  resolver.check();
  auto sources = resolver.sources();
  return Config(schema, std::move(resolver).values(), std::move(sources));
}

Config resolve_config(const ConfigSchema& schema, const std::string& toml_path_or_empty,
                      const std::vector<std::string>& overrides) {
  const std::string text = toml_path_or_empty.empty() ? std::string() : read_file(toml_path_or_empty);
  return resolve_config_text(schema, text, toml_path_or_empty, overrides);
}

// ---------------------------------------------------------------- Config

Config::Config(ConfigSchema schema, std::vector<ConfigValue> values, std::vector<ConfigSource> sources)
    : schema_(std::move(schema)), values_(std::move(values)), sources_(std::move(sources)) {}

std::size_t Config::index_or_throw(std::string_view key) const {
  const auto i = schema_.index_of(key);
  if (!i) throw Error("undeclared config key requested", ErrorContext("", std::string(key)));
  return *i;
}

std::size_t Config::checked_index(std::string_view key, ConfigType wanted) const {
  const std::size_t i = index_or_throw(key);
  const ConfigType actual = schema_.keys()[i].type;
  if (actual != wanted)
    throw Error("config key is a " + std::string(config_type_name(actual)) + ", requested as " +
                    std::string(config_type_name(wanted)),
                ErrorContext("", std::string(key)));
  return i;
}

std::int64_t Config::get_int(std::string_view key) const {
  return std::get<std::int64_t>(values_[checked_index(key, ConfigType::int64)]);
}
double Config::get_double(std::string_view key) const {
  return std::get<double>(values_[checked_index(key, ConfigType::float64)]);
}
bool Config::get_bool(std::string_view key) const {
  return std::get<bool>(values_[checked_index(key, ConfigType::boolean)]);
}
const std::string& Config::get_string(std::string_view key) const {
  return std::get<std::string>(values_[checked_index(key, ConfigType::string)]);
}
const std::vector<std::int64_t>& Config::get_int_list(std::string_view key) const {
  return std::get<std::vector<std::int64_t>>(values_[checked_index(key, ConfigType::int_list)]);
}
const std::vector<double>& Config::get_double_list(std::string_view key) const {
  return std::get<std::vector<double>>(values_[checked_index(key, ConfigType::double_list)]);
}
const std::vector<std::string>& Config::get_string_list(std::string_view key) const {
  return std::get<std::vector<std::string>>(values_[checked_index(key, ConfigType::string_list)]);
}
const ConfigValue& Config::get(std::string_view key) const {
  return values_[index_or_throw(key)];
}
ConfigSource Config::source(std::string_view key) const {
  return sources_[index_or_throw(key)];
}

bool operator==(const Config& a, const Config& b) {
  const auto& ka = a.schema_.keys();
  const auto& kb = b.schema_.keys();
  auto same_name = [](const ConfigKey& x, const ConfigKey& y) { return x.name == y.name; };
  return std::equal(ka.begin(), ka.end(), kb.begin(), kb.end(), same_name) && a.values_ == b.values_;
}

namespace {

// Keys grouped by table, tables in order of first appearance in the schema: both writers walk this.
struct TableNode {
  std::string name;
  std::vector<std::size_t> keys;  // schema indices of the values directly in this table
  std::vector<TableNode> children;
};

TableNode table_tree(const ConfigSchema& schema) {
  TableNode root;
  for (std::size_t i = 0; i < schema.keys().size(); ++i) {
    const auto segments = split(schema.keys()[i].name, '.');
    TableNode* node = &root;
    for (std::size_t s = 0; s + 1 < segments.size(); ++s) {
      auto& kids = node->children;
      auto it =
          std::find_if(kids.begin(), kids.end(), [&](const TableNode& t) { return t.name == segments[s]; });
      node = it != kids.end() ? &*it : &kids.emplace_back(TableNode{segments[s], {}, {}});
    }
    node->keys.push_back(i);
  }
  return root;
}

void write_toml(const TableNode& table, const std::string& path, const Config& config, std::string& out) {
  if (!table.keys.empty()) {
    out += (out.empty() ? "[" : "\n[") + path + "]\n";
    for (const std::size_t i : table.keys) {
      const std::string& name = config.schema().keys()[i].name;
      out += std::string(last_segment(name)) + " = " + config_value_to_toml(config.get(name)) + "\n";
    }
  }
  for (const auto& child : table.children)
    write_toml(child, path.empty() ? child.name : path + "." + child.name, config, out);
}

void write_json_value(JsonWriter& json, const ConfigValue& value) {
  std::visit(
      [&json](const auto& v) {
        if constexpr (requires { v.begin(); } && !std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
          json.begin_array();
          for (const auto& e : v) json.value(e);
          json.end_array();
        } else {
          json.value(v);
        }
      },
      value);
}

void write_json(const TableNode& table, const Config& config, JsonWriter& json) {
  json.begin_object();
  for (const std::size_t i : table.keys) {
    const std::string& name = config.schema().keys()[i].name;
    json.key(last_segment(name));
    write_json_value(json, config.get(name));
  }
  for (const auto& child : table.children) {
    json.key(child.name);
    write_json(child, config, json);
  }
  json.end_object();
}

}  // namespace

std::string Config::to_toml() const {
  std::string out;
  write_toml(table_tree(schema_), "", *this, out);
  return out;
}

std::string Config::to_json(int indent) const {
  JsonWriter json(indent);
  write_json(table_tree(schema_), *this, json);
  return json.str();
}

}  // namespace gplvm
