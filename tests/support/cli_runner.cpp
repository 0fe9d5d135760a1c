#include "support/cli_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

namespace gplvm::testing {

ScratchDir::ScratchDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("gplvm-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

CliResult run_gplvm(const std::string& args, int ranks, const ScratchDir& dir,
                    const std::string& environment) {
  std::string launcher = environment.empty() ? "" : environment + " ";
  if (ranks > 0)
    launcher += std::string(GPLVM_MPIEXEC) + " -n " + std::to_string(ranks) + " " + GPLVM_MPI_FLAGS + " ";
  const auto out = dir.path() / ".stdout", err = dir.path() / ".stderr";
  const std::string command = "cd '" + dir.path().string() + "' && " + launcher + GPLVM_CLI + " " + args +
                              " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace gplvm::testing
