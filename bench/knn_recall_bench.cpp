// The approximate k-NN graph (graph.search = hnsw: one hnswlib index per rank, every query answered
// by every shard) against exact neighbours, on a data file, distributed over the ranks:
//   - wall time and peak resident memory (largest rank) of the whole hnsw graph;
//   - recall on a sample of rows (every (n / sample)-th row): the fraction of each sampled row's exact
//     k nearest other rows that the hnsw graph lists, and the same counting a listed neighbour as
//     found when it is no farther than the exact k-th (ties), averaged over the sample;
//   - the wall time of the exact search for the sample (blocked distances against every rank's rows).
//
//   mpirun -n 2 bench_knn_recall --data X.h5 [--dataset /Y] [--k 15] [--sample 10000] [--M 16]
//       [--ef-construction 200] [--ef 64]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_set>

#include "gplvm/core/error.hpp"
#include "gplvm/core/resource_usage.hpp"
#include "gplvm/graph/hnsw_neighbours.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/out_of_sample.hpp"

namespace gplvm {
namespace {

struct Options {
  std::string data, dataset = "/Y";
  Index k = 15, sample = 10000;
  HnswOptions hnsw;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--data")
      o.data = value;
    else if (key == "--dataset")
      o.dataset = value;
    else if (key == "--k")
      o.k = std::stol(value);
    else if (key == "--sample")
      o.sample = std::stol(value);
    else if (key == "--M")
      o.hnsw.M = std::stoi(value);
    else if (key == "--ef-construction")
      o.hnsw.ef_construction = std::stoi(value);
    else if (key == "--ef")
      o.hnsw.ef = std::stoi(value);
    else
      throw InputError("unknown option", {"", key, value});
  }
  require(!o.data.empty(), "--data is required", {"", "--data", ""});
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(const Communicator& comm, const Options& o) {
  const DistributedDataset data = load_distributed_dataset(o.data, o.dataset, "", comm);
  const std::uint64_t first = data.partition.begin(comm.rank());
  const Index local = data.local.rows();

  comm.barrier();
  auto start = std::chrono::steady_clock::now();
  const KnnGraph approximate = hnsw_neighbours(data.local, o.k, o.hnsw, comm);
  comm.barrier();
  const double hnsw_seconds = seconds_since(start);
  const double hnsw_rss = comm.allreduce_max(peak_resident_bytes());

  // The sample: global rows 0, s, 2s, ... with s = n / sample.
  const std::uint64_t stride = std::max<std::uint64_t>(1, data.rows / static_cast<std::uint64_t>(o.sample));
  std::vector<Index> mine;
  for (Index i = 0; i < local; ++i)
    if ((first + static_cast<std::uint64_t>(i)) % stride == 0) mine.push_back(i);
  RowMatrix queries(static_cast<Index>(mine.size()), data.local.cols());
  for (std::size_t s = 0; s < mine.size(); ++s) queries.row(static_cast<Index>(s)) = data.local.row(mine[s]);

  comm.barrier();
  start = std::chrono::steady_clock::now();
  // k + 1: the query row itself comes back at distance 0 and is dropped below.
  const KnnGraph exact = training_neighbours(data.local, queries, o.k + 1, comm);
  comm.barrier();
  const double exact_seconds = seconds_since(start);

  double found = 0.0, found_with_ties = 0.0;
  for (std::size_t s = 0; s < mine.size(); ++s) {
    const Index q = static_cast<Index>(s);
    const auto self = static_cast<std::int64_t>(first) + mine[s];
    std::unordered_set<std::int64_t> truth;
    double kth = 0.0;
    for (Index t = 0; t <= o.k && static_cast<Index>(truth.size()) < o.k; ++t)
      if (exact.neighbours(q, t) != self) {
        truth.insert(exact.neighbours(q, t));
        kth = exact.distances(q, t);
      }
    for (Index t = 0; t < o.k; ++t) {
      found += truth.count(approximate.neighbours(mine[s], t)) ? 1.0 : 0.0;
      found_with_ties += approximate.distances(mine[s], t) <= kth ? 1.0 : 0.0;
    }
  }
  const double samples = comm.allreduce_sum(static_cast<double>(mine.size()));
  found = comm.allreduce_sum(found);
  found_with_ties = comm.allreduce_sum(found_with_ties);
  if (comm.is_root()) {
    std::printf("data %s: %llu x %llu, %d ranks, k = %ld, hnsw M = %d, ef_construction = %d, ef = %d\n",
                o.data.c_str(), static_cast<unsigned long long>(data.rows),
                static_cast<unsigned long long>(data.cols), comm.size(), static_cast<long>(o.k), o.hnsw.M,
                o.hnsw.ef_construction, o.hnsw.ef);
    std::printf("hnsw graph:   %.1f s, peak RSS (largest rank) %.0f MiB\n", hnsw_seconds,
                hnsw_rss / 1048576.0);
    std::printf("exact sample: %.0f rows in %.1f s\n", samples, exact_seconds);
    std::printf("recall@%ld: %.4f (ties counted: %.4f)\n", static_cast<long>(o.k), found / (samples * o.k),
                found_with_ties / (samples * o.k));
  }
  return 0;
}

}  // namespace
}  // namespace gplvm

int main(int argc, char** argv) {
  gplvm::MpiEnvironment mpi(&argc, &argv);
  const gplvm::Communicator comm;
  try {
    return gplvm::run(comm, gplvm::parse(argc, argv));
  } catch (const gplvm::Error& e) {
    if (comm.is_root()) std::fprintf(stderr, "bench_knn_recall: %s\n", e.what());
    MPI_Abort(comm.raw(), 2);
  }
  return 1;
}
