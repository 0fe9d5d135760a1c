#include "gplvm/apps/command_line.hpp"

#include <cmath>
#include <sstream>

#include "gplvm/core/error.hpp"
#include "gplvm/core/parse_number.hpp"

namespace gplvm {

std::vector<double> parse_real_list(const std::string& text, const std::string& option) {
  std::vector<double> values;
  for (std::size_t begin = 0;;) {
    const std::size_t comma = text.find(',', begin);
    // Every item is read, the empty one after a trailing comma too, so "1,2," is an error.
    const std::string item = text.substr(begin, comma - begin);
    const std::optional<double> v = read_real(item);
    require(v && std::isfinite(*v), "expected comma-separated finite numbers, found '" + item + "'",
            {"", option, text});
    values.push_back(*v);
    if (comma == std::string::npos) return values;
    begin = comma + 1;
  }
}

CommandLine::CommandLine(std::string command, std::vector<OptionSpec> options, bool accepts_overrides)
    : command_(std::move(command)), specs_(std::move(options)), accepts_overrides_(accepts_overrides) {
  specs_.push_back({"help", false, "print this help and exit"});
  specs_.push_back({"json", false, "print the summary as one JSON object on stdout"});
}

const OptionSpec* CommandLine::find(const std::string& name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

void CommandLine::parse(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0) {
      positional_.push_back(arg);
      continue;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const OptionSpec* spec = find(name);
    if (!spec && name.find('.') != std::string::npos) {
      require(accepts_overrides_, "gplvm " + command_ + " takes no config overrides", {"", arg, ""});
      require(eq != std::string::npos, "config override needs a value: --section.key=value", {"", name, ""});
      overrides_.push_back(arg.substr(2));
      continue;
    }
    require(spec != nullptr, "unknown option for gplvm " + command_ + " (see --help)", {"", "--" + name, ""});
    if (!spec->takes_value) {
      require(eq == std::string::npos, "option takes no value", {"", "--" + name, arg.substr(eq + 1)});
      flags_.insert(name);
      continue;
    }
    if (eq != std::string::npos) {
      values_[name] = arg.substr(eq + 1);
    } else {
      require(i + 1 < args.size(), "option needs a value", {"", "--" + name, ""});
      values_[name] = args[++i];
    }
  }
}

bool CommandLine::has(const std::string& name) const {
  return flags_.count(name) || values_.count(name);
}

std::optional<std::string> CommandLine::value(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string CommandLine::value_or(const std::string& name, const std::string& fallback) const {
  return value(name).value_or(fallback);
}

std::string CommandLine::required(const std::string& name) const {
  const auto v = value(name);
  require(v.has_value(), "gplvm " + command_ + " needs --" + name, {"", "--" + name, ""});
  return *v;
}

std::int64_t CommandLine::integer_or(const std::string& name, std::int64_t fallback, std::int64_t min,
                                     std::int64_t max) const {
  const auto v = value(name);
  return v ? parse_integer(*v, {"", "--" + name}, min, max) : fallback;
}

std::uint64_t CommandLine::unsigned_or(const std::string& name, std::uint64_t fallback, std::uint64_t min,
                                       std::uint64_t max) const {
  const auto v = value(name);
  return v ? parse_unsigned(*v, {"", "--" + name}, min, max) : fallback;
}

double CommandLine::real_or(const std::string& name, double fallback, double min, double max) const {
  const auto v = value(name);
  return v ? parse_real(*v, {"", "--" + name}, min, max) : fallback;
}

std::string CommandLine::help(const std::string& summary) const {
  std::ostringstream s;
  s << "usage: gplvm " << command_ << " [options]" << (accepts_overrides_ ? " [--section.key=value ...]" : "")
    << "\n\n"
    << summary << "\n\noptions:\n";
  for (const auto& spec : specs_) {
    std::string left = "  --" + spec.name + (spec.takes_value ? " VALUE" : "");
    if (left.size() < 28) left.resize(28, ' ');
    s << left << " " << spec.help << "\n";
  }
  return s.str();
}

}  // namespace gplvm
