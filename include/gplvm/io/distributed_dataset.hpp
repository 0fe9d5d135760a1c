#pragma once
// An N x D data set block-partitioned over the ranks: each rank reads only its rows (a hyperslab)
// and, when the file has them, its labels. Validated collectively, so every rank fails together.
#include <optional>
#include <string>
#include <vector>

#include "gplvm/core/precision.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

struct DistributedDataset {
  std::string file, path;
  std::uint64_t rows = 0, cols = 0;
  RowPartition partition{1, 1};
  RowMatrix local;                                  // rows [partition.begin(rank), +count)
  RowMatrixF local_f32;                             // instead of `local` when loaded as float32
  std::optional<std::vector<std::int64_t>> labels;  // local labels, if the file has them
};

// Throws InputError for a missing file or dataset, a dataset that is not 2-D, an empty data set,
// more ranks than rows, labels of the wrong length, or a non-finite value (naming the row).
// NumericalError naming the file when the values are so large that the kernel's and data fit's
// sums of fourth powers overflow (max |y| > (DBL_MAX / (N D))^(1/4), about 1e75 for 10^4 entries).
// storage = float32 fills local_f32 (half the memory; fp32 training) and leaves local empty.
DistributedDataset load_distributed_dataset(const std::string& file, const std::string& path,
                                            const std::string& labels_path, const Communicator& comm,
                                            Precision storage = Precision::float64);

}  // namespace gplvm
