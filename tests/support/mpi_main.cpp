// main() for MPI test binaries: MPI_Init around GoogleTest, and only rank 0 prints results so the
// ctest log shows one report per run. A failure on any rank fails the process (non-zero exit).
// Threads per rank come from OMP_NUM_THREADS (1 when unset), as in gplvm itself: the hybrid
// variants in tests/CMakeLists.txt run the same tests with several threads per rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include "gplvm/core/threads.hpp"

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);  // as gplvm: threads never call MPI
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
  MPI_Finalize();
  return any_failed;
}
