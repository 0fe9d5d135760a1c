#pragma once
// Per-column preprocessing of the data (data.center, data.standardize; docs/math/preprocessing.md):
// y' = (y - mean) / scale, computed over all rows of a distributed data set, stored in the run
// file under /preprocess and applied again to any data the run encodes, evaluates or predicts.
// Predictions in the model's units return to the data's units by invert_mean / invert_variance.
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Column means and population standard deviations (NumPy's np.std, ddof = 0) over all N rows of
// a row-distributed matrix, and the range of its values. Collective: one allreduce for the sums,
// a second for the centred sums of squares (no cancellation when the mean is large next to the
// spread), one for the range.
struct ColumnStatistics {
  Vector mean, std;
  double min = 0, max = 0;
};
ColumnStatistics column_statistics(const Communicator& comm, const DataRef& local_rows,
                                   std::uint64_t total_rows);
ColumnStatistics column_statistics(const Communicator& comm, const DataRefF& local_rows,
                                   std::uint64_t total_rows);

struct DataTransform {
  bool center = false, standardize = false;
  Vector mean;   // subtracted from each column (zeros unless center)
  Vector scale;  // each column is divided by it (ones unless standardize)
  // Columns with (numerically) no spread: left unscaled (scale 1) when standardising.
  std::vector<Index> constant_columns;

  Index cols() const noexcept { return mean.size(); }
  bool is_identity() const { return !center && !standardize; }
  // InputError naming `source` and the width unless the rows have cols() columns.
  void require_width(Index width, const std::string& source) const;
  // y' = (y - mean) / scale, in place.
  void apply(RowMatrix& rows) const;
  void apply(RowMatrixF& rows) const;
  // Back to the data's units: y = y' * scale + mean (means), v = v' * scale^2 (variances).
  void invert_mean(RowMatrix& rows) const;
  // A variance per row shared by the D outputs (the GP predictive's) becomes one per entry.
  RowMatrix invert_variance(const ConstVectorRef& per_row) const;
};

// The identity transform of D columns (no preprocessing; what runs written without /preprocess get).
DataTransform identity_transform(Index cols);
// The transform the settings ask for, from statistics of the training data. A column whose
// standard deviation is at most 1e-12 * max(1, |mean|) is listed in constant_columns and kept at
// scale 1 (standardising it would divide by zero).
DataTransform make_data_transform(const ColumnStatistics& stats, bool center, bool standardize);

// /preprocess/mean and /preprocess/scale (D), attributes center and standardize (0/1) and
// constant_columns (their count).
void write_data_transform(Hdf5ResultWriter& out, const DataTransform& transform);
// The transform stored in a run file; the identity of data_dim columns if it has no /preprocess
// (files written before preprocessing existed). InputError naming the file on a malformed group.
DataTransform read_data_transform(const Hdf5ResultReader& run, Index data_dim);
DataTransform read_data_transform(const std::string& run_path, const Communicator& comm);

// A warning text when data of these statistics would make the default hyperparameters (unit
// scale: kernel variance 0.5, noise 0.5, lengthscale 0.1 in N(0, I) latents) meaningless: values
// outside [-10, 10], or a column standard deviation above 10, or every one below 0.1. Empty when
// the scale is sensible.
std::string data_scale_warning(const ColumnStatistics& transformed);
// The column statistics of the training data as loaded (or transformed). Collective.
ColumnStatistics training_data_statistics(const DistributedDataset& data, const Communicator& comm);
// A note naming the constant columns that standardising left unscaled; empty if there are none.
std::string constant_columns_note(const DataTransform& transform);

// Training data: computes the transform the settings ask for over all rows, applies it to this
// rank's rows in place (local or local_f32, whichever is loaded) and logs on rank 0 the constant
// columns and, when not standardising and `warn_about_scale` (a model whose default kernel and noise
// assume unit-scale data), data_scale_warning of the rows as the model will see them. Collective.
DataTransform preprocess_training_data(DistributedDataset& data, bool center, bool standardize,
                                       const Communicator& comm, bool warn_about_scale = true);
// Other data (to encode, evaluate or predict): applies a stored transform in place. InputError
// naming the data file if its width differs from the transform's.
void apply_data_transform(const DataTransform& transform, DistributedDataset& data);

}  // namespace gplvm
