#include "gplvm/core/launcher_exit.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <string>

namespace gplvm {
namespace {

bool is_open_mpi_launcher(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(file, name);
  static const std::array<const char*, 6> launchers = {"mpirun",  "mpiexec", "orterun",
                                                       "prterun", "orted",   "prted"};
  for (const char* launcher : launchers)
    if (name == launcher) return true;
  return false;
}

}  // namespace

void end_with_mpi_launcher() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return;  // not started by Open MPI
  const pid_t parent = getppid();
  if (!is_open_mpi_launcher(parent)) return;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The launcher may have died before the request took effect: then no signal comes.
  if (getppid() != parent) raise(SIGKILL);
}

}  // namespace gplvm
