#include "gplvm/eval/generating_graph.hpp"

#include <map>
#include <numeric>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// The closed cycle through `members` (row indices, in order) as group `group`.
void add_cycle(GeneratingGraph& graph, const std::vector<Index>& members, Index group) {
  for (std::size_t k = 0; k < members.size(); ++k) {
    graph.edges.push_back({members[k], members[(k + 1) % members.size()]});
    graph.edge_group.push_back(group);
  }
}

// Union-find root with path halving.
Index component_root(std::vector<Index>& parent, Index i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

GeneratingGraph block_cycle_graph(Index rows, Index cycle_length) {
  require(cycle_length >= 3, "a cycle needs at least 3 rows",
          {"", "--cycle-length", std::to_string(cycle_length)});
  require(rows % cycle_length == 0,
          "the cycle length must divide the number of rows (" + std::to_string(rows) + ")",
          {"", "--cycle-length", std::to_string(cycle_length)});
  GeneratingGraph graph;
  graph.rows = rows;
  std::vector<Index> members(static_cast<std::size_t>(cycle_length));
  for (Index block = 0; block < rows / cycle_length; ++block) {
    std::iota(members.begin(), members.end(), block * cycle_length);
    add_cycle(graph, members, block);
    graph.group_names.push_back(block);
  }
  return graph;
}

GeneratingGraph label_cycle_graph(const std::vector<std::int64_t>& labels, const std::string& source) {
  std::map<std::int64_t, std::vector<Index>> rows_of;
  for (std::size_t i = 0; i < labels.size(); ++i) rows_of[labels[i]].push_back(static_cast<Index>(i));
  require(!rows_of.empty(), "no labels to form cycles from", {source, "/labels", ""});
  GeneratingGraph graph;
  graph.rows = static_cast<Index>(labels.size());
  for (const auto& [label, members] : rows_of) {
    require(members.size() >= 3, "a label's rows form its cycle, which needs at least 3 rows",
            {source, "/labels",
             "label " + std::to_string(label) + ": " + std::to_string(members.size()) + " rows"});
    add_cycle(graph, members, static_cast<Index>(graph.group_names.size()));
    graph.group_names.push_back(label);
  }
  return graph;
}

GeneratingGraph edge_list_graph(Index rows, const std::vector<GraphEdge>& edges) {
  std::vector<Index> parent(static_cast<std::size_t>(rows));
  std::iota(parent.begin(), parent.end(), Index{0});
  for (const GraphEdge& e : edges) {
    const Index ra = component_root(parent, e.a), rb = component_root(parent, e.b);
    parent[std::max(ra, rb)] = std::min(ra, rb);  // the root is the component's smallest row
  }
  GeneratingGraph graph;
  graph.rows = rows;
  std::map<Index, std::vector<std::size_t>> edges_of;  // by component root: ascending smallest row
  for (std::size_t k = 0; k < edges.size(); ++k) edges_of[component_root(parent, edges[k].a)].push_back(k);
  for (const auto& [root, members] : edges_of) {
    const auto group = static_cast<Index>(graph.group_names.size());
    for (const std::size_t k : members) {
      graph.edges.push_back(edges[k]);
      graph.edge_group.push_back(group);
    }
    graph.group_names.push_back(root);
  }
  return graph;
}

}  // namespace gplvm
