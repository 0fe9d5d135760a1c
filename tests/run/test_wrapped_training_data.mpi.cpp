// Manifold-valued training data at 1-4 ranks: each rank reads its rows of an N x (n+1),
// N x k x 2 or N x n x n dataset, the Fréchet mean is taken over all rows, and each rank's rows
// become tangent coordinates; gathered, they equal the serial chart's coordinates exactly, so a
// wrapped model trains on the same numbers at any rank count. A row off the manifold fails on
// every rank alike, naming the row.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

#include "gplvm/core/error.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/importers.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/run/manifold_data.hpp"
#include "gplvm/synthetic/manifold_generators.hpp"

namespace gplvm {
namespace {

// Rank 0 writes the data set; every rank gets its path.
std::string write_shared(const Communicator& comm, const SyntheticData& data, const std::string& name) {
  std::string path;
  if (comm.is_root()) {
    path =
        (std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".h5")).string();
    std::filesystem::remove(path);
    write_dataset_file(path, data.Y, nullptr, false, "/Y", {data.point_shape, data.output_space});
  }
  return comm.broadcast(path);
}

TEST(WrappedTrainingData, TangentCoordinatesAreTheSerialOnesAtAnyRankCount) {
  const Communicator comm;
  for (const std::string space : {"sphere", "kendall", "spd_affine"}) {
    const SyntheticData data = space == "sphere"    ? sphere_curve(23, 1, 0.05)
                               : space == "kendall" ? planar_shapes(23, 7, 1, 0.02)
                                                    : spd_tensors(23, 1, 0.05);
    const std::string file = write_shared(comm, data, "wrapped_" + space);
    DistributedDataset d = load_distributed_dataset(file, "/Y", "", comm);
    ASSERT_EQ(d.cols, static_cast<std::uint64_t>(data.Y.cols())) << space;
    const TangentChart chart = map_training_data_to_tangent(d, space, comm);
    const RowMatrix gathered = comm.allgather_rows(DataRef(d.local));

    const TangentChart serial =
        TangentChart::at_frechet_mean(make_output_manifold(space, data.Y.cols()), data.Y);
    EXPECT_EQ(d.cols, static_cast<std::uint64_t>(serial.manifold->intrinsic_dim()));
    EXPECT_EQ((chart.basepoint - serial.basepoint).cwiseAbs().maxCoeff(), 0.0) << space;
    EXPECT_EQ((gathered - serial.coordinates(data.Y)).cwiseAbs().maxCoeff(), 0.0) << space;
    comm.barrier();
    if (comm.is_root()) std::filesystem::remove(file);
  }
}

TEST(WrappedTrainingData, ARowOffTheManifoldFailsOnEveryRankNamingIt) {
  const Communicator comm;
  SyntheticData data = sphere_curve(19, 2, 0.05);
  data.Y.row(13) *= 1.01;
  const std::string file = write_shared(comm, data, "wrapped_bad");
  DistributedDataset d = load_distributed_dataset(file, "/Y", "", comm);
  try {
    map_training_data_to_tangent(d, "sphere", comm);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().value, "13");
    EXPECT_NE(std::string(e.what()).find("tolerance"), std::string::npos) << e.what();
  }
  // Data that name another output space are refused, naming the key.
  DistributedDataset again = load_distributed_dataset(file, "/Y", "", comm);
  try {
    map_training_data_to_tangent(again, "kendall", comm);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "model.output_space");
  }
  comm.barrier();
  if (comm.is_root()) std::filesystem::remove(file);
}

}  // namespace
}  // namespace gplvm
