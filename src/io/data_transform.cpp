#include "gplvm/io/data_transform.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"

namespace gplvm {
namespace {

// Column sums of the rows' centred squares and the rows' range, accumulated in double.
template <typename Scalar>
ColumnStatistics statistics_of(const Communicator& comm, const DataRefT<Scalar>& local,
                               std::uint64_t total_rows) {
  require(total_rows >= 1, "no data rows to compute column statistics of", {"", "data", "0"});
  const Index d = local.cols();
  const auto n = static_cast<double>(total_rows);
  ColumnStatistics s;
  s.mean = local.template cast<double>().colwise().sum().transpose();
  comm.allreduce_sum(s.mean.data(), d);
  s.mean /= n;
  s.std = Vector::Zero(d);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (Index i = 0; i < local.rows(); ++i) {
    const Vector row = local.row(i).template cast<double>().transpose();
    s.std += (row - s.mean).cwiseAbs2();
    lo = std::min(lo, row.minCoeff());
    hi = std::max(hi, row.maxCoeff());
  }
  comm.allreduce_sum(s.std.data(), d);
  s.std = (s.std / n).cwiseSqrt();
  s.min = -comm.allreduce_max(-lo);
  s.max = comm.allreduce_max(hi);
  return s;
}

template <typename Scalar>
void apply_to(const DataTransform& t, RowMatrixT<Scalar>& rows) {
  if (rows.size() == 0) return;  // the storage a data set did not load
  t.require_width(rows.cols(), "data");
  if (t.is_identity()) return;
  const Eigen::Matrix<Scalar, 1, Eigen::Dynamic> mean = t.mean.transpose().cast<Scalar>();
  const Eigen::Matrix<Scalar, 1, Eigen::Dynamic> inverse = t.scale.cwiseInverse().transpose().cast<Scalar>();
  for (Index i = 0; i < rows.rows(); ++i) rows.row(i) = (rows.row(i) - mean).cwiseProduct(inverse);
}

std::string column_list(const std::vector<Index>& columns) {
  std::ostringstream s;
  for (size_t i = 0; i < columns.size() && i < 10; ++i) s << (i ? ", " : "") << columns[i];
  if (columns.size() > 10) s << ", ... (" << columns.size() << " in all)";
  return s.str();
}

}  // namespace

ColumnStatistics column_statistics(const Communicator& comm, const DataRef& local_rows,
                                   std::uint64_t total_rows) {
  return statistics_of<double>(comm, local_rows, total_rows);
}

ColumnStatistics column_statistics(const Communicator& comm, const DataRefF& local_rows,
                                   std::uint64_t total_rows) {
  return statistics_of<float>(comm, local_rows, total_rows);
}

void DataTransform::require_width(Index width, const std::string& source) const {
  require(width == cols(),
          "data have " + std::to_string(width) + " columns but the stored preprocessing has " +
              std::to_string(cols()),
          {source, "/preprocess/mean", std::to_string(width)});
}

void DataTransform::apply(RowMatrix& rows) const {
  apply_to(*this, rows);
}
void DataTransform::apply(RowMatrixF& rows) const {
  apply_to(*this, rows);
}

void DataTransform::invert_mean(RowMatrix& rows) const {
  require_width(rows.cols(), "predictions");
  for (Index i = 0; i < rows.rows(); ++i)
    rows.row(i) = rows.row(i).cwiseProduct(scale.transpose()) + mean.transpose();
}

RowMatrix DataTransform::invert_variance(const ConstVectorRef& per_row) const {
  return per_row * scale.cwiseAbs2().transpose();
}

DataTransform identity_transform(Index cols) {
  DataTransform t;
  t.mean = Vector::Zero(cols);
  t.scale = Vector::Ones(cols);
  return t;
}

DataTransform make_data_transform(const ColumnStatistics& stats, bool center, bool standardize) {
  DataTransform t = identity_transform(stats.mean.size());
  t.center = center;
  t.standardize = standardize;
  if (center) t.mean = stats.mean;
  if (!standardize) return t;
  for (Index j = 0; j < stats.std.size(); ++j) {
    if (stats.std[j] <= 1e-12 * std::max(1.0, std::abs(stats.mean[j])))
      t.constant_columns.push_back(j);
    else
      t.scale[j] = stats.std[j];
  }
  return t;
}

void write_data_transform(Hdf5ResultWriter& out, const DataTransform& t) {
  out.write_vector("/preprocess/mean", t.mean);
  out.write_vector("/preprocess/scale", t.scale);
  out.write_attribute("/preprocess", "center", static_cast<std::int64_t>(t.center));
  out.write_attribute("/preprocess", "standardize", static_cast<std::int64_t>(t.standardize));
  out.write_attribute("/preprocess", "constant_columns",
                      static_cast<std::int64_t>(t.constant_columns.size()));
}

DataTransform read_data_transform(const Hdf5ResultReader& run, Index data_dim) {
  if (!run.exists("/preprocess")) return identity_transform(data_dim);
  DataTransform t;
  t.mean = run.read_vector("/preprocess/mean");
  t.scale = run.read_vector("/preprocess/scale");
  t.center = run.read_attribute_int64("/preprocess", "center") != 0;
  t.standardize = run.read_attribute_int64("/preprocess", "standardize") != 0;
  require(t.mean.size() == data_dim && t.scale.size() == data_dim,
          "stored preprocessing does not have one mean and one scale per data column (" +
              std::to_string(data_dim) + ")",
          {run.path(), "/preprocess", std::to_string(t.mean.size()) + ", " + std::to_string(t.scale.size())});
  require(t.mean.allFinite() && (t.scale.array() > 0).all() && t.scale.allFinite(),
          "stored preprocessing has a non-finite mean or a scale that is not positive",
          {run.path(), "/preprocess/scale", ""});
  return t;
}

DataTransform read_data_transform(const std::string& run_path, const Communicator& comm) {
  const Hdf5ResultReader run(run_path, comm.raw());
  return read_data_transform(run, run.read_attribute_int64("/", "data_dim"));
}

std::string data_scale_warning(const ColumnStatistics& s) {
  const double top_std = s.std.maxCoeff();
  const bool wide = s.min < -10 || s.max > 10, spread = top_std > 10, tiny = top_std < 0.1;
  if (!wide && !spread && !tiny) return {};
  std::ostringstream m;
  m << "the data's values lie in [" << s.min << ", " << s.max << "] with column standard deviations in ["
    << s.std.minCoeff() << ", " << top_std
    << "]; the default hyperparameters assume data of unit scale, so set data.standardize = true "
       "(with data.center = true) or choose model.kernel_variance, model.noise_variance and "
       "model.lengthscale for this scale";
  return m.str();
}

std::string constant_columns_note(const DataTransform& t) {
  if (t.constant_columns.empty()) return {};
  return "data.standardize: column(s) " + column_list(t.constant_columns) +
         " are constant and are left unscaled (scale 1)";
}

ColumnStatistics training_data_statistics(const DistributedDataset& data, const Communicator& comm) {
  // Every rank holds at least one row, in local or (float32 storage) in local_f32.
  return data.local.rows() > 0 ? column_statistics(comm, DataRef(data.local), data.rows)
                               : column_statistics(comm, DataRefF(data.local_f32), data.rows);
}

DataTransform preprocess_training_data(DistributedDataset& data, bool center, bool standardize,
                                       const Communicator& comm, bool warn_about_scale) {
  const DataTransform t = make_data_transform(training_data_statistics(data, comm), center, standardize);
  apply_data_transform(t, data);
  const bool scale_warning = warn_about_scale && !standardize;
  if (!comm.is_root()) {
    if (scale_warning) training_data_statistics(data, comm);  // collective: rank 0 needs it for the warning
    return t;
  }
  if (const std::string note = constant_columns_note(t); !note.empty()) log_warning(note);
  if (scale_warning)
    if (const std::string warning = data_scale_warning(training_data_statistics(data, comm));
        !warning.empty())
      log_warning(warning);
  return t;
}

void apply_data_transform(const DataTransform& transform, DistributedDataset& data) {
  transform.require_width(static_cast<Index>(data.cols), data.file);
  transform.apply(data.local);
  transform.apply(data.local_f32);
}

}  // namespace gplvm
