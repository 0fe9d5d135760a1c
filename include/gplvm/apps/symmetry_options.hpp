#pragma once
// The options that choose the generating graph and the threshold of the symmetry-breaking
// diagnostic (eval/symmetry_breaking.hpp), shared by gplvm symmetry and gplvm sweep:
//   --graph cycle|FILE.h5   cycles over the rows (default), or an E x 2 edge list (--edges-dataset)
//   --cycle-length L        one cycle per consecutive block of L rows (default: one over all rows)
//   --objects labels        one cycle per label, each label's rows in row order
//   --threshold B_t         broken when B_max > B_t (default 3)
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/eval/generating_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct SymmetryOptions {
  std::string graph = "cycle";  // "cycle" or an edge-list file
  std::string edges_dataset;
  Index cycle_length = 0;  // 0: one cycle over every row
  bool objects_from_labels = false;
  double threshold = 3.0;

  bool from_edge_list() const { return graph != "cycle"; }
  // A short description for summaries: "cycle over all rows", "cycles of 72 rows", ...
  std::string describe() const;
};

std::vector<OptionSpec> symmetry_option_specs();
// InputError naming the option for a bad value or a contradictory combination.
SymmetryOptions symmetry_options(const CommandLine& cl);

// The labels of the rows and the file they came from, for --objects labels.
struct RowLabels {
  std::vector<std::int64_t> values;
  std::string file;
};

// The graph over `rows` latents. Collective when it reads an edge list. InputError when --objects
// labels is asked for and `labels` is empty (naming where they were looked for) or of another length.
GeneratingGraph generating_graph(const SymmetryOptions& options, Index rows, const RowLabels& labels,
                                 const Communicator& comm);

}  // namespace gplvm
