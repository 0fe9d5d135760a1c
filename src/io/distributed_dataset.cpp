#include "gplvm/io/distributed_dataset.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/io/dataset_reader.hpp"

namespace gplvm {

DistributedDataset load_distributed_dataset(const std::string& file, const std::string& path,
                                            const std::string& labels_path, const Communicator& comm,
                                            Precision storage) {
  const DatasetInfo info = inspect_dataset(file, path, comm.raw());
  require(info.rows > 0 && info.cols > 0, "data set is empty",
          {file, path, std::to_string(info.rows) + "x" + std::to_string(info.cols)});
  require(static_cast<std::uint64_t>(comm.size()) <= info.rows,
          "more MPI ranks than data rows: every rank must own at least one row",
          {file, path, std::to_string(comm.size()) + " ranks for " + std::to_string(info.rows) + " rows"});
  DistributedDataset d;
  d.file = file;
  d.path = path;
  d.rows = info.rows;
  d.cols = info.cols;
  d.partition = RowPartition(info.rows, comm.size());
  const std::uint64_t begin = d.partition.begin(comm.rank()), count = d.partition.count(comm.rank());
  if (storage == Precision::float32) {
    d.local_f32 = read_rows_float32(file, path, begin, count, comm.raw());
    require_finite_rows(d.local_f32, begin, file, path, comm.raw());
  } else {
    d.local = read_rows(file, path, begin, count, comm.raw());
    require_finite_rows(d.local, begin, file, path, comm.raw());
  }
  if (!labels_path.empty() && info.has_labels && labels_path == "/labels") {
    validate_labels_length(file, labels_path, info.label_count, info.rows);
    d.labels = read_label_rows(file, labels_path, begin, count, comm.raw());
  }
  return d;
}

}  // namespace gplvm
