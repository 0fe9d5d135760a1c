#pragma once
// Reading the training data: a 2-D dataset (default "/Y", N x D, float32 or float64) and an
// optional "/labels" dataset (N integers). Each rank reads only its own block of rows with one
// collective MPI-IO read; HDF5 converts float32 to double on the way.
//
// Every function taking a communicator is collective: all ranks call it, each with its own row
// range (possibly empty). Errors are raised on every rank alike.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/io/hdf5_file.hpp"

namespace gplvm {

inline constexpr const char* kDefaultDataPath = "/Y";
inline constexpr const char* kDefaultLabelsPath = "/labels";

// Data on a manifold (docs/math/manifolds.md) name it in a string attribute of the dataset; their
// points may then be arrays (N x k x 2 landmarks, N x n x n matrices), read as rows of their
// flattened values (C order). Every other data set is 2-D.
inline constexpr const char* kOutputSpaceAttribute = "output_space";

struct DatasetInfo {
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;                // numbers per row (the product of the trailing dimensions)
  std::vector<std::uint64_t> row_shape;  // the trailing dimensions ({cols} for a 2-D dataset)
  bool has_output_space = false;         // the dataset carries kOutputSpaceAttribute
  ElementType type = ElementType::float64;
  bool has_labels = false;        // a "/labels" object exists
  std::uint64_t label_count = 0;  // its length (first dimension) when it does
};

// Collective. InputError (naming file and path) when the file or dataset is missing, the dataset
// is not 2-D (or, with kOutputSpaceAttribute, at least 2-D) or its element type is not float32, float64 or
// integer.
DatasetInfo inspect_dataset(const std::string& file, const std::string& path, MPI_Comm comm);

// Collective. Rows [row_begin, row_begin + row_count) of a 2-D float32/float64 dataset, as doubles.
// InputError when the range lies outside the dataset (on any rank) or the data are not floats.
RowMatrix read_rows(const std::string& file, const std::string& path, std::uint64_t row_begin,
                    std::uint64_t row_count, MPI_Comm comm);
// The same on a file that is open already (all ranks of the file's communicator call it).
RowMatrix read_rows(const Hdf5File& file, const std::string& path, std::uint64_t row_begin,
                    std::uint64_t row_count);
// The same rows as float32 (HDF5 converts float64 on read: rounding; magnitudes beyond float32's
// range become +-Inf, which require_finite_rows then reports, naming the row).
RowMatrixF read_rows_float32(const std::string& file, const std::string& path, std::uint64_t row_begin,
                             std::uint64_t row_count, MPI_Comm comm);

// Collective. Labels [row_begin, row_begin + row_count) of an integer dataset of shape (N) or
// (N, 1), usually kDefaultLabelsPath.
std::vector<std::int64_t> read_label_rows(const std::string& file, const std::string& path,
                                          std::uint64_t row_begin, std::uint64_t row_count, MPI_Comm comm);
// The same on a file that is open already.
std::vector<std::int64_t> read_label_rows(const Hdf5File& file, const std::string& path,
                                          std::uint64_t row_begin, std::uint64_t row_count);

// InputError naming the file, the labels path and both lengths unless they match.
void validate_labels_length(const std::string& file, const std::string& labels_path,
                            std::uint64_t labels_length, std::uint64_t data_rows);

// Not collective. InputError naming the file and the first row holding NaN or Inf by its global
// index (context key "row"): rows[i] is global row row_begin + i of dataset `path`.
void require_finite_rows(const DataRef& rows, std::uint64_t row_begin, const std::string& file,
                         const std::string& path);
// Collective form: every rank throws, naming the offending row of the lowest failing rank (the
// lowest global row when ranks hold ascending row blocks).
void require_finite_rows(const DataRef& rows, std::uint64_t row_begin, const std::string& file,
                         const std::string& path, MPI_Comm comm);
void require_finite_rows(const DataRefF& rows, std::uint64_t row_begin, const std::string& file,
                         const std::string& path, MPI_Comm comm);

}  // namespace gplvm
