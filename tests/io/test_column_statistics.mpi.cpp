// Column statistics for data.center / data.standardize under mpirun at 1-4 ranks: the means and
// population standard deviations reduced over the ranks' rows equal the serial two-pass formulas
// over the whole matrix (written here), in float64 and float32 storage, and the transform built
// from them standardises every rank's rows to mean 0 and standard deviation 1 (constant columns
// left unscaled), and inverts exactly.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/io/data_transform.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 41, kCols = 4;

// Column 1 has a large mean next to its spread (cancellation in a one-pass formula), column 3 is
// constant.
RowMatrix data() {
  RowMatrix Y = testing::random_normal(kRows, kCols, 21);
  Y.col(0) *= 3.0;
  Y.col(1) = 1e6 + 1e-3 * Y.col(1).array();
  Y.col(2) = -7.0 + 0.2 * Y.col(2).array();
  Y.col(3).setConstant(2.5);
  return Y;
}

struct Serial {
  Vector mean, std;
};
Serial serial_statistics(const RowMatrix& Y) {
  Serial s;
  s.mean = Y.colwise().mean().transpose();
  s.std = ((Y.rowwise() - s.mean.transpose()).array().square().colwise().sum() / Y.rows()).sqrt().transpose();
  return s;
}

struct Local {
  Index begin, count;
};
Local my_rows(const Communicator& comm) {
  const RowPartition p(kRows, comm.size());
  return {static_cast<Index>(p.begin(comm.rank())), static_cast<Index>(p.count(comm.rank()))};
}

TEST(ColumnStatistics, DistributedEqualsSerial) {
  const Communicator comm;
  const RowMatrix Y = data();
  const Local l = my_rows(comm);
  const Serial want = serial_statistics(Y);
  const ColumnStatistics got = column_statistics(comm, DataRef(Y.middleRows(l.begin, l.count)), kRows);
  for (Index d = 0; d < kCols; ++d) {
    EXPECT_NEAR(got.mean[d], want.mean[d], 1e-14 * std::max(1.0, std::abs(want.mean[d]))) << d;
    EXPECT_NEAR(got.std[d], want.std[d], 1e-12 * std::max(1e-3, want.std[d])) << d;
  }
  EXPECT_EQ(got.min, Y.minCoeff());
  EXPECT_EQ(got.max, Y.maxCoeff());

  // float32 storage: the same statistics of the float values.
  const RowMatrixF Yf = Y.cast<float>();
  const Serial want_f = serial_statistics(Yf.cast<double>());
  const ColumnStatistics got_f = column_statistics(comm, DataRefF(Yf.middleRows(l.begin, l.count)), kRows);
  EXPECT_LT((got_f.mean - want_f.mean).cwiseAbs().maxCoeff(), 1e-14 * 1e6);
  EXPECT_LT((got_f.std - want_f.std).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(ColumnStatistics, StandardisedRowsHaveUnitSpreadAndInvertExactly) {
  const Communicator comm;
  const RowMatrix Y = data();
  const Local l = my_rows(comm);
  const DataTransform t = make_data_transform(
      column_statistics(comm, DataRef(Y.middleRows(l.begin, l.count)), kRows), true, true);
  EXPECT_EQ(t.constant_columns, std::vector<Index>{3});
  EXPECT_EQ(t.scale[3], 1.0);
  EXPECT_NE(constant_columns_note(t).find("column(s) 3"), std::string::npos);
  RowMatrix mine = Y.middleRows(l.begin, l.count);
  t.apply(mine);
  // Every rank's standardised rows, gathered: mean 0 and standard deviation 1 per column.
  const Matrix all = comm.allgather_rows(DataRef(mine));
  const Serial s = serial_statistics(all);
  const Serial raw = serial_statistics(Y);
  for (Index d = 0; d < 3; ++d) {
    // Rounding of y - mu is eps |mu|, magnified by 1/s: 1e-7 for column 1 (mean 1e6, spread 1e-3).
    const double tolerance = 1e-13 * (1.0 + std::abs(raw.mean[d]) / raw.std[d]);
    EXPECT_NEAR(s.mean[d], 0.0, tolerance) << d;
    EXPECT_NEAR(s.std[d], 1.0, tolerance) << d;
  }
  EXPECT_EQ(s.mean[3], 0.0);
  EXPECT_EQ(s.std[3], 0.0);
  t.invert_mean(mine);
  EXPECT_LT((mine - Y.middleRows(l.begin, l.count)).cwiseAbs().maxCoeff(), 1e-15 * 1e6 * 8);
  const RowMatrix v = t.invert_variance(Vector::Constant(2, 0.5));
  EXPECT_NEAR(v(1, 0), 0.5 * t.scale[0] * t.scale[0], 1e-15);
}

TEST(ColumnStatistics, ScaleWarningNamesTheRangeAndTheKeys) {
  ColumnStatistics unit{Vector::Zero(2), Vector::Ones(2), -3.0, 3.0};
  EXPECT_TRUE(data_scale_warning(unit).empty());
  ColumnStatistics wide{Vector::Zero(2), Vector::Constant(2, 40.0), -120.0, 250.0};
  const std::string w = data_scale_warning(wide);
  EXPECT_NE(w.find("[-120, 250]"), std::string::npos) << w;
  EXPECT_NE(w.find("data.standardize"), std::string::npos) << w;
  ColumnStatistics tiny{Vector::Zero(2), Vector::Constant(2, 0.01), -0.05, 0.05};
  EXPECT_FALSE(data_scale_warning(tiny).empty());
}

}  // namespace
}  // namespace gplvm
