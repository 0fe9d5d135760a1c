// Preemption of full-batch training: a run stopped after some iterations (as a signal stops it),
// checkpointed with its L-BFGS memory (write_run_file / read_checkpoint) and resumed from the
// checkpoint, is the uninterrupted run: the same parameters and objective curve to the last bit,
// for the exact GPLVM (which refuses train.reproducible: TAO's vector distributed over the ranks)
// and the sparse GPLVM (sparse.training = "full_batch") under train.reproducible (TAO's vector
// replicated), at this test's rank count. A checkpoint without the memory (written before it
// was kept) still resumes, from its iterate; a malformed memory is refused naming its dataset.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/exact_gplvm_model.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/petsc/petsc_session.hpp"
#include "gplvm/train/full_batch_trainer.hpp"
#include "gplvm/train/run_file.hpp"
#include "support/bitwise_compare.hpp"
#include "support/petsc_environment.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr int kIterations = 30;

struct Problem {
  RowPartition partition;
  RowMatrix Y_local;
  std::unique_ptr<Model> model;
  std::unique_ptr<FullBatchObjective> objective;
  RunMetadata metadata;
};

bool replicated_for(const Problem& p) {
  return p.model->kind() != "exact";
}

using ModelFactory =
    std::function<std::unique_ptr<Model>(std::uint64_t rows, std::uint64_t begin, std::uint64_t count)>;

Problem make_problem(const Communicator& comm, const RowMatrix& Y, const ModelFactory& factory) {
  const RowPartition partition(static_cast<std::uint64_t>(Y.rows()), comm.size());
  const std::uint64_t begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  Problem p{
      partition, Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count)), nullptr, nullptr, {}};
  p.model = factory(static_cast<std::uint64_t>(Y.rows()), begin, count);
  p.model->initialise_from_data(comm, partition, DataRef(p.Y_local));
  p.objective = p.model->make_full_batch_objective(comm, partition, DataRef(p.Y_local));
  p.metadata.config_toml = "# test";
  p.metadata.data = fingerprint_data(comm, DataRef(p.Y_local), begin, static_cast<std::uint64_t>(Y.rows()));
  return p;
}

FullBatchOptions options(const Problem& p, int iterations) {
  FullBatchOptions o;
  o.max_iterations = iterations;
  o.gatol = o.grtol = 0;             // run every iteration
  o.replicated = replicated_for(p);  // train.reproducible
  return o;
}

Vector as_vector(const std::vector<double>& v) {
  return Eigen::Map<const Vector>(v.data(), static_cast<Index>(v.size()));
}

// Stops (as a signal would, after an iteration) once `stop_after` iterations are done.
FullBatchResult train_until(const Communicator& comm, const Problem& p, int stop_after) {
  FullBatchOptions o = options(p, kIterations);
  int seen = 0;
  o.should_stop = [&seen, stop_after] { return seen++ >= stop_after; };
  return train_full_batch(*p.model, *p.objective, comm, p.model->initial_parameters(), o);
}

// The stopped run's checkpoint, written and read back as the train command does.
TrainingState checkpoint_round_trip(const Communicator& comm, const Problem& p,
                                    const FullBatchResult& stopped, const std::string& file,
                                    bool with_memory) {
  TrainingState state;
  state.params = stopped.params;
  state.adam.first_moment = state.adam.second_moment = Vector::Zero(p.model->num_parameters());
  state.step = static_cast<std::uint64_t>(stopped.iterations);
  for (std::size_t i = 0; i < stopped.curve.size(); ++i) state.curve.push_back({i, 0, stopped.curve[i], 0.0});
  if (with_memory) state.lbfgs = stopped.lbfgs;
  const LocalLatents latents = encode_local_latents(*p.model, state.params, DataRef(p.Y_local));
  write_run_file(file, comm, {*p.model, state, latents, nullptr, p.metadata}, true);
  return read_checkpoint(file, comm, *p.model, p.metadata);
}

std::string scratch_file(const Communicator& comm, const std::string& name) {
  const std::string path =
      ::testing::TempDir() + "full_batch_resume_" + name + "_np" + std::to_string(comm.size()) + ".h5";
  if (comm.is_root()) std::remove(path.c_str());
  comm.barrier();
  return path;
}

