#pragma once
// The known generating graph of a data set: which rows are one generating step apart (for images
// of rotated objects, consecutive rotations of one object, closing into one cycle per object).
// The symmetry-breaking diagnostic (eval/symmetry_breaking.hpp, docs/math/symmetry.md) measures
// how far an embedding stretches these edges.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

struct GraphEdge {
  Index a = 0, b = 0;  // row indices
};

struct GeneratingGraph {
  Index rows = 0;                         // the rows the edges index into
  std::vector<GraphEdge> edges;           // in order: group by group, along each cycle
  std::vector<Index> edge_group;          // per edge: its group (object), an index into group_names
  std::vector<std::int64_t> group_names;  // per group: the label, the block or the smallest row
};

// One cycle per consecutive block of cycle_length rows (rows 0..L-1, L..2L-1, ...): edges i -> i + 1
// and the closing edge from the block's last row to its first. InputError naming --cycle-length
// unless 3 <= cycle_length and it divides rows. Groups are named by block, 0, 1, ...
GeneratingGraph block_cycle_graph(Index rows, Index cycle_length);

// One cycle per label: each label's rows, in row order, linked one to the next and the last back to
// the first. Groups in increasing label order, named by the label. InputError naming the label
// (and `source`, the file the labels came from) when a label has fewer than 3 rows.
GeneratingGraph label_cycle_graph(const std::vector<std::int64_t>& labels, const std::string& source);

// The given edges (already validated against `rows`), grouped by connected component, each named
// by its smallest row; the edges keep their given order within a group.
GeneratingGraph edge_list_graph(Index rows, const std::vector<GraphEdge>& edges);

}  // namespace gplvm
