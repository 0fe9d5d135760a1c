// The t-SNE repulsion's sums at 1-4 ranks (include/gplvm/probdr/interpolated_repulsion.hpp): rows
// split as RowPartition splits them, the interpolated Z and the gathered F have the bits of one
// process holding every row (MPI_COMM_SELF), in 1-D and 2-D, with ranks that hold no row, through a
// reused workspace whose grid changes size; the exact sums too.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/probdr/interpolated_repulsion.hpp"

namespace gplvm {
namespace {

RowMatrix clusters(Index n, Index l, double extent, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(-0.5 * extent, 0.5 * extent);
  RowMatrix y(n, l);
  for (Index i = 0; i < n; ++i)
    for (Index d = 0; d < l; ++d)
      y(i, d) = (i % 7 == 0 ? uniform(engine) : 0.1 * extent * (i % 5)) + normal(engine);
  return y;
}

RowMatrix local_block(const RowMatrix& all, const Communicator& comm) {
  const RowPartition partition(static_cast<std::uint64_t>(all.rows()), comm.size());
  return all.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                        static_cast<Index>(partition.count(comm.rank())));
}

// How many values of (Z, F gathered in row order) differ in their bits from the serial sums.
Index differing_bits(const RepulsionSums& distributed, const RepulsionSums& serial,
                     const Communicator& comm) {
  const RowMatrix forces = comm.allgather_rows(DataRef(distributed.forces));
  Index differing = std::memcmp(&distributed.normaliser, &serial.normaliser, sizeof(double)) != 0;
  if (forces.rows() != serial.forces.rows() || forces.cols() != serial.forces.cols())
    return forces.size() + 1;
  for (Index k = 0; k < forces.size(); ++k)
    differing += std::memcmp(forces.data() + k, serial.forces.data() + k, sizeof(double)) != 0;
  return differing;
}

TEST(InterpolatedRepulsionRanks, SumsHaveTheBitsOfOneProcess) {
  const Communicator comm;
  const Communicator self(MPI_COMM_SELF);
  for (const Index l : {1, 2})
    for (const double alpha : {1.0, 0.5}) {
      const RowMatrix y = clusters(4001, l, 25.0, 17);
      InterpolationOptions options;
      options.nodes_per_box = 3 + (l == 2 ? 1 : 0);
      const RepulsionSums serial = interpolated_repulsion(y, alpha, options, self);
      const RepulsionSums distributed = interpolated_repulsion(local_block(y, comm), alpha, options, comm);
      EXPECT_EQ(distributed.boxes_per_dimension, serial.boxes_per_dimension);
      EXPECT_EQ(differing_bits(distributed, serial, comm), 0) << "l = " << l << ", alpha = " << alpha;
    }
}

TEST(InterpolatedRepulsionRanks, RanksWithoutRowsAndAGrowingGrid) {
  const Communicator comm;
  const Communicator self(MPI_COMM_SELF);
  InterpolationOptions options;
  options.min_boxes = 20;
  InterpolatedRepulsion repulsion(options);
  for (const Index n : {Index{3}, Index{1}, Index{500}})
    for (const double extent : {5.0, 60.0, 5.0}) {
      const RowMatrix y = clusters(n, 2, extent, static_cast<unsigned>(n));
      const RepulsionSums serial = interpolated_repulsion(y, 1.0, options, self);
      const RepulsionSums distributed = repulsion.evaluate(local_block(y, comm), 1.0, comm);
      EXPECT_EQ(differing_bits(distributed, serial, comm), 0) << "n = " << n << ", extent = " << extent;
    }
}

// Queries against a reference (encode), both split over the ranks: the bits of one process.
TEST(CrossRepulsionRanks, SumsHaveTheBitsOfOneProcess) {
  const Communicator comm;
  const Communicator self(MPI_COMM_SELF);
  for (const Index l : {1, 2}) {
    const RowMatrix reference = clusters(3001, l, 25.0, 19), query = clusters(403, l, 30.0, 23);
    const CrossRepulsionSums serial = interpolated_cross_repulsion(reference, query, 1.0, {}, self);
    const CrossRepulsionSums distributed =
        interpolated_cross_repulsion(local_block(reference, comm), local_block(query, comm), 1.0, {}, comm);
    const RowMatrix forces = comm.allgather_rows(DataRef(distributed.forces));
    const RowMatrix z = comm.allgather_rows(DataRef(RowMatrix(distributed.z)));
    ASSERT_EQ(forces.rows(), query.rows());
    EXPECT_EQ(std::memcmp(forces.data(), serial.forces.data(), sizeof(double) * forces.size()), 0) << l;
    EXPECT_EQ(std::memcmp(z.data(), serial.z.data(), sizeof(double) * z.size()), 0) << l;
  }
}

TEST(ExactRepulsionRanks, SumsHaveTheBitsOfOneProcess) {
  const Communicator comm;
  const Communicator self(MPI_COMM_SELF);
  for (const Index l : {1, 2, 3}) {
    const RowMatrix y = clusters(301, l, 10.0, 5);
    const RepulsionSums serial = exact_repulsion(y, 0.8, self);
    EXPECT_EQ(differing_bits(exact_repulsion(local_block(y, comm), 0.8, comm), serial, comm), 0)
        << "l = " << l;
  }
}

}  // namespace
}  // namespace gplvm
