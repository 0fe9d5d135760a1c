// main() for MPI test binaries: MPI around GoogleTest (gplvm's MpiEnvironment), and only rank 0
// prints results so the ctest log shows one report per run. A failure on any rank fails the process (non-zero
// exit). Threads per rank come from OMP_NUM_THREADS (1 when unset), as in gplvm itself: the hybrid variants
// in tests/CMakeLists.txt run the same tests with several threads per rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include "gplvm/core/threads.hpp"
#include "gplvm/parallel/communicator.hpp"

int main(int argc, char** argv) {
  const gplvm::MpiEnvironment mpi(&argc, &argv);  // as gplvm initialises it; finalised at return
  gplvm::threads_from_environment();
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
