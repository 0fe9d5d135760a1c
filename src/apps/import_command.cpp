// gplvm import: IDX (.gz too), NPY and CSV to the HDF5 layout the other commands read.
// Serial: rank 0 converts, the other ranks (if any) only wait.
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/parse_number.hpp"
#include "gplvm/io/importers.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/manifold_data.hpp"

namespace gplvm {
namespace {

// "1/255" or "0.00392": the scale applied to every value; finite and non-zero, so no value turns
// into an infinity, a NaN or a constant.
double parse_scale(const std::string& text) {
  const double scale = parse_fraction(text, {"", "--scale"});
  require(scale != 0, "scale must be non-zero", {"", "--scale", text});
  return scale;
}

CsvHeader parse_header(const std::string& text) {
  if (text == "auto") return CsvHeader::automatic;
  if (text == "yes") return CsvHeader::present;
  if (text == "no") return CsvHeader::absent;
  throw InputError("expected auto, yes or no", {"", "--csv-header", text});
}

}  // namespace

int import_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl("import",
                 {{"input", true, "data file: IDX (also .gz), .npy or .csv"},
                  {"labels", true, "optional labels file (IDX, .npy or .csv)"},
                  {"output", true, "HDF5 file to write (/Y and /labels)"},
                  {"format", true, "auto | idx | npy | csv (default auto: from the file name)"},
                  {"scale", true, "multiply every value, e.g. 1/255 for 8-bit images (default 1)"},
                  {"float32", false, "store /Y as float32 (default float64)"},
                  {"dataset", true, "dataset path in the output (default /Y)"},
                  {"csv-header", true, "auto | yes | no"},
                  {"csv-label-column", true, "CSV column (name or 0-based index) holding labels"},
                  {"output-space", true,
                   "data on a manifold, checked and stored as N x (its point's shape): " +
                       output_space_help(output_manifold_names())},
                  {"tolerance", true, "membership tolerance of --output-space data (default 1e-8)"}},
                 false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root()) std::printf("%s", cl.help("Convert IDX, NPY or CSV data to HDF5.").c_str());
    return kExitOk;
  }
  ImportOptions options;
  options.format = parse_import_format(cl.value_or("format", "auto"));
  options.scale = parse_scale(cl.value_or("scale", "1"));
  options.as_float32 = cl.has("float32");
  options.dataset_path = cl.value_or("dataset", "/Y");
  options.csv.header = parse_header(cl.value_or("csv-header", "auto"));
  options.csv.label_column = cl.value_or("csv-label-column", "");
  if (cl.has("output-space")) {
    const std::string space = cl.required("output-space");
    // float32 rounding (1e-7) moves points off the manifold by more than the membership tolerance
    // train checks them with: refused here rather than written for train to refuse.
    require(!options.as_float32,
            "data on an output manifold are stored and trained in float64: float32 rounding would move "
            "the rows off " +
                space + "; drop --float32",
            {"", "--float32", space});
    const double tolerance = parse_fraction(cl.value_or("tolerance", "1e-8"), {"", "--tolerance"});
    require(tolerance >= 0, "the tolerance must not be negative",
            {"", "--tolerance", std::to_string(tolerance)});
    options.manifold_layout = [space, tolerance](const RowMatrix& Y,
                                                 const std::vector<std::uint64_t>& row_shape,
                                                 const std::string& file) {
      return manifold_dataset_layout(space, Y, row_shape, file, tolerance);
    };
  } else {
    require(!cl.has("tolerance"), "--tolerance applies to --output-space data only", {"", "--tolerance"});
  }
  const std::string input = cl.required("input"), output = cl.required("output");
  require_output_not_input({output, "--output"},
                           {{input, "--input"}, {cl.value_or("labels", ""), "--labels"}});
  clean_stale_temporaries_beside(output, comm);
  // Rank 0 converts; its error (bad input, a full disk) is agreed so that every rank fails the
  // same way, with the same exit code.
  ImportSummary summary;
  comm.on_root([&] { summary = import_to_hdf5(input, cl.value_or("labels", ""), output, options); });
  if (!comm.is_root()) return kExitOk;
  if (cl.has("json")) {
    JsonWriter w = json_summary("import");
    w.key("output").value(output).key("format").value(to_string(summary.format));
    w.key("rows")
        .value(summary.rows)
        .key("cols")
        .value(summary.cols)
        .key("labels")
        .value(summary.has_labels)
        .key("output_space")
        .value(summary.layout.output_space.empty() ? std::string(kEuclideanSpace)
                                                   : summary.layout.output_space)
        .end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("wrote %s: %llu x %llu (%s)%s\n", output.c_str(),
                static_cast<unsigned long long>(summary.rows), static_cast<unsigned long long>(summary.cols),
                to_string(summary.format).c_str(), summary.has_labels ? " with labels" : "");
  }
  return kExitOk;
}

}  // namespace gplvm
