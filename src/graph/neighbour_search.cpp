#include "gplvm/graph/neighbour_search.hpp"

#include "gplvm/graph/exact_neighbours.hpp"
#include "named_choice.hpp"

namespace gplvm {

NeighbourSearch parse_neighbour_search(const std::string& name, const std::string& key) {
  return named_choice<NeighbourSearch>(name, key, "neighbour search",
                                       {{"exact", NeighbourSearch::exact}, {"hnsw", NeighbourSearch::hnsw}});
}

const char* neighbour_search_name(NeighbourSearch search) {
  return search == NeighbourSearch::exact ? "exact" : "hnsw";
}

KnnGraph nearest_neighbours(const DataRef& local, Index k, const NeighbourSearchOptions& options,
                            const Communicator& comm, const std::string& key) {
  if (options.search == NeighbourSearch::hnsw) return hnsw_neighbours(local, k, options.hnsw, comm, key);
  return exact_neighbours(local, k, comm, key);
}

}  // namespace gplvm
