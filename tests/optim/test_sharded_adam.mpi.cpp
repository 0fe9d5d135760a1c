// Sharded Adam and the two collectives it rests on, at 1-4 ranks, against Adam run whole on one
// process. Gradient terms are small integers times a power of two, so every sum is exact in any
// order: the collectives are compared bit for bit, and the optimisers to rounding (Adam's loop may
// round an element differently on its scalar and SIMD paths, and where a slice ends decides which
// path an element takes).
#include <gtest/gtest.h>

#include <limits>
#include <numeric>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {
namespace {

// Rank r's gradient term for element i at step t; the sum over ranks is exact.
double term(int rank, Index i, int t) {
  return static_cast<double>(((i * 7 + rank * 13 + t * 5) % 11) - 5) * 0x1p-4;
}

double summed_term(int ranks, Index i, int t) {
  double sum = 0;
  for (int r = 0; r < ranks; ++r) sum += term(r, i, t);
  return sum;
}

// Elementwise equal to a few units in the last place of the vector's largest element (a fused
// multiply-add changes the last bit of a term, which shows undiluted where terms cancel).
bool within_ulps(const Vector& a, const Vector& b) {
  const double scale = b.cwiseAbs().maxCoeff();
  return ((a - b).array().abs() <= 4 * std::numeric_limits<double>::epsilon() * scale).all();
}

// Uneven slices, one of them empty (on more than one rank), as a block whose size is not a
// multiple of the rank count gives them.
std::vector<int> uneven_counts(int ranks) {
  std::vector<int> counts(ranks);
  for (int r = 0; r < ranks; ++r) counts[r] = (r == 1) ? 0 : 5 + 3 * r;
  return counts;
}

template <typename Scalar>
void check_reduce_scatter() {
  const Communicator comm;
  const std::vector<int> counts = uneven_counts(comm.size());
  const int total = std::accumulate(counts.begin(), counts.end(), 0);
  const int first = std::accumulate(counts.begin(), counts.begin() + comm.rank(), 0);
  std::vector<Scalar> data(total);
  for (int i = 0; i < total; ++i) data[i] = static_cast<Scalar>(term(comm.rank(), i, 0));
  comm.reduce_scatter_sum(data.data(), counts);
  for (int i = 0; i < total; ++i) {
    const bool mine = i >= first && i < first + counts[comm.rank()];
    const double expected = mine ? summed_term(comm.size(), i, 0) : term(comm.rank(), i, 0);
    EXPECT_EQ(data[i], static_cast<Scalar>(expected)) << "element " << i << (mine ? " (own slice)" : "");
  }
}

TEST(Collectives, ReduceScatterSumsOnlyTheOwnSliceInDouble) {
  check_reduce_scatter<double>();
}
TEST(Collectives, ReduceScatterSumsOnlyTheOwnSliceInFloat) {
  check_reduce_scatter<float>();
}

TEST(Collectives, AllgatherSlicesCopiesEveryRanksSliceEverywhere) {
  const Communicator comm;
  const std::vector<int> counts = uneven_counts(comm.size());
  const int total = std::accumulate(counts.begin(), counts.end(), 0);
  std::vector<double> data(total, -1.0);
  int at = 0;
  for (int r = 0; r < comm.size(); ++r)
    for (int k = 0; k < counts[r]; ++k, ++at)
      if (r == comm.rank()) data[at] = 100.0 * r + k;  // other ranks' slices hold -1 until gathered
  comm.allgather_slices(data.data(), counts);
  at = 0;
  for (int r = 0; r < comm.size(); ++r)
    for (int k = 0; k < counts[r]; ++k, ++at)
      EXPECT_EQ(data[at], 100.0 * r + k) << "rank " << r << " k " << k;
}

TEST(Collectives, SliceCollectivesRejectAWrongNumberOfCounts) {
  const Communicator comm;
  std::vector<double> data(4);
  const std::vector<int> counts(comm.size() + 1, 1);
  EXPECT_THROW(comm.reduce_scatter_sum(data.data(), counts), InputError);
  EXPECT_THROW(comm.allgather_slices(data.data(), counts), InputError);
}

// A vector [4 replicated | 1003-element block | 6 rank-local]: ShardedAdam fed the reduce-scattered
// gradient must move the parameters exactly as Adam on the summed gradient does, and its gathered
// state must be Adam's state, at every step; the local block follows this rank's own gradient.
TEST(ShardedAdam, EqualsAdamOnTheSummedGradient) {
  const Communicator comm;
  constexpr Index kHead = 4, kBlock = 1003, kLocal = 6, n = kHead + kBlock + kLocal;
  const IndexRange block{kHead, kHead + kBlock};
  const AdamOptions o{0.01, 0.9, 0.999, 1e-8};
  ShardedAdam sharded(comm, n, block, o);
  Adam whole(n, o);
  ASSERT_EQ(static_cast<int>(sharded.slice_counts().size()), comm.size());
  EXPECT_EQ(std::accumulate(sharded.slice_counts().begin(), sharded.slice_counts().end(), Index{0}), kBlock);
  EXPECT_EQ(sharded.own_slice().end - sharded.own_slice().begin, sharded.slice_counts()[comm.rank()]);

  Vector p(n), q(n);
  for (Index i = 0; i < n; ++i) p[i] = q[i] = 0.01 * static_cast<double>(i % 17);
  for (int t = 0; t < 6; ++t) {
    Vector g(n), summed(n);
    for (Index i = 0; i < n; ++i) {
      const bool in_block = i >= block.begin && i < block.end;
      g[i] = in_block ? term(comm.rank(), i, t) : summed_term(comm.size(), i, t);
      summed[i] = in_block ? summed_term(comm.size(), i, t) : g[i];
    }
    for (Index i = n - kLocal; i < n; ++i) g[i] = summed[i] = term(comm.rank(), i, t);  // rank-local
    comm.reduce_scatter_sum(g.data() + block.begin, sharded.slice_counts());
    sharded.ascend(p, g);
    whole.ascend(q, summed);
    ASSERT_TRUE(within_ulps(p, q)) << "step " << t << ": max difference " << (p - q).cwiseAbs().maxCoeff();
    const AdamState s = sharded.state();
    EXPECT_EQ(s.steps, t + 1);
    EXPECT_TRUE(within_ulps(s.first_moment, whole.state().first_moment)) << "step " << t;
    EXPECT_TRUE(within_ulps(s.second_moment, whole.state().second_moment)) << "step " << t;
    // Every rank holds the same shared parameters, bit for bit: each was computed by one rank.
    Vector root = p.head(n - kLocal);
    comm.broadcast(root.data(), root.size());
    EXPECT_TRUE(root == p.head(n - kLocal)) << "step " << t;
  }
}

// fp32 training's path: the block's gradient reaches ShardedAdam as a reduce-scattered float
// gradient in an fp32 shadow. It must move every parameter exactly as the fp64 path does on the
// same gradient (double(float) is exact), and leave the shadow's weights equal to float(params)
// over the whole block on every rank, its gradient consumed. Gradient terms are small integers
// times a power of two, so the float sums are exact too.
TEST(ShardedAdam, Float32ShadowMovesTheParametersAsTheDoubleGradientDoes) {
  const Communicator comm;
  constexpr Index kHead = 4, kBlock = 1003, kLocal = 6, n = kHead + kBlock + kLocal;
  const IndexRange block{kHead, kHead + kBlock};
  const AdamOptions o{0.01, 0.9, 0.999, 1e-8};
  ShardedAdam with_shadow(comm, n, block, o), without(comm, n, block, o);
  Float32Shadow shadow(block);
  Vector p(n), q(n);
  for (Index i = 0; i < n; ++i)
    p[i] = q[i] = 0.01 * static_cast<double>(i % 17) + 1e-9 * static_cast<double>(i);
  for (int t = 0; t < 6; ++t) {
    Vector g(n);
    for (Index i = 0; i < n; ++i) {
      const bool in_block = i >= block.begin && i < block.end;
      g[i] = in_block ? term(comm.rank(), i, t) : summed_term(comm.size(), i, t);
    }
    for (Index i = n - kLocal; i < n; ++i) g[i] = term(comm.rank(), i, t);  // rank-local
    shadow.gradient = g.segment(block.begin, kBlock).cast<float>();
    comm.reduce_scatter_sum(shadow.gradient.data(), with_shadow.slice_counts());
    comm.reduce_scatter_sum(g.data() + block.begin, without.slice_counts());
    // What the step leaves in the fp64 gradient's block is not read: poison it.
    Vector poisoned = g;
    poisoned.segment(block.begin, kBlock).setConstant(std::numeric_limits<double>::quiet_NaN());
    shadow.gradient_ready = true;
    with_shadow.ascend(p, poisoned, shadow);
    without.ascend(q, g);
    ASSERT_TRUE(p == q) << "step " << t << ": max difference " << (p - q).cwiseAbs().maxCoeff();
    EXPECT_TRUE(shadow.weights == p.segment(block.begin, kBlock).cast<float>()) << "step " << t;
    EXPECT_TRUE(shadow.weights_current);
    EXPECT_FALSE(shadow.gradient_ready);
  }
  // A shadow whose gradient was consumed, or of another block, is refused.
  EXPECT_THROW(with_shadow.ascend(p, q, shadow), InputError);
  Float32Shadow other({kHead + 1, kHead + kBlock});
  other.gradient_ready = true;
  EXPECT_THROW(with_shadow.ascend(p, q, other), InputError);
}

TEST(ShardedAdam, RestoredStateReproducesTheNextStep) {
  const Communicator comm;
  constexpr Index n = 40;
  const IndexRange block{2, 37};
  const AdamOptions o{0.03, 0.8, 0.99, 1e-7};
  ShardedAdam original(comm, n, block, o);
  Vector p = Vector::LinSpaced(n, -1.0, 1.0);
  auto gradient = [&](int t) {
    Vector g(n);
    for (Index i = 0; i < n; ++i) g[i] = summed_term(comm.size(), i, t);
    return g;
  };
  for (int t = 0; t < 3; ++t) original.ascend(p, gradient(t));
  ShardedAdam restored(comm, n, block, o);
  restored.set_state(original.state());  // a checkpoint: the gathered state, loaded on every rank
  Vector p_restored = p;
  original.ascend(p, gradient(3));
  restored.ascend(p_restored, gradient(3));
  EXPECT_TRUE(p == p_restored);
}

TEST(ShardedAdam, RejectsABlockOutsideTheVector) {
  const Communicator comm;
  EXPECT_THROW(ShardedAdam(comm, 10, {4, 11}, {}), InputError);
  EXPECT_THROW(ShardedAdam(comm, 10, {5, 4}, {}), InputError);
  EXPECT_NO_THROW(ShardedAdam(comm, 10, {10, 10}, {}));  // an empty block: plain Adam
}

}  // namespace
}  // namespace gplvm
