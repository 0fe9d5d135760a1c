#pragma once
// `gplvm import`: converters from the formats data sets are published in (IDX as used by MNIST
// and Fashion-MNIST, NumPy .npy, numeric CSV) to the project's input layout, an HDF5 file with
// a 2-D dataset (default "/Y", N x D) and optional "/labels" (N int64).
//
// These are serial: each reads a whole file into memory on the calling process. Any input file
// may be gzip-compressed (detected from its first bytes, not its name). Every failure is an
// InputError naming the file and what is wrong with it (the line and column for CSV).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

enum class ImportFormat { automatic, idx, npy, csv };
std::string to_string(ImportFormat format);
// "auto", "idx", "npy" or "csv"; InputError otherwise.
ImportFormat parse_import_format(const std::string& name);

// A whole numeric array: its shape, and its values as doubles in a (shape[0] x product of the
// other dimensions) matrix, i.e. C order with the trailing dimensions flattened.
struct NumericArray {
  std::vector<std::uint64_t> shape;
  RowMatrix values;
  bool integer = false;   // stored with an integer type
  std::string type_name;  // the stored type, for messages ("uint8", "float32", ...)
};

// The decompressed contents of a file (a file that is not gzip is returned as it is).
std::vector<unsigned char> read_file_bytes(const std::string& path);

// IDX: big-endian, magic 0x0000TTNN (type TT, NN dimensions); types 0x08 uint8, 0x09 int8,
// 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64. Images N x rows x cols become N x (rows*cols).
NumericArray read_idx(const std::string& path);

// NPY format versions 1.0, 2.0 and 3.0; dtypes float32/float64 ('<f4', '<f8'), signed integers
// of 1 to 8 bytes ('<i8', '<i4', ...) and unsigned of 1 to 4 ('|u1', '<u2', '<u4'), either byte
// order; C or Fortran order (fortran_order: True, as NumPy saves a column-major array), the
// latter read transposed, so that values hold the same C-order matrix either way.
NumericArray read_npy(const std::string& path);

enum class CsvHeader { automatic, present, absent };

struct CsvOptions {
  // automatic: the first non-blank line is a header when any of its cells is not a number.
  CsvHeader header = CsvHeader::automatic;
  // The label column by header name or 0-based index ("0", "4"); empty: no label column.
  std::string label_column;
  char delimiter = ',';
};

struct CsvTable {
  std::vector<std::string> column_names;  // of the value columns, when there is a header
  RowMatrix values;                       // every column but the label column
  std::vector<std::int64_t> labels;       // the label column, when one was chosen
  bool has_labels = false;
};

// Numeric CSV: blank lines are skipped, cells may be quoted, lines may end in CRLF. Errors name
// the file, the line and the column (both 1-based, as editors count).
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

// An array as data: N x D with N the first dimension and D the product of the others, each value
// multiplied by scale. InputError for arrays with fewer than 2 dimensions.
RowMatrix to_data_matrix(NumericArray array, const std::string& file, double scale = 1.0);
// An array as labels: shape (N) or (N, 1); float values must be whole numbers.
std::vector<std::int64_t> to_labels(const NumericArray& array, const std::string& file);

// How the rows of a data set on a manifold are stored: each row as an array of point_shape (N x k x 2
// landmarks, N x n x n matrices; empty: N x D), and the manifold's name in the dataset's
// output_space attribute (io/dataset_reader.hpp; empty: no attribute).
struct DatasetLayout {
  std::vector<std::uint64_t> point_shape;
  std::string output_space;
};

// Writes Y (and labels, when given, to "/labels") to a new HDF5 file, stored as float32 or
// float64, under a temporary name renamed into place: out_path is either complete or untouched.
// InputError when the labels' length differs from Y's rows or Y is empty.
void write_dataset_file(const std::string& out_path, const RowMatrix& Y,
                        const std::vector<std::int64_t>* labels, bool as_float32,
                        const std::string& dataset_path = "/Y", const DatasetLayout& layout = {});

struct ImportOptions {
  ImportFormat format = ImportFormat::automatic;  // of the data file; automatic: from its name
  double scale = 1.0;                             // e.g. 1/255 puts 8-bit pixels in [0, 1]
  bool as_float32 = false;                        // storage type of the data in the output
  std::string dataset_path = "/Y";
  CsvOptions csv;  // for CSV data (a CSV labels file always auto-detects its header)
  // Data on a manifold: checks the rows (InputError naming the file and the first bad row) and
  // says how to store them; called before anything is written, with the shape of one input row
  // (NPY and IDX arrays of N x k x d: {k, d}; CSV: {D}). Empty: plain N x D data.
  std::function<DatasetLayout(const RowMatrix& Y, const std::vector<std::uint64_t>& row_shape,
                              const std::string& input_path)>
      manifold_layout;
};

struct ImportSummary {
  ImportFormat format = ImportFormat::automatic;
  std::uint64_t rows = 0, cols = 0;
  bool has_labels = false;
  DatasetLayout layout;  // as written
};

// The format implied by a file name: .npy, .csv, .idx or a "-ubyte" suffix (as MNIST's files
// are named), each optionally followed by .gz; otherwise by the file's first bytes (NPY or IDX
// magic). InputError when neither tells.
ImportFormat detect_format(const std::string& path);

// Reads input_path (and labels_path unless empty: IDX, NPY or one-column CSV), checks that the
// labels match the rows, and writes output_path with write_dataset_file. The output directory is
// checked before any input is read.
ImportSummary import_to_hdf5(const std::string& input_path, const std::string& labels_path,
                             const std::string& output_path, const ImportOptions& options);

}  // namespace gplvm
