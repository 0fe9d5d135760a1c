// The t-SNE repulsion by FFT-accelerated interpolation (include/gplvm/probdr/interpolated_repulsion.hpp),
// time per call on a 1-D or 2-D embedding of n rows split over the ranks, against two baselines in
// the same run:
//   - the grid alone: the same grid with one row per rank (extent fixed by two corner rows), i.e. the
//     allreduce of the charges and the replicated FFT convolutions, the part that does not shrink
//     with more ranks;
//   - the exact sums on the first --exact-rows rows (O(n^2 / P)), with the interpolation's relative
//     error of Z and F there.
// Each time is the best of --repeats calls through one reused workspace, the slowest rank's.
// Rows: five Gaussian clusters spread over --extent per dimension (the shape of a t-SNE embedding).
//
//   [mpirun -n P] bench_interpolated_repulsion [--rows 100000,1000000] [--dims 2] [--extent 60]
//       [--nodes 3] [--min-boxes 50] [--repeats 5] [--exact-rows 10000]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/probdr/interpolated_repulsion.hpp"

namespace gplvm {
namespace {

struct Options {
  std::vector<Index> rows{100000, 1000000};
  Index dims = 2, exact_rows = 10000;
  double extent = 60.0;
  InterpolationOptions grid;
  int repeats = 5;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--rows") {
      o.rows.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) o.rows.push_back(std::stol(item));
    } else if (key == "--dims") {
      o.dims = std::stol(value);
    } else if (key == "--extent") {
      o.extent = std::stod(value);
    } else if (key == "--nodes") {
      o.grid.nodes_per_box = std::stol(value);
    } else if (key == "--min-boxes") {
      o.grid.min_boxes = std::stol(value);
    } else if (key == "--repeats") {
      o.repeats = std::stoi(value);
    } else if (key == "--exact-rows") {
      o.exact_rows = std::stol(value);
    } else {
      throw InputError("unknown option", {"", key, value});
    }
  }
  return o;
}

// A uniform number in (0, 1] from a counter (splitmix64).
double uniform(std::uint64_t counter) {
  std::uint64_t x = counter * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return (static_cast<double>((x ^ (x >> 31)) >> 11) + 1.0) * 0x1p-53;
}

// This rank's rows [first, first + count) of the clustered embedding (row i's coordinates from its
// own counters, so the rows do not depend on the rank count).
RowMatrix embedding_rows(Index first, Index count, Index dims, double extent) {
  RowMatrix y(count, dims);
  for (Index i = 0; i < count; ++i) {
    const std::uint64_t row = static_cast<std::uint64_t>(first + i);
    const Index cluster = (first + i) % 5;
    for (Index d = 0; d < dims; ++d) {
      const std::uint64_t counter = 4 * row + 2 * static_cast<std::uint64_t>(d);
      const double normal =
          std::sqrt(-2.0 * std::log(uniform(counter))) * std::cos(6.283185307179586 * uniform(counter + 1));
      y(i, d) = extent * (0.2 * static_cast<double>((cluster * (d + 2)) % 5) - 0.4) + 0.05 * extent * normal;
    }
  }
  return y;
}

RowMatrix local_rows(Index n, Index dims, double extent, const Communicator& comm) {
  const RowPartition partition(static_cast<std::uint64_t>(n), comm.size());
  return embedding_rows(static_cast<Index>(partition.begin(comm.rank())),
                        static_cast<Index>(partition.count(comm.rank())), dims, extent);
}

template <typename F>
double best_seconds(int repeats, const Communicator& comm, F&& call) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    comm.barrier();
    const auto start = std::chrono::steady_clock::now();
    call();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, comm.allreduce_max(seconds));
  }
  return best;
}

int run(int argc, char** argv) {
  const Communicator comm;
  const Options o = parse(argc, argv);
  if (comm.is_root())
    std::printf("ranks %d, threads per rank %d, l = %ld, %ld nodes per box, min boxes %ld, extent %.0f\n",
                comm.size(), threads_per_rank(), static_cast<long>(o.dims),
                static_cast<long>(o.grid.nodes_per_box), static_cast<long>(o.grid.min_boxes), o.extent);
  for (const Index n : o.rows) {
    const RowMatrix y = local_rows(n, o.dims, o.extent, comm);
    InterpolatedRepulsion repulsion(o.grid);
    RepulsionSums sums;
    const double seconds = best_seconds(o.repeats, comm, [&] { sums = repulsion.evaluate(y, 1.0, comm); });
    // The same grid for one row per rank: two rows on rank 0 fix the extent.
    RowMatrix corners(comm.is_root() ? 2 : 1, o.dims);
    for (Index d = 0; d < o.dims; ++d) {
      corners(0, d) = comm.allreduce_max(y.rows() > 0 ? -y.col(d).minCoeff() : -1e300) * -1.0;
      corners(corners.rows() - 1, d) = comm.allreduce_max(y.rows() > 0 ? y.col(d).maxCoeff() : -1e300);
    }
    InterpolatedRepulsion grid_only(o.grid);
    RepulsionSums grid_sums;
    const double grid_seconds =
        best_seconds(o.repeats, comm, [&] { grid_sums = grid_only.evaluate(corners, 1.0, comm); });
    if (comm.is_root())
      std::printf(
          "n = %9ld: %8.4f s per call (%ld boxes per dimension); the grid alone %8.4f s (%ld boxes)\n",
          static_cast<long>(n), seconds, static_cast<long>(sums.boxes_per_dimension), grid_seconds,
          static_cast<long>(grid_sums.boxes_per_dimension));
  }
  if (o.exact_rows > 0) {
    const RowMatrix y = local_rows(o.exact_rows, o.dims, o.extent, comm);
    RepulsionSums exact, approximate;
    const double exact_seconds = best_seconds(1, comm, [&] { exact = exact_repulsion(y, 1.0, comm); });
    InterpolatedRepulsion repulsion(o.grid);
    const double seconds =
        best_seconds(o.repeats, comm, [&] { approximate = repulsion.evaluate(y, 1.0, comm); });
    const double z_error = std::abs(approximate.normaliser - exact.normaliser) / exact.normaliser;
    const double f_error = std::sqrt(comm.allreduce_sum((approximate.forces - exact.forces).squaredNorm()) /
                                     comm.allreduce_sum(exact.forces.squaredNorm()));
    if (comm.is_root())
      std::printf("n = %9ld: %8.4f s per call, exact sums %8.4f s; relative error of Z %.1e, of F %.1e\n",
                  static_cast<long>(o.exact_rows), seconds, exact_seconds, z_error, f_error);
  }
  return 0;
}

}  // namespace
}  // namespace gplvm

int main(int argc, char** argv) {
  const gplvm::MpiEnvironment mpi(&argc, &argv);
  gplvm::threads_from_environment();
  try {
    return gplvm::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_interpolated_repulsion: %s\n", e.what());
    return 1;
  }
}
