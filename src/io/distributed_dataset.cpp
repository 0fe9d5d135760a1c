#include "gplvm/io/distributed_dataset.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/hdf5_file.hpp"

namespace gplvm {
namespace {

// The number of labels in a labels dataset ((N) or (N, 1)); InputError naming the file and the
// dataset when it is absent. Collective.
std::uint64_t labels_length(const Hdf5File& file, const std::string& labels_path) {
  const Hdf5Dataset labels = file.open_dataset(labels_path);
  return labels.dims().empty() ? 1 : labels.dims()[0];
}

// Kernels, data fits and their adjoints multiply squared differences of values by further squared
// factors and sum them over the data: fourth powers summed over all N x D entries must stay finite,
// or the objective becomes Inf or NaN many steps later, far from the cause. Data this large are a
// unit mistake (or corrupt), and are named at load with their largest magnitude.
template <class Rows>
void require_kernel_safe_magnitude(const Rows& local, const DistributedDataset& d, const Communicator& comm) {
  const double largest =
      comm.allreduce_max(local.size() ? static_cast<double>(local.cwiseAbs().maxCoeff()) : 0.0);
  const double bound =
      std::pow(std::numeric_limits<double>::max() / static_cast<double>(d.rows * d.cols), 0.25);
  comm.all_or_none([&] {
    if (largest <= bound) return;
    char text[128];
    std::snprintf(text, sizeof text, "largest |value| %.3g, limit %.3g for %llu x %llu values", largest,
                  bound, static_cast<unsigned long long>(d.rows), static_cast<unsigned long long>(d.cols));
    throw NumericalError(
        "the data's values overflow the kernel (their fourth powers summed over the data "
        "exceed the double range); rescale the data",
        {d.file, d.path, text});
  });
}

}  // namespace

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
    require_kernel_safe_magnitude(d.local_f32, d, comm);
  } else {
    d.local = read_rows(file, path, begin, count, comm.raw());
    require_finite_rows(d.local, begin, file, path, comm.raw());
    require_kernel_safe_magnitude(d.local, d, comm);
  }
  // The default labels dataset is used when the file has one; any other path was asked for by
  // name, so its absence is an error naming it rather than a run without labels.
  const bool default_labels = labels_path == kDefaultLabelsPath;
  if (!labels_path.empty() && (info.has_labels || !default_labels)) {
    const std::uint64_t length =
        default_labels ? info.label_count : labels_length(Hdf5File::open(file, comm.raw()), labels_path);
    validate_labels_length(file, labels_path, length, info.rows);
    d.labels = read_label_rows(file, labels_path, begin, count, comm.raw());
  }
  return d;
}

}  // namespace gplvm
