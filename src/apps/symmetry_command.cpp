// gplvm symmetry: the symmetry-breaking diagnostic of an embedding (eval/symmetry_breaking.hpp,
// docs/math/symmetry.md): B_median, B_max and whether the known generating graph's loops survive
// (B_max <= B_t), over every edge and per object (cycle). Every rank computes the same (small)
// result; rank 0 prints it, and the writer writes it.
#include <algorithm>
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/symmetry_options.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/eval/symmetry_breaking.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/run/json_summary.hpp"

namespace gplvm {
namespace {

constexpr const char* kDefaultLatentsPath = "/latent/mean";

CommandLine symmetry_command_line() {
  std::vector<OptionSpec> specs = {
      {"latents", true, "HDF5 file with the latents (a run file, an embed or encode output)"},
      {"latents-dataset", true, std::string("dataset of the latents (default ") + kDefaultLatentsPath + ")"},
      {"data", true,
       "for --objects labels: a file whose /labels name each row's object, when the latents file has none"},
      {"output", true, "HDF5 file to write /symmetry (B_median, B_max, per-edge and per-object B) to"}};
  for (OptionSpec& spec : symmetry_option_specs()) specs.push_back(std::move(spec));
  return CommandLine("symmetry", std::move(specs), false);
}

// The latents file's /labels (a run file keeps its training data's), else --data's.
RowLabels row_labels(const Hdf5ResultReader& latents, const CommandLine& cl, const Communicator& comm) {
  if (latents.exists("/labels")) return {latents.read_int64_vector("/labels"), latents.path()};
  const auto data = cl.value("data");
  if (!data) return {{}, latents.path()};
  const Hdf5ResultReader file(*data, comm.raw());
  require(file.exists("/labels"), "--objects labels: the data file has no /labels", {*data, "/labels", ""});
  return {file.read_int64_vector("/labels"), *data};
}

void write_symmetry(const std::string& output, const std::string& latents_file,
                    const SymmetryOptions& options, const GeneratingGraph& graph, const SymmetryBreaking& s,
                    const Communicator& comm) {
  Hdf5ResultWriter out(output, comm.raw());
  out.write_scalar("/symmetry/median_length", s.median_length);
  out.write_scalar("/symmetry/max_ratio", s.max_ratio);
  out.write_scalar("/symmetry/threshold", s.threshold);
  out.write_scalar("/symmetry/broken", s.broken ? 1.0 : 0.0);
  std::vector<std::int64_t> a, b, group_of_edge, names, broken;
  for (std::size_t k = 0; k < graph.edges.size(); ++k) {
    a.push_back(graph.edges[k].a);
    b.push_back(graph.edges[k].b);
    group_of_edge.push_back(graph.edge_group[k]);
  }
  Vector group_max(static_cast<Index>(s.groups.size()));
  for (std::size_t g = 0; g < s.groups.size(); ++g) {
    names.push_back(s.groups[g].name);
    broken.push_back(s.groups[g].broken ? 1 : 0);
    group_max(static_cast<Index>(g)) = s.groups[g].max_ratio;
  }
  out.write_int64_vector("/symmetry/edges/a", a);
  out.write_int64_vector("/symmetry/edges/b", b);
  out.write_int64_vector("/symmetry/edges/group", group_of_edge);
  out.write_vector("/symmetry/edges/ratio",
                   Eigen::Map<const Vector>(s.ratios.data(), static_cast<Index>(s.ratios.size())));
  out.write_int64_vector("/symmetry/groups/name", names);
  out.write_vector("/symmetry/groups/max_ratio", group_max);
  out.write_int64_vector("/symmetry/groups/broken", broken);
  out.write_attribute("/symmetry", "graph", options.describe());
  out.write_attribute("/", "latents", latents_file);
  out.commit();
}

void print_json(const std::string& latents, const SymmetryOptions& options, const SymmetryBreaking& s) {
  JsonWriter w = json_summary("symmetry");
  w.key("latents").value(latents).key("graph").value(options.describe());
  w.key("edges").value(static_cast<std::int64_t>(s.ratios.size())).key("threshold").value(s.threshold);
  w.key("median_length")
      .value(s.median_length)
      .key("max_ratio")
      .value(s.max_ratio)
      .key("broken")
      .value(s.broken);
  w.key("groups").value(static_cast<std::int64_t>(s.groups.size()));
  w.key("broken_groups").value(static_cast<std::int64_t>(s.broken_groups()));
  w.key("group_max_ratio").begin_array();
  for (const GroupSymmetry& g : s.groups) w.value(g.max_ratio);
  w.end_array().key("group_name").begin_array();
  for (const GroupSymmetry& g : s.groups) w.value(g.name);
  w.end_array().key("edge_ratios").begin_array();
  for (const double r : s.ratios) w.value(r);
  w.end_array().end_object();
  std::printf("%s\n", w.str().c_str());
}

void print_text(const std::string& latents, const SymmetryOptions& options, const GeneratingGraph& graph,
                const SymmetryBreaking& s) {
  std::printf("latents: %s, %lld rows; graph: %s, %zu edges\n", latents.c_str(),
              static_cast<long long>(graph.rows), options.describe().c_str(), s.ratios.size());
  std::printf("  B_median %.10g\n  B_max    %.10g\n  %s (B_t = %g)\n", s.median_length, s.max_ratio,
              s.broken ? "broken" : "intact", s.threshold);
  if (s.groups.size() > 1) {
    std::printf("  objects: %lld of %zu broken\n", static_cast<long long>(s.broken_groups()),
                s.groups.size());
    for (const GroupSymmetry& g : s.groups)
      std::printf("    object %lld: B_max %.6g%s\n", static_cast<long long>(g.name), g.max_ratio,
                  g.broken ? " broken" : "");
  }
  // The longest edges, where a break is (the file and --json hold every edge).
  std::vector<std::size_t> order(s.ratios.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  const std::size_t shown = std::min<std::size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](std::size_t x, std::size_t y) { return s.ratios[x] > s.ratios[y]; });
  std::printf("  longest edges:");
  for (std::size_t k = 0; k < shown; ++k)
    std::printf(" %lld-%lld %.4g", static_cast<long long>(graph.edges[order[k]].a),
                static_cast<long long>(graph.edges[order[k]].b), s.ratios[order[k]]);
  std::printf("\n");
}

}  // namespace

