// SNE, t-SNE and UMAP at 1-4 ranks: the affinities, the iterations (t-SNE with interpolated and
// exact repulsion, UMAP's epochs) and the placement of new rows give the same bits as a serial run
// (MPI_COMM_SELF), and the bad inputs of the affinities are refused alike on every rank.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/probdr/neighbour_embedding.hpp"
#include "graph/graph_test_data.hpp"

namespace gplvm {
namespace {

RowMatrix data() {
  return testing::three_clusters(40, 35, 30, 6, 3);
}

ProbdrSettings settings(NeighbourObjective objective, RepulsionMethod repulsion) {
  ProbdrSettings s;
  s.method = objective == NeighbourObjective::umap  ? "umap"
             : objective == NeighbourObjective::sne ? "sne"
                                                    : "tsne";
  s.latent_dim = 2;
  s.seed = 7;
  s.graph.k = 0;
  s.neighbour.objective = objective;
  s.neighbour.affinities.perplexity = 10;
  s.neighbour.repulsion = repulsion;
  s.neighbour.exaggeration_iterations = 10;
  s.neighbour.iterations = 15;
  s.neighbour.epochs = 25;
  return resolve_neighbour_settings(s, static_cast<std::uint64_t>(data().rows()));
}

// The embedding after every iteration, gathered.
RowMatrix run(const ProbdrSettings& s, const Communicator& comm) {
  const RowMatrix all = data();
  const RowMatrix local = testing::local_block(all, comm);
  const NeighbourAffinities a = neighbour_affinities(local, s, comm);
  const auto optimiser = make_neighbour_optimiser(a, s, static_cast<std::uint64_t>(all.rows()), comm);
  RowMatrix y = testing::local_block(RowMatrix(1e-2 * testing::gaussian_rows(all.rows(), 2, 5)), comm);
  DescentState state;
  for (Index t = 0; t < optimiser->iterations(); ++t) optimiser->step(y, state, t);
  return comm.allgather_rows(DataRef(y));
}

void expect_same_bits(const RowMatrix& a, const RowMatrix& b) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  for (Index i = 0; i < a.rows(); ++i)
    for (Index d = 0; d < a.cols(); ++d) ASSERT_EQ(a(i, d), b(i, d)) << "row " << i << " column " << d;
}

TEST(NeighbourEmbeddingRanks, TsneInterpolatedMatchesSerialBitwise) {
  const ProbdrSettings s = settings(NeighbourObjective::tsne, RepulsionMethod::interpolation);
  expect_same_bits(run(s, Communicator()), run(s, Communicator(MPI_COMM_SELF)));
}

TEST(NeighbourEmbeddingRanks, TsneExactMatchesSerialBitwise) {
  const ProbdrSettings s = settings(NeighbourObjective::tsne, RepulsionMethod::exact);
  expect_same_bits(run(s, Communicator()), run(s, Communicator(MPI_COMM_SELF)));
}

TEST(NeighbourEmbeddingRanks, UmapEpochsMatchSerialBitwise) {
  const ProbdrSettings s = settings(NeighbourObjective::umap, RepulsionMethod::negative_sampling);
  const RowMatrix distributed = run(s, Communicator());
  expect_same_bits(distributed, run(s, Communicator(MPI_COMM_SELF)));
  // The epochs moved the points (a start of scale 1e-2 spreads to UMAP's unit scale).
  EXPECT_GT(distributed.colwise().maxCoeff().maxCoeff() - distributed.colwise().minCoeff().minCoeff(), 0.5);
}

// New rows against a fixed embedding: the same bits at every rank count, t-SNE's repulsion exact and
// interpolated (where the training used the grid), UMAP's by negative sampling; the interpolated
// placement lands where the exact one does.
TEST(NeighbourEmbeddingRanks, NewRowsArePlacedAlikeAtEveryRankCount) {
  const RowMatrix all = data();
  const RowMatrix training = all.topRows(90), fresh = all.bottomRows(15);
  const RowMatrix latents = 3.0 * testing::gaussian_rows(90, 2, 9);
  auto place = [&](const ProbdrSettings& s, const Communicator& comm) {
    const RowMatrix local_training = testing::local_block(training, comm);
    const RowMatrix local_latents = testing::local_block(latents, comm);
    const RowMatrix placed =
        place_new_rows(local_training, Matrix(local_latents), testing::local_block(fresh, comm), s, comm);
    return comm.allgather_rows(DataRef(placed));
  };
  std::vector<RowMatrix> tsne;
  for (const auto& [objective, repulsion] :
       {std::pair{NeighbourObjective::tsne, RepulsionMethod::exact},
        std::pair{NeighbourObjective::tsne, RepulsionMethod::interpolation},
        std::pair{NeighbourObjective::umap, RepulsionMethod::automatic}}) {
    ProbdrSettings s = settings(objective, repulsion);
    s.neighbour.encode_iterations = 20;
    const RowMatrix distributed = place(s, Communicator());
    expect_same_bits(distributed, place(s, Communicator(MPI_COMM_SELF)));
    if (objective == NeighbourObjective::tsne) tsne.push_back(distributed);
  }
  const double extent = latents.maxCoeff() - latents.minCoeff();
  EXPECT_LT((tsne[1] - tsne[0]).cwiseAbs().maxCoeff(), 1e-3 * extent);
}

TEST(NeighbourEmbeddingRanks, BadInputsAreRefusedNamingTheKey) {
  const Communicator comm;
  const RowMatrix all = data();
  auto refuses = [&](ProbdrSettings s, const RowMatrix& rows, const std::string& key) {
    try {
      neighbour_affinities(testing::local_block(rows, comm), s, comm);
      ADD_FAILURE() << "no error for " << key;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  ProbdrSettings s = settings(NeighbourObjective::tsne, RepulsionMethod::automatic);
  ProbdrSettings high = s;
  high.neighbour.affinities.perplexity = 40;  // >= n / 3 = 35
  high.graph.k = 100;
  refuses(high, all, "probdr.perplexity");
  ProbdrSettings many = s;
  many.graph.k = all.rows();
  refuses(many, all, "graph.k");
  RowMatrix duplicated = all;
  duplicated.row(50) = duplicated.row(7);
  refuses(s, duplicated, "data rows 7 and 50 are identical");
  RowMatrix holed = all;
  holed(20, 1) = std::nan("");
  refuses(s, holed, "NaN");
  refuses(s, all.topRows(3), "at least 4");
}

}  // namespace
}  // namespace gplvm
