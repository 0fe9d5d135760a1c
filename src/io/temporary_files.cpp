#include "gplvm/io/temporary_files.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "gplvm/core/log.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

// Both kinds of temporary name, with the writer's process id as the first group.
const std::regex& temporary_pattern() {
  static const std::regex pattern(R"((?:.+\.tmp-|\.gplvm-write-probe-)([0-9]+)-[0-9a-f]{1,16})");
  return pattern;
}

// When this process started, from /proc (clock ticks after boot, plus the boot time): files older
// than that cannot belong to it or to any writer it started.
double process_start_time() {
  std::ifstream stat_file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  // Field 22 (starttime) counts from the field after the command name, which may hold spaces.
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i < 22 && fields >> field;) ++i;
  unsigned long long start_ticks = 0;
  fields >> start_ticks;
  std::ifstream boot_file("/proc/stat");
  long long boot_seconds = 0;
  for (std::string key; boot_file >> key;) {
    if (key == "btime") {
      boot_file >> boot_seconds;
      break;
    }
  }
  return static_cast<double>(boot_seconds) +
         static_cast<double>(start_ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

bool process_alive(long long pid) {
  if (pid <= 0 || pid == ::getpid()) return pid == ::getpid();
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// Seconds since the epoch of the file's last modification; +Inf when it cannot be read (kept).
double modification_time(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return HUGE_VAL;
  return static_cast<double>(info.st_mtim.tv_sec) + 1e-9 * static_cast<double>(info.st_mtim.tv_nsec);
}

}  // namespace

std::string unique_temporary_suffix() {
  std::random_device device;
  const std::uint64_t bits = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  std::ostringstream out;
  out << ::getpid() << '-' << std::hex << bits;
  return out.str();
}

std::string temporary_path(const std::string& final_path, const std::string& suffix) {
  return final_path + ".tmp-" + suffix;
}

bool is_temporary_name(const std::string& file_name) {
  return std::regex_match(file_name, temporary_pattern());
}

std::vector<std::string> remove_stale_temporaries(const std::string& directory) {
  std::vector<std::string> removed;
  const double started = process_start_time();
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory.empty() ? "." : directory, ec)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, match, temporary_pattern()) || !entry.is_regular_file(ec)) continue;
    if (modification_time(entry.path()) >= started || process_alive(std::stoll(match[1].str()))) continue;
    if (fs::remove(entry.path(), ec)) removed.push_back(entry.path().string());
  }
  return removed;
}

void clean_stale_temporaries_beside(const std::string& output_path, const Communicator& comm) {
  if (!comm.is_root()) return;
  const fs::path dir = fs::path(output_path).parent_path();
  for (const std::string& file : remove_stale_temporaries(dir.empty() ? "." : dir.string()))
    log_warning("removed a temporary file left by an interrupted writer: " + file);
}

}  // namespace gplvm
