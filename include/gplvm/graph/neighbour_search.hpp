#pragma once
// The neighbour searches by name (`graph.search`): "exact" (exact_neighbours.hpp) and "hnsw"
// (hnsw_neighbours.hpp), one call for either.
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/hnsw_neighbours.hpp"
#include "gplvm/graph/knn_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

enum class NeighbourSearch { exact, hnsw };

// The search named `name`; InputError naming `key` and the known names otherwise.
NeighbourSearch parse_neighbour_search(const std::string& name, const std::string& key = "graph.search");
const char* neighbour_search_name(NeighbourSearch search);

struct NeighbourSearchOptions {
  NeighbourSearch search = NeighbourSearch::exact;
  HnswOptions hnsw;  // used by NeighbourSearch::hnsw
};

// The k nearest neighbours of each local row by the chosen search (collective; the contract and the
// input errors of exact_neighbours).
KnnGraph nearest_neighbours(const DataRef& local, Index k, const NeighbourSearchOptions& options,
                            const Communicator& comm, const std::string& key = "graph.k");

}  // namespace gplvm
