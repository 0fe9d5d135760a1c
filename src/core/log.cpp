#include "gplvm/core/log.hpp"

#include <cstdio>
#include <mutex>

namespace gplvm {
namespace {

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warning:
      return "warning";
    case LogLevel::error:
      return "error";
  }
  return "?";
}

struct LogState {
  std::mutex mutex;
  LogSink sink;
  LogLevel threshold = LogLevel::info;
  std::string prefix;
};

LogState& state() {
  static LogState s;
  return s;
}

}  // namespace

LogSink set_log_sink(LogSink sink) {
  std::lock_guard<std::mutex> lock(state().mutex);
  std::swap(state().sink, sink);
  return sink;
}

void set_log_level(LogLevel level) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().threshold = level;
}

void set_log_prefix(std::string prefix) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().prefix = std::move(prefix);
}

void log_message(LogLevel level, const std::string& message) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (level < state().threshold) return;
  if (state().sink) {
    state().sink(level, message);
    return;
  }
  // One fprintf per line so lines from concurrent ranks do not interleave mid-line in SLURM logs.
  std::fprintf(stderr, "%sgplvm %s: %s\n", state().prefix.c_str(), level_name(level), message.c_str());
}

std::string format_duration(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60)
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lds", s);
  return text;
}

}  // namespace gplvm
