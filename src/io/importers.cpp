// Format selection, conversion to data and labels, and the HDF5 output of `gplvm import`.
#include "gplvm/io/importers.hpp"

#include <mpi.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/result_writer.hpp"

namespace gplvm {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower_file_name(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

// The first bytes after decompression, enough to recognise NPY and IDX magic numbers.
std::string leading_bytes(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) return {};
  char buffer[8] = {};
  const int got = gzread(file, buffer, sizeof buffer);
  gzclose(file);
  return std::string(buffer, static_cast<std::size_t>(std::max(got, 0)));
}

ImportFormat format_from_content(const std::string& path) {
  const std::string head = leading_bytes(path);
  if (head.size() >= 6 && head.compare(0, 6, "\x93NUMPY") == 0) return ImportFormat::npy;
  const auto is_idx_type = [](unsigned char t) { return t == 0x08 || t == 0x09 || (t >= 0x0B && t <= 0x0E); };
  if (head.size() >= 4 && head[0] == 0 && head[1] == 0 && is_idx_type(head[2]) && head[3] != 0) {
    return ImportFormat::idx;
  }
  throw InputError(
      "cannot tell the format from the file name (.idx, -ubyte, .npy, .csv, optionally .gz) "
      "or its contents; give the format explicitly",
      ErrorContext(path));
}

NumericArray read_array(const std::string& path, ImportFormat format) {
  return format == ImportFormat::npy ? read_npy(path) : read_idx(path);
}

std::vector<std::int64_t> read_labels_file(const std::string& path) {
  const ImportFormat format = detect_format(path);
  if (format != ImportFormat::csv) return to_labels(read_array(path, format), path);
  const CsvTable table = read_csv(path, {});
  if (table.values.cols() != 1) {
    throw InputError(
        "a CSV labels file must have exactly one column, not " + std::to_string(table.values.cols()),
        ErrorContext(path, "columns", std::to_string(table.values.cols())));
  }
  NumericArray column{{static_cast<std::uint64_t>(table.values.rows())}, table.values, false, "CSV"};
  return to_labels(column, path);
}

}  // namespace

std::string to_string(ImportFormat format) {
  switch (format) {
    case ImportFormat::automatic:
      return "auto";
    case ImportFormat::idx:
      return "idx";
    case ImportFormat::npy:
      return "npy";
    case ImportFormat::csv:
      return "csv";
  }
  return "unknown";
}

ImportFormat parse_import_format(const std::string& name) {
  for (ImportFormat f : {ImportFormat::automatic, ImportFormat::idx, ImportFormat::npy, ImportFormat::csv}) {
    if (name == to_string(f)) return f;
  }
  throw InputError("unknown import format (expected auto, idx, npy or csv)",
                   ErrorContext("", "format", name));
}

ImportFormat detect_format(const std::string& path) {
  std::string name = lower_file_name(path);
  if (ends_with(name, ".gz")) name.resize(name.size() - 3);
  if (ends_with(name, ".npy")) return ImportFormat::npy;
  if (ends_with(name, ".csv")) return ImportFormat::csv;
  if (ends_with(name, ".idx") || ends_with(name, "-ubyte") || ends_with(name, ".ubyte"))
    return ImportFormat::idx;
  return format_from_content(path);
}

RowMatrix to_data_matrix(NumericArray array, const std::string& file, double scale) {
  if (array.shape.size() < 2) {
    throw InputError("data must have at least 2 dimensions (N x D), but the array is " +
                         std::to_string(array.shape.size()) + "-D (a labels file?)",
                     ErrorContext(file, "dimensions", std::to_string(array.shape.size())));
  }
  // An input of zero rows or columns is refused here, naming it, rather than when the (empty)
  // output would be written.
  if (array.values.rows() == 0 || array.values.cols() == 0) {
    std::string shape;
    for (const auto extent : array.shape) shape += (shape.empty() ? "" : " x ") + std::to_string(extent);
    throw InputError("the input holds no data: its array is " + shape, ErrorContext(file, "shape", shape));
  }
  if (scale != 1.0) array.values *= scale;
  return std::move(array.values);
}

