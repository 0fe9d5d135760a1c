#pragma once
// Command-line parsing shared by the gplvm subcommands:
//   gplvm <command> [--option value | --option=value | --flag | --section.key=value ...]
// Options a command does not declare are errors naming the option; `--a.b=c` (a dotted name) is a
// config override passed through to the config resolver, which rejects unknown keys.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gplvm {

struct OptionSpec {
  std::string name;         // without dashes
  bool takes_value = true;  // false: a flag
  std::string help;
};

// Comma-separated numbers ("0.5,-1.2"), each a finite real read strictly (core/parse_number.hpp);
// InputError naming `option`, the whole text and the item for an empty, non-numeric or infinite one.
std::vector<double> parse_real_list(const std::string& text, const std::string& option);

class CommandLine {
 public:
  CommandLine(std::string command, std::vector<OptionSpec> options, bool accepts_overrides);
  // Throws InputError naming an unknown option or a missing value.
  void parse(const std::vector<std::string>& args);

  bool has(const std::string& name) const;
  std::optional<std::string> value(const std::string& name) const;
  std::string value_or(const std::string& name, const std::string& fallback) const;
  std::string required(const std::string& name) const;  // InputError naming the option if absent
  // Numeric options, read by the strict parser (core/parse_number.hpp): `fallback` when absent, else the
  // whole value as a number in [min, max] or an InputError naming the option and its value.
  std::int64_t integer_or(const std::string& name, std::int64_t fallback, std::int64_t min,
                          std::int64_t max) const;
  std::uint64_t unsigned_or(const std::string& name, std::uint64_t fallback, std::uint64_t min = 0,
                            std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  double real_or(const std::string& name, double fallback, double min, double max) const;
  const std::vector<std::string>& overrides() const { return overrides_; }
  const std::vector<std::string>& positional() const { return positional_; }
  std::string help(const std::string& summary) const;

 private:
  const OptionSpec* find(const std::string& name) const;

  std::string command_;
  std::vector<OptionSpec> specs_;
  bool accepts_overrides_;
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::vector<std::string> overrides_;
  std::vector<std::string> positional_;
};

}  // namespace gplvm
