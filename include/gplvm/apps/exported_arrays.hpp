#pragma once
// The arrays of a run file that `gplvm export` writes, one file each (names, shapes and CSV
// columns in docs/run-file.md, "gplvm export --output DIR"): those the run holds, in that order.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/io/array_writers.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct ExportedArray {
  std::string name;  // the file name without its extension
  std::variant<RowMatrix, std::vector<double>, std::vector<std::int64_t>, NamedValues> values;
  std::string csv_header;  // the CSV column names, comma-separated (named values: name,value)
};

// Every rank reads the run (serial HDF5 reads). InputError naming the file when it is not a run
// file (no /latent/mean or /params/noise_variance), or an array has another shape.
std::vector<ExportedArray> read_exported_arrays(const std::string& run_path, const Communicator& comm);

// npy: the .npy file of the array; otherwise its CSV file. Error naming `path` when it cannot be written.
void write_exported_array(const ExportedArray& array, const std::string& path, bool npy);

}  // namespace gplvm
