#include "gplvm/io/dataset_reader.hpp"

#include <cmath>

#include "gplvm/parallel/communicator.hpp"
#include "hdf5_detail.hpp"

namespace gplvm {
namespace {

// Labels may be stored as (N) or as an (N, 1) column, as some writers do.
void require_label_shape(const Hdf5Dataset& labels) {
  const auto& dims = labels.dims();
  if (dims.size() == 1 || (dims.size() == 2 && dims[1] == 1)) return;
  labels.require_rank(1, "1-D (one integer label per data row)");
}

// 2-D, or an array per row when the dataset names the manifold its points lie on.
void require_row_layout(const Hdf5Dataset& data) {
  if (data.dims().size() > 2 && data.has_attribute(kOutputSpaceAttribute)) return;
  data.require_rank(2, "2-D (rows x columns)");
}

}  // namespace

DatasetInfo inspect_dataset(const std::string& file, const std::string& path, MPI_Comm comm) {
  const Hdf5File h5 = Hdf5File::open(file, comm);
  const Hdf5Dataset data = h5.open_dataset(path);
  DatasetInfo info;
  info.type = data.element_type();  // first: "string" says more about a wrong dataset than its rank
  require_row_layout(data);
  info.rows = data.dims()[0];
  info.cols = io_detail::row_width(data.dims());
  info.row_shape.assign(data.dims().begin() + 1, data.dims().end());
  info.has_output_space = data.has_attribute(kOutputSpaceAttribute);
  info.has_labels = path != kDefaultLabelsPath && h5.exists(kDefaultLabelsPath);
  if (info.has_labels) {
    const Hdf5Dataset labels = h5.open_dataset(kDefaultLabelsPath);
    info.label_count = labels.dims().empty() ? 1 : labels.dims()[0];
  }
  return info;
}

namespace {

template <typename Scalar>
RowMatrixT<Scalar> read_rows_as(const Hdf5File& file, const std::string& path, std::uint64_t row_begin,
                                std::uint64_t row_count, hid_t mem_type) {
  const Hdf5Dataset data = file.open_dataset(path);
  if (data.element_type() == ElementType::integer) {
    throw InputError("data must be float32 or float64, not integer (store the data as floats)",
                     data.context(data.type_name()));
  }
  require_row_layout(data);
  const Communicator io(file.comm());
  // The range check comes first so that no rank allocates for a request that fails.
  io_detail::require_block_in_range(io, {row_begin, row_count}, data.dims()[0], data.context());
  RowMatrixT<Scalar> rows(static_cast<Index>(row_count),
                          static_cast<Index>(io_detail::row_width(data.dims())));
  io_detail::read_row_block(data, io, mem_type, {row_begin, row_count}, rows.data());
  return rows;
}

template <typename Rows>
void require_finite_rows_in(const Rows& rows, std::uint64_t row_begin, const std::string& file,
                            const std::string& path) {
  for (Index i = 0; i < rows.rows(); ++i) {
    for (Index j = 0; j < rows.cols(); ++j) {
      if (std::isfinite(rows(i, j))) continue;
      const std::uint64_t row = row_begin + static_cast<std::uint64_t>(i);
      throw InputError("dataset " + path + " has a non-finite value (" + std::to_string(rows(i, j)) +
                           ") in row " + std::to_string(row) + ", column " + std::to_string(j) +
                           " (0-based)" +
                           (sizeof(rows(i, j)) == 4 ? "; read as float32, whose range is +-3.4e38" : ""),
                       {file, "row", std::to_string(row)});
    }
  }
}

}  // namespace

RowMatrix read_rows(const Hdf5File& file, const std::string& path, std::uint64_t row_begin,
                    std::uint64_t row_count) {
  return read_rows_as<double>(file, path, row_begin, row_count, H5T_NATIVE_DOUBLE);
}

RowMatrixF read_rows_float32(const std::string& file, const std::string& path, std::uint64_t row_begin,
                             std::uint64_t row_count, MPI_Comm comm) {
  const Hdf5File h5 = Hdf5File::open(file, comm);
  return read_rows_as<float>(h5, path, row_begin, row_count, H5T_NATIVE_FLOAT);
}

RowMatrix read_rows(const std::string& file, const std::string& path, std::uint64_t row_begin,
                    std::uint64_t row_count, MPI_Comm comm) {
  const Hdf5File h5 = Hdf5File::open(file, comm);
  return read_rows(h5, path, row_begin, row_count);
}

std::vector<std::int64_t> read_label_rows(const std::string& file, const std::string& path,
                                          std::uint64_t row_begin, std::uint64_t row_count, MPI_Comm comm) {
  const Hdf5File h5 = Hdf5File::open(file, comm);
  return read_label_rows(h5, path, row_begin, row_count);
}

std::vector<std::int64_t> read_label_rows(const Hdf5File& file, const std::string& path,
                                          std::uint64_t row_begin, std::uint64_t row_count) {
  const Hdf5Dataset labels = file.open_dataset(path);
  if (labels.element_type() != ElementType::integer) {
    throw InputError("labels must be integers, not " + labels.type_name(),
                     labels.context(labels.type_name()));
  }
  require_label_shape(labels);
  const Communicator io(file.comm());
  io_detail::require_block_in_range(io, {row_begin, row_count}, labels.dims()[0], labels.context());
  std::vector<std::int64_t> values(row_count);
  io_detail::read_row_block(labels, io, H5T_NATIVE_INT64, {row_begin, row_count}, values.data());
  return values;
}

void validate_labels_length(const std::string& file, const std::string& labels_path,
                            std::uint64_t labels_length, std::uint64_t data_rows) {
  if (labels_length == data_rows) return;
  throw InputError("labels dataset has " + std::to_string(labels_length) + " entries but the data have " +
                       std::to_string(data_rows) + " rows",
                   {file, labels_path, std::to_string(labels_length) + " != " + std::to_string(data_rows)});
}

void require_finite_rows(const DataRef& rows, std::uint64_t row_begin, const std::string& file,
                         const std::string& path) {
  require_finite_rows_in(rows, row_begin, file, path);
}

void require_finite_rows(const DataRef& rows, std::uint64_t row_begin, const std::string& file,
                         const std::string& path, MPI_Comm comm) {
  Communicator(comm).all_or_none([&] { require_finite_rows(rows, row_begin, file, path); });
}

void require_finite_rows(const DataRefF& rows, std::uint64_t row_begin, const std::string& file,
                         const std::string& path, MPI_Comm comm) {
  Communicator(comm).all_or_none([&] { require_finite_rows_in(rows, row_begin, file, path); });
}

}  // namespace gplvm
