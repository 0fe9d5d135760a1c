#pragma once
// Runs the gplvm executable (optionally under mpirun) in a scratch directory and captures its exit
// code, stdout and stderr.
#include <filesystem>
#include <string>

namespace gplvm::testing {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// A fresh directory under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// `args` is appended to the gplvm command line verbatim (shell syntax); ranks = 0 runs without mpirun.
// `environment` is put before the launcher, e.g. "env -u OPENBLAS_CORETYPE".
CliResult run_gplvm(const std::string& args, int ranks, const ScratchDir& dir,
                    const std::string& environment = "");

void write_text(const std::string& path, const std::string& text);
// The whole file; empty when it cannot be read.
std::string read_text(const std::string& path);

}  // namespace gplvm::testing
