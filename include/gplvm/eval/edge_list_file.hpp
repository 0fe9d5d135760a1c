#pragma once
// A generating graph given as a file: an E x 2 integer HDF5 dataset, one edge (two row indices,
// from 0) per row.
#include <string>

#include "gplvm/eval/generating_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

constexpr const char* kDefaultEdgeListDataset = "/edges";

// Collective (every rank reads the same edges). InputError naming the file, the dataset and the
// offending value when the dataset is missing, not 2-D with 2 columns, not integers, empty, or
// holds an index outside [0, rows) or an edge from a row to itself. The edges are grouped by
// connected component (edge_list_graph).
GeneratingGraph read_edge_list(const std::string& file, const std::string& dataset, Index rows,
                               const Communicator& comm);

}  // namespace gplvm