std::vector<std::int64_t> to_labels(const NumericArray& array, const std::string& file) {
  const bool column = array.shape.size() == 2 && array.shape[1] == 1;
  if (array.shape.size() != 1 && !column) {
    throw InputError(
        "labels must be a 1-D array (or N x 1), not " + std::to_string(array.shape.size()) + "-D",
        ErrorContext(file, "dimensions", std::to_string(array.shape.size())));
  }
  std::vector<std::int64_t> labels(static_cast<std::size_t>(array.values.size()));
  for (Index i = 0; i < array.values.size(); ++i) {
    const double v = array.values.data()[i];
    if (std::trunc(v) != v || std::abs(v) > 9.0e18) {
      throw InputError("label " + std::to_string(i) + " is not an integer (" + std::to_string(v) + ")",
                       ErrorContext(file, "label " + std::to_string(i), std::to_string(v)));
    }
    labels[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(v);
  }
  return labels;
}

void write_dataset_file(const std::string& out_path, const RowMatrix& Y,
                        const std::vector<std::int64_t>* labels, bool as_float32,
                        const std::string& dataset_path, const DatasetLayout& layout) {
  if (Y.rows() == 0 || Y.cols() == 0) {
    throw InputError(
        "no data to write: the data matrix is empty",
        ErrorContext(out_path, dataset_path, std::to_string(Y.rows()) + " x " + std::to_string(Y.cols())));
  }
  if (dataset_path == kDefaultLabelsPath)
    throw InputError("data and labels would share a path", ErrorContext(out_path, dataset_path));
  if (labels)
    validate_labels_length(out_path, kDefaultLabelsPath, labels->size(),
                           static_cast<std::uint64_t>(Y.rows()));
  // One process writes: MPI_COMM_SELF (or no MPI at all in serial tools).
  Hdf5ResultWriter out(out_path, MPI_COMM_SELF);
  const auto rows = static_cast<std::uint64_t>(Y.rows());
  out.write_distributed_rows(dataset_path, Y, 0, rows,
                             as_float32 ? StorageType::float32 : StorageType::float64, layout.point_shape);
  if (!layout.output_space.empty())
    out.write_attribute(dataset_path, kOutputSpaceAttribute, layout.output_space);
  if (labels) out.write_int64_vector(kDefaultLabelsPath, *labels);
  out.commit();
}

// The commands that read data reject NaN and Inf, so an import writes none: a "nan" cell, or a scale
// that overflows a value, in float64 or in the float32 it is stored as, fails here, naming the row.
void require_finite_import(const RowMatrix& Y, const std::string& input_path, const ImportOptions& options) {
  require_finite_rows(Y, 0, input_path, options.dataset_path);
  if (!options.as_float32 || Y.size() == 0) return;
  const double largest = Y.cwiseAbs().maxCoeff();
  require(largest <= std::numeric_limits<float>::max(),
          "a value exceeds the float32 range (+-3.4e38): store float64 or scale the data down",
          {input_path, "float32", std::to_string(largest)});
}

ImportSummary import_to_hdf5(const std::string& input_path, const std::string& labels_path,
                             const std::string& output_path, const ImportOptions& options) {
  Hdf5ResultWriter::check_writable(output_path);  // before minutes of reading and converting
  ImportSummary summary;
  summary.format = options.format == ImportFormat::automatic ? detect_format(input_path) : options.format;
  const bool csv_labels = summary.format == ImportFormat::csv && !options.csv.label_column.empty();
  if (csv_labels && !labels_path.empty()) {
    throw InputError("labels given twice: as a CSV label column and as a labels file",
                     ErrorContext(labels_path));
  }
  RowMatrix Y;
  std::vector<std::int64_t> labels;
  std::vector<std::uint64_t> row_shape;  // of one input row, as the file gives it
  if (summary.format == ImportFormat::csv) {
    CsvTable table = read_csv(input_path, options.csv);
    Y = std::move(table.values);
    if (options.scale != 1.0) Y *= options.scale;
    labels = std::move(table.labels);
    row_shape = {static_cast<std::uint64_t>(Y.cols())};
  } else {
    NumericArray array = read_array(input_path, summary.format);
    if (!array.shape.empty()) row_shape.assign(array.shape.begin() + 1, array.shape.end());
    Y = to_data_matrix(std::move(array), input_path, options.scale);
  }
  require_finite_import(Y, input_path, options);
  if (!labels_path.empty()) {
    labels = read_labels_file(labels_path);
    validate_labels_length(labels_path, "labels", labels.size(), static_cast<std::uint64_t>(Y.rows()));
  }
  summary.has_labels = csv_labels || !labels_path.empty();
  if (options.manifold_layout) summary.layout = options.manifold_layout(Y, row_shape, input_path);
  write_dataset_file(output_path, Y, summary.has_labels ? &labels : nullptr, options.as_float32,
                     options.dataset_path, summary.layout);
  summary.rows = static_cast<std::uint64_t>(Y.rows());
  summary.cols = static_cast<std::uint64_t>(Y.cols());
  return summary;
}

}  // namespace gplvm
