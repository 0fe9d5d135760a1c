#pragma once
// Line-oriented logging to stderr. A sink can be swapped in (tests capture warnings with it).
#include <functional>
#include <string>

namespace gplvm {

enum class LogLevel { debug, info, warning, error };

using LogSink = std::function<void(LogLevel, const std::string&)>;

// Installs a sink and returns the previous one; an empty sink restores the stderr default.
LogSink set_log_sink(LogSink sink);
// Messages below this level are dropped (default: info).
void set_log_level(LogLevel level);
// Prepended to every line, e.g. "[rank 3] ".
void set_log_prefix(std::string prefix);

void log_message(LogLevel level, const std::string& message);

// A duration for progress lines: "42s", "3m07s", "2h05m".
std::string format_duration(double seconds);
inline void log_debug(const std::string& m) {
  log_message(LogLevel::debug, m);
}
inline void log_info(const std::string& m) {
  log_message(LogLevel::info, m);
}
inline void log_warning(const std::string& m) {
  log_message(LogLevel::warning, m);
}
inline void log_error(const std::string& m) {
  log_message(LogLevel::error, m);
}

}  // namespace gplvm
