#pragma once
// Approximate k nearest neighbours with hnswlib's hierarchical navigable small-world graphs
// (Malkov & Yashunin 2018), one index per rank over its own rows.
//
// Each rank's query rows travel around a ring of the ranks carrying their k best so far; every rank
// answers them from its own index (k + 1 candidates, the query itself dropped) and merges, so each
// query is answered by every shard. Candidates are ranked by their exact squared distance in double
// precision, recomputed from the rows (hnswlib searches in single precision), with ties among the
// candidates found broken by the lower global index as in KnnGraph (a tied row the search did not
// return cannot win the tie). Duplicate rows are found at distance exactly 0.
//
// Deterministic for a fixed seed and rank count: the indexes are built one row at a time in row
// order, and the shard of rank r is seeded with seed + its first global row. The rank count
// decides the shards, so the graphs searched, so which approximate neighbours are found: results
// at different rank counts differ (a neighbour found is always a true distance, only some true
// neighbours may be missed). Recall against exact_neighbours is measured in tests/graph (at least
// 0.95 with the defaults on 2,000 rows of 20 dimensions, k = 10).
#include <cstdint>
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/knn_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct HnswOptions {
  int M = 16;                 // graph degree per layer (hnswlib's default): recall and memory grow with it
  int ef_construction = 200;  // candidate list while building (hnswlib's default)
  int ef = 64;                // candidate list while searching, at least k + 1 (raised to it)
  std::uint64_t seed = 100;   // hnswlib's default level-generator seed, offset per shard
  Index chunk_rows = 0;       // query rows passed around the ring at a time; 0: about 64 MB of them
};

// The same contract and input errors as exact_neighbours (exact_neighbours.hpp), approximately.
// Memory per rank, besides its rows: its index (about local rows x (d floats + 2 M links + 2)), the
// lists (2 k numbers per local row) and two chunks of travelling queries.
KnnGraph hnsw_neighbours(const DataRef& local, Index k, const HnswOptions& options, const Communicator& comm,
                         const std::string& key = "graph.k");

}  // namespace gplvm