void expect_resume_equals_uninterrupted(const ModelFactory& factory, const RowMatrix& Y, int stop_after,
                                        const std::string& name) {
  const Communicator comm;
  const Problem p = make_problem(comm, Y, factory);
  const FullBatchResult full =
      train_full_batch(*p.model, *p.objective, comm, p.model->initial_parameters(), options(p, kIterations));
  ASSERT_EQ(full.iterations, kIterations);

  const FullBatchResult stopped = train_until(comm, p, stop_after);
  ASSERT_EQ(stopped.reason, TaoStopReason::stop_requested);
  ASSERT_EQ(stopped.iterations, stop_after);
  ASSERT_TRUE(stopped.lbfgs_restorable);
  EXPECT_EQ(stopped.lbfgs.size(), static_cast<std::size_t>(std::min(stop_after, kTaoLbfgsHistory + 1)));

  const TrainingState state = checkpoint_round_trip(comm, p, stopped, scratch_file(comm, name), true);
  ASSERT_EQ(state.lbfgs.size(), stopped.lbfgs.size());
  for (std::size_t i = 0; i < state.lbfgs.size(); ++i) {
    EXPECT_EQ(testing::bitwise_differences(state.lbfgs.x[i], stopped.lbfgs.x[i]), 0) << "point " << i;
    EXPECT_EQ(testing::bitwise_differences(state.lbfgs.gradient[i], stopped.lbfgs.gradient[i]), 0)
        << "point " << i;
  }
  const FullBatchResult resumed = train_full_batch(*p.model, *p.objective, comm, state.params,
                                                   options(p, kIterations - stop_after), &state.lbfgs);
  EXPECT_EQ(stopped.iterations + resumed.iterations, full.iterations);
  EXPECT_EQ(testing::bitwise_differences(testing::parameters_in_row_order(comm, *p.model, resumed.params),
                                         testing::parameters_in_row_order(comm, *p.model, full.params)),
            0)
      << "parameters at " << comm.size() << " ranks";
  // The resumed curve starts at the stopped run's last point.
  std::vector<double> curve = stopped.curve;
  curve.insert(curve.end(), resumed.curve.begin() + 1, resumed.curve.end());
  EXPECT_EQ(testing::bitwise_differences(as_vector(curve), as_vector(full.curve)), 0) << "objective curve";

  // Without the memory (a checkpoint from before it was kept) the run resumes from the iterate.
  const TrainingState old = checkpoint_round_trip(comm, p, stopped, scratch_file(comm, name + "_old"), false);
  EXPECT_EQ(old.lbfgs.size(), 0u);
  const FullBatchResult fresh = train_full_batch(*p.model, *p.objective, comm, old.params,
                                                 options(p, kIterations - stop_after), &old.lbfgs);
  EXPECT_EQ(fresh.iterations, kIterations - stop_after);
  EXPECT_GE(fresh.objective, stopped.objective);
  // The memory is what makes the resumed run the uninterrupted one.
  EXPECT_GT(testing::bitwise_differences(testing::parameters_in_row_order(comm, *p.model, fresh.params),
                                         testing::parameters_in_row_order(comm, *p.model, full.params)),
            0);
}

std::unique_ptr<Model> exact_model(std::uint64_t rows, std::uint64_t begin, std::uint64_t count) {
  ExactGplvmConfig c;
  c.base.data_dim = 4;
  c.base.latent_dim = 2;
  c.base.latents = LatentKind::free;
  c.base.decoder.noise_variance = 0.3;
  c.base.seed = 5;
  c.gp.block_size = 8;
  return std::make_unique<ExactGplvmModel>(c, rows, begin, count);
}

std::unique_ptr<Model> sparse_model(std::uint64_t rows, std::uint64_t begin, std::uint64_t count) {
  SparseGplvmConfig c;
  c.data_dim = 4;
  c.latent_dim = 2;
  c.latents = LatentKind::free;
  c.decoder.init.lengthscale = 1.0;
  c.decoder.noise_variance = 0.1;
  c.num_inducing = 8;
  c.training = SparseTraining::full_batch;
  c.seed = 3;
  c.reproducible_sums = true;
  return std::make_unique<SparseGplvmModel>(c, rows, begin, count);
}

TEST(FullBatchResume, ExactGplvmResumedFromACheckpointIsBitwiseTheUninterruptedRun) {
  expect_resume_equals_uninterrupted(exact_model, testing::random_normal(40, 4, 7), 11, "exact");
}

TEST(FullBatchResume, ExactGplvmStoppedBeforeItsMemoryFillsResumesBitwise) {
  expect_resume_equals_uninterrupted(exact_model, testing::random_normal(40, 4, 7), 3, "exact_early");
}

TEST(FullBatchResume, SparseGplvmFullBatchResumedFromACheckpointIsBitwiseTheUninterruptedRun) {
  expect_resume_equals_uninterrupted(sparse_model, testing::random_normal(120, 4, 9), 12, "sparse");
}

TEST(FullBatchResume, AMalformedMemoryIsRefusedNamingItsDataset) {
  const Communicator comm;
  const Problem p = make_problem(comm, testing::random_normal(40, 4, 7), exact_model);
  const FullBatchResult stopped = train_until(comm, p, 8);
  ASSERT_TRUE(stopped.lbfgs_restorable);
  const std::string file = scratch_file(comm, "malformed");
  checkpoint_round_trip(comm, p, stopped, file, true);
  comm.barrier();  // every rank has closed the checkpoint
  double replaced = 0;
  if (comm.is_root()) {
    // The dataset replaced by one of another shape (2 x 3 instead of points x shared).
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (f >= 0 && H5Ldelete(f, "/state/lbfgs/x_shared", H5P_DEFAULT) >= 0) {
      const hsize_t dims[2] = {2, 3};
      const double zeros[6] = {};
      const hid_t space = H5Screate_simple(2, dims, nullptr);
      const hid_t d = H5Dcreate2(f, "/state/lbfgs/x_shared", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT,
                                 H5P_DEFAULT);
      replaced = d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros) >= 0 ? 1 : 0;
      if (d >= 0) H5Dclose(d);
      H5Sclose(space);
    }
    if (f >= 0) H5Fclose(f);
  }
  comm.broadcast(&replaced, 1);
  ASSERT_EQ(replaced, 1) << "cannot replace /state/lbfgs/x_shared in " << file;
  try {
    read_checkpoint(file, comm, *p.model, p.metadata);
    ADD_FAILURE() << "a malformed L-BFGS memory was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "/state/lbfgs/x_shared") << e.what();
  }
}

// One PETSc session for the binary, between MPI_Init and MPI_Finalize (inside RUN_ALL_TESTS).
const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace
}  // namespace gplvm