int symmetry_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = symmetry_command_line();
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s",
                  cl.help("Symmetry-breaking diagnostic: B_median, B_max = the longest edge of the data's "
                          "generating graph over the median edge, and whether B_max > B_t "
                          "(docs/math/symmetry.md).")
                      .c_str());
    return kExitOk;
  }
  const std::string latents_file = cl.required("latents");
  const std::string latents_path = cl.value_or("latents-dataset", kDefaultLatentsPath);
  const SymmetryOptions options = symmetry_options(cl);
  const std::string output = cl.value_or("output", "");
  if (!output.empty()) {
    require_output_not_input({output, "--output"},
                             {{latents_file, "--latents"},
                              {cl.value_or("data", ""), "--data"},
                              {options.from_edge_list() ? options.graph : "", "--graph"}});
    Hdf5ResultWriter::check_writable(output);
    clean_stale_temporaries_beside(output, comm);
  }
  RowMatrix latents;
  RowLabels labels;
  {
    const Hdf5ResultReader file(latents_file, comm.raw());
    latents = file.read_matrix(latents_path);
    if (options.objects_from_labels) labels = row_labels(file, cl, comm);
  }
  const GeneratingGraph graph = generating_graph(options, latents.rows(), labels, comm);
  const SymmetryBreaking s =
      measure_symmetry_breaking(latents, graph, options.threshold, {latents_file, latents_path});
  if (!output.empty()) write_symmetry(output, latents_file, options, graph, s, comm);
  if (comm.is_root()) {
    if (cl.has("json"))
      print_json(latents_file, options, s);
    else
      print_text(latents_file, options, graph, s);
  }
  return kExitOk;
}

}  // namespace gplvm
