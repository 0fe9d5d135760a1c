#include "gplvm/apps/symmetry_options.hpp"

#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/eval/edge_list_file.hpp"
#include "gplvm/eval/symmetry_breaking.hpp"

namespace gplvm {

std::string SymmetryOptions::describe() const {
  if (from_edge_list()) return "edge list " + graph + ":" + edges_dataset;
  if (objects_from_labels) return "one cycle per label";
  if (cycle_length > 0) return "cycles of " + std::to_string(cycle_length) + " consecutive rows";
  return "one cycle over all rows";
}

std::vector<OptionSpec> symmetry_option_specs() {
  return {
      {"graph", true,
       "the generating graph: cycle (rows in order, the last linked back to the first; the default) or an "
       "HDF5 file with an E x 2 integer edge list"},
      {"edges-dataset", true,
       std::string("dataset of the edge list in --graph FILE (default ") + kDefaultEdgeListDataset + ")"},
      {"cycle-length", true,
       "cycle graph: one cycle per consecutive block of this many rows (default: one cycle)"},
      {"objects", true,
       "cycle graph: 'labels' for one cycle per label, its rows in row order (default: rows)"},
      {"threshold", true, "B_t: the symmetry is broken when B_max > B_t (default 3)"}};
}

SymmetryOptions symmetry_options(const CommandLine& cl) {
  SymmetryOptions o;
  o.graph = cl.value_or("graph", "cycle");
  require(!o.graph.empty(), "--graph needs 'cycle' or an edge-list file", {"", "--graph", ""});
  o.edges_dataset = cl.value_or("edges-dataset", kDefaultEdgeListDataset);
  o.cycle_length =
      static_cast<Index>(cl.integer_or("cycle-length", 0, 3, std::numeric_limits<std::int32_t>::max()));
  const std::string objects = cl.value_or("objects", "rows");
  require(objects == "rows" || objects == "labels", "--objects takes 'rows' or 'labels'",
          {"", "--objects", objects});
  o.objects_from_labels = objects == "labels";
  o.threshold = cl.real_or("threshold", kDefaultSymmetryThreshold, 0, std::numeric_limits<double>::max());
  require(o.threshold > 0, "the threshold B_t must be positive",
          {"", "--threshold", cl.value_or("threshold", "")});
  require(!(o.objects_from_labels && o.cycle_length > 0),
          "--objects labels and --cycle-length exclude each other",
          {"", "--cycle-length", std::to_string(o.cycle_length)});
  require(!o.from_edge_list() || (!o.objects_from_labels && o.cycle_length == 0),
          "--cycle-length and --objects shape the cycle graph; an edge list is its own graph",
          {"", "--graph", o.graph});
  require(o.from_edge_list() || !cl.has("edges-dataset"), "--edges-dataset needs --graph FILE",
          {"", "--edges-dataset", o.edges_dataset});
  return o;
}

GeneratingGraph generating_graph(const SymmetryOptions& options, Index rows, const RowLabels& labels,
                                 const Communicator& comm) {
  if (options.from_edge_list()) return read_edge_list(options.graph, options.edges_dataset, rows, comm);
  if (options.objects_from_labels) {
    require(!labels.values.empty(), "--objects labels: no /labels found (give a file with /labels)",
            {labels.file, "/labels", ""});
    require(static_cast<Index>(labels.values.size()) == rows,
            "has a different number of labels than latent rows (" + std::to_string(rows) + ")",
            {labels.file, "/labels", std::to_string(labels.values.size())});
    return label_cycle_graph(labels.values, labels.file);
  }
  return block_cycle_graph(rows, options.cycle_length > 0 ? options.cycle_length : rows);
}

}  // namespace gplvm
