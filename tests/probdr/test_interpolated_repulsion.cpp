// The t-SNE repulsion's sums (include/gplvm/probdr/interpolated_repulsion.hpp): exact_repulsion against
// a brute-force double loop written here; the FFT-accelerated interpolation against the exact sums
// in 1-D and 2-D for alpha = 0.5, 1 and 5, its error falling as the nodes per box and the boxes grow;
// translation invariance, the same bits from a reused workspace and at any thread count, and the
// inputs it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/probdr/interpolated_repulsion.hpp"

namespace gplvm {
namespace {

// Five Gaussian clusters of width `width` spread over about `extent` per dimension: the shape of a
// t-SNE embedding.
RowMatrix clusters(Index n, Index l, double extent, double width, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(-0.5 * extent, 0.5 * extent);
  RowMatrix centres(5, l);
  for (Index c = 0; c < 5; ++c)
    for (Index d = 0; d < l; ++d) centres(c, d) = uniform(engine);
  RowMatrix y(n, l);
  for (Index i = 0; i < n; ++i)
    for (Index d = 0; d < l; ++d) y(i, d) = centres(i % 5, d) + width * normal(engine);
  return y;
}

// Z and F by the definition: every ordered pair, w = (1 + d^2 / alpha)^-alpha.
RepulsionSums brute_force(const RowMatrix& y, double alpha) {
  RepulsionSums sums;
  sums.forces = RowMatrix::Zero(y.rows(), y.cols());
  for (Index i = 0; i < y.rows(); ++i)
    for (Index j = 0; j < y.rows(); ++j) {
      if (i == j) continue;
      const double d2 = (y.row(i) - y.row(j)).squaredNorm();
      const double w = std::pow(1.0 + d2 / alpha, -alpha);
      sums.normaliser += w;
      sums.forces.row(i) += std::pow(w, 1.0 + 1.0 / alpha) * (y.row(i) - y.row(j));
    }
  return sums;
}

struct Errors {
  double normaliser, forces;  // relative: |Z - Z*| / Z*, ||F - F*||_F / ||F*||_F
};

Errors errors(const RepulsionSums& approximate, const RepulsionSums& exact) {
  return {std::abs(approximate.normaliser - exact.normaliser) / exact.normaliser,
          (approximate.forces - exact.forces).norm() / exact.forces.norm()};
}

bool same_bits(const RepulsionSums& a, const RepulsionSums& b) {
  return a.forces.rows() == b.forces.rows() && a.forces.cols() == b.forces.cols() &&
         std::memcmp(&a.normaliser, &b.normaliser, sizeof(double)) == 0 &&
         std::memcmp(a.forces.data(), b.forces.data(),
                     sizeof(double) * static_cast<std::size_t>(a.forces.size())) == 0;
}

InterpolationOptions nodes(Index nodes_per_box, Index min_boxes = 50) {
  InterpolationOptions options;
  options.nodes_per_box = nodes_per_box;
  options.min_boxes = min_boxes;
  return options;
}

const Communicator& self() {
  static const Communicator comm(MPI_COMM_SELF);
  return comm;
}

TEST(ExactRepulsion, IsTheBruteForceDoubleLoop) {
  for (const Index l : {1, 2, 3})
    for (const double alpha : {0.5, 1.0, 5.0}) {
      const RowMatrix y = clusters(300, l, 8.0, 1.0, 11);
      const RepulsionSums exact = exact_repulsion(y, alpha, self());
      const RepulsionSums reference = brute_force(y, alpha);
      EXPECT_EQ(exact.boxes_per_dimension, 0);
      EXPECT_NEAR(exact.normaliser, reference.normaliser, 1e-13 * reference.normaliser) << l << " " << alpha;
      ASSERT_EQ(exact.forces.rows(), y.rows());
      ASSERT_EQ(exact.forces.cols(), l);
      EXPECT_LT((exact.forces - reference.forces).cwiseAbs().maxCoeff(),
                1e-13 * reference.forces.cwiseAbs().maxCoeff())
          << l << " " << alpha;
    }
}

// At the default grid (50 boxes over an extent of 10, 3 nodes per box) both sums are within 1e-3 of
// the exact ones, and 5 and 7 nodes per box each cut the error.
TEST(InterpolatedRepulsion, ApproachesTheExactSumsAsTheNodesPerBoxGrow) {
  for (const Index l : {1, 2})
    for (const double alpha : {0.5, 1.0, 5.0}) {
      const RowMatrix y = clusters(1500, l, 10.0, 1.0, 3);
      const RepulsionSums exact = exact_repulsion(y, alpha, self());
      Errors previous{1.0, 1.0};
      for (const Index p : {3, 5, 7}) {
        const RepulsionSums approximate = interpolated_repulsion(y, alpha, nodes(p), self());
        EXPECT_EQ(approximate.boxes_per_dimension, 50);
        const Errors e = errors(approximate, exact);
        std::printf("[ measured ] l = %ld, alpha = %.1f, %ld nodes per box: error of Z %.1e, of F %.1e\n",
                    static_cast<long>(l), alpha, static_cast<long>(p), e.normaliser, e.forces);
        EXPECT_LT(e.normaliser, 1e-3);
        EXPECT_LT(e.forces, 1e-3);
        EXPECT_LT(e.normaliser, 0.1 * previous.normaliser) << l << " " << alpha << " " << p;
        EXPECT_LT(e.forces, 0.1 * previous.forces) << l << " " << alpha << " " << p;
        previous = e;
      }
    }
}

// The sums over a fixed reference at query rows (encode) by the definition, written here.
CrossRepulsionSums brute_force_cross(const RowMatrix& reference, const RowMatrix& query, double alpha) {
  CrossRepulsionSums sums;
  sums.z = Vector::Zero(query.rows());
  sums.forces = RowMatrix::Zero(query.rows(), query.cols());
  for (Index i = 0; i < query.rows(); ++i)
    for (Index k = 0; k < reference.rows(); ++k) {
      const double w = std::pow(1.0 + (query.row(i) - reference.row(k)).squaredNorm() / alpha, -alpha);
      sums.z[i] += w;
      sums.forces.row(i) += std::pow(w, 1.0 + 1.0 / alpha) * (query.row(i) - reference.row(k));
    }
  return sums;
}

// Queries against a fixed reference, some beyond the reference's extent (the grid covers both): the
// exact sums are the definition's, and the interpolated ones are within 1e-3 at 3 nodes per box and
// improve tenfold by 5.
TEST(CrossRepulsion, MatchesTheDefinitionAndApproachesItAsTheNodesGrow) {
  for (const Index l : {1, 2})
    for (const double alpha : {0.5, 1.0}) {
      const RowMatrix reference = clusters(1200, l, 10.0, 1.0, 5);
      const RowMatrix query = clusters(300, l, 14.0, 1.5, 6);
      const CrossRepulsionSums truth = brute_force_cross(reference, query, alpha);
      const CrossRepulsionSums exact = exact_cross_repulsion(reference, query, alpha, self());
      EXPECT_LT((exact.z - truth.z).norm(), 1e-12 * truth.z.norm());
      EXPECT_LT((exact.forces - truth.forces).norm(), 1e-12 * truth.forces.norm());
      double previous_z = 1.0, previous_f = 1.0;
      for (const Index p : {3, 5}) {
        const CrossRepulsionSums approximate =
            interpolated_cross_repulsion(reference, query, alpha, nodes(p), self());
        const double ez = (approximate.z - truth.z).norm() / truth.z.norm();
        const double ef = (approximate.forces - truth.forces).norm() / truth.forces.norm();
        std::printf(
            "[ measured ] cross, l = %ld, alpha = %.1f, %ld nodes per box: error of z %.1e, of F %.1e\n",
            static_cast<long>(l), alpha, static_cast<long>(p), ez, ef);
        EXPECT_LT(ez, 1e-3);
        EXPECT_LT(ef, 1e-3);
        EXPECT_LT(ez, 0.1 * previous_z);
        EXPECT_LT(ef, 0.1 * previous_f);
        previous_z = ez;
        previous_f = ef;
      }
    }
}

TEST(InterpolatedRepulsion, ApproachesTheExactSumsAsTheBoxesGrow) {
  for (const Index l : {1, 2}) {
    const RowMatrix y = clusters(1500, l, 30.0, 2.0, 5);
    const RepulsionSums exact = exact_repulsion(y, 1.0, self());
    Errors previous{1.0, 1.0};
    for (const Index boxes : {25, 50, 100}) {
      InterpolationOptions options = nodes(3, boxes);
      options.boxes_per_unit = 0.0;  // min_boxes alone
      const RepulsionSums approximate = interpolated_repulsion(y, 1.0, options, self());
      EXPECT_EQ(approximate.boxes_per_dimension, boxes);
      const Errors e = errors(approximate, exact);
      std::printf("[ measured ] l = %ld, extent 30, %ld boxes: error of Z %.1e, of F %.1e\n",
                  static_cast<long>(l), static_cast<long>(approximate.boxes_per_dimension), e.normaliser,
                  e.forces);
      EXPECT_LT(e.normaliser, 0.25 * previous.normaliser) << l << " " << boxes;
      EXPECT_LT(e.forces, 0.25 * previous.forces) << l << " " << boxes;
      previous = e;
    }
  }
}

// boxes = max(min_boxes, ceil(extent * boxes_per_unit)), rounded up to a product of 2, 3, 5 and 7.
TEST(InterpolatedRepulsion, BoxesFollowTheExtent) {
  RowMatrix y = clusters(200, 2, 10.0, 1.0, 9);
  y(0, 0) = -60.0;
  y(1, 0) = 61.3;  // extent 121.3 in the first column: 122 boxes, rounded up to 125
  InterpolationOptions options = nodes(3);
  EXPECT_EQ(interpolated_repulsion(y, 1.0, options, self()).boxes_per_dimension, 125);
  options.boxes_per_unit = 0.25;  // 31, below min_boxes
  EXPECT_EQ(interpolated_repulsion(y, 1.0, options, self()).boxes_per_dimension, 50);
  options.min_boxes = 51;  // 51 = 3 * 17: 54
  EXPECT_EQ(interpolated_repulsion(y, 1.0, options, self()).boxes_per_dimension, 54);
}

TEST(InterpolatedRepulsion, IsTranslationInvariant) {
  for (const Index l : {1, 2}) {
    const RowMatrix y = clusters(800, l, 10.0, 1.0, 21);
    RowMatrix moved = y;
    moved.col(0).array() += 1000.0;
    if (l == 2) moved.col(1).array() -= 377.25;
    const RepulsionSums a = interpolated_repulsion(y, 1.0, nodes(3), self());
    const RepulsionSums b = interpolated_repulsion(moved, 1.0, nodes(3), self());
    EXPECT_NEAR(b.normaliser, a.normaliser, 1e-10 * a.normaliser);
    EXPECT_LT((b.forces - a.forces).norm(), 1e-9 * a.forces.norm());
  }
}

TEST(InterpolatedRepulsion, CoincidentRowsRepelNothingAndCountEveryPair) {
  const RowMatrix y = RowMatrix::Constant(10, 2, 3.5);
  const RepulsionSums sums = interpolated_repulsion(y, 1.0, nodes(3), self());
  EXPECT_NEAR(sums.normaliser, 90.0, 1e-6 * 90.0);  // the interpolation of w at d = 0
  EXPECT_LT(sums.forces.cwiseAbs().maxCoeff(), 1e-12);
  const RepulsionSums none = interpolated_repulsion(RowMatrix(0, 2), 1.0, nodes(3), self());
  EXPECT_EQ(none.normaliser, 0.0);
  EXPECT_EQ(none.forces.rows(), 0);
}

// The class keeps its plans and buffers; a grid of another size in between changes nothing.
TEST(InterpolatedRepulsion, AReusedWorkspaceGivesTheSameBits) {
  const RowMatrix y = clusters(1000, 2, 10.0, 1.0, 8);
  const RowMatrix wide = 10.0 * y;
  const RepulsionSums fresh = interpolated_repulsion(y, 0.7, nodes(4), self());
  InterpolatedRepulsion repulsion(nodes(4));
  EXPECT_TRUE(same_bits(repulsion.evaluate(y, 0.7, self()), fresh));
  const RepulsionSums other = repulsion.evaluate(wide, 0.7, self());
  EXPECT_GT(other.boxes_per_dimension, fresh.boxes_per_dimension);
  EXPECT_TRUE(same_bits(other, interpolated_repulsion(wide, 0.7, nodes(4), self())));
  EXPECT_TRUE(same_bits(repulsion.evaluate(y, 0.7, self()), fresh));
}

TEST(InterpolatedRepulsion, GivesTheSameBitsAtAnyThreadCount) {
  const int before = threads_per_rank();
  for (const Index l : {1, 2}) {
    const RowMatrix y = clusters(5000, l, 20.0, 1.5, 13);
    set_threads_per_rank(1);
    const RepulsionSums one = interpolated_repulsion(y, 1.0, nodes(3), self());
    const RepulsionSums exact_one = exact_repulsion(y.topRows(500), 1.0, self());
    for (const int threads : {2, 3}) {
      set_threads_per_rank(threads);
      EXPECT_TRUE(same_bits(interpolated_repulsion(y, 1.0, nodes(3), self()), one)) << l << " " << threads;
      EXPECT_TRUE(same_bits(exact_repulsion(y.topRows(500), 1.0, self()), exact_one)) << l << " " << threads;
    }
  }
  set_threads_per_rank(before);
}

template <typename E>
void expect_refused(const std::function<void()>& call, const std::string& key) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected a refusal naming " << key;
  } catch (const E& e) {
    EXPECT_EQ(e.context().key, key) << e.what();
  }
}

TEST(InterpolatedRepulsion, RefusesWhatItCannotInterpolate) {
  const RowMatrix y3 = clusters(50, 3, 5.0, 1.0, 1);
  expect_refused<InputError>([&] { interpolated_repulsion(y3, 1.0, nodes(3), self()); }, "model.latent_dim");
  expect_refused<InputError>([&] { interpolated_repulsion(RowMatrix(5, 0), 1.0, nodes(3), self()); },
                             "model.latent_dim");
  const RowMatrix y = clusters(50, 2, 5.0, 1.0, 1);
  expect_refused<InputError>([&] { interpolated_repulsion(y, 1.0, nodes(1), self()); },
                             "probdr.interpolation_nodes");
  expect_refused<InputError>([&] { interpolated_repulsion(y, 1.0, nodes(17), self()); },
                             "probdr.interpolation_nodes");
  expect_refused<InputError>([&] { interpolated_repulsion(y, 1.0, nodes(3, 0), self()); },
                             "probdr.min_boxes");
  expect_refused<InputError>([&] { interpolated_repulsion(y, 0.0, nodes(3), self()); }, "probdr.tsne_dof");
  expect_refused<InputError>([&] { exact_repulsion(y, -1.0, self()); }, "probdr.tsne_dof");
  RowMatrix bad = y;
  bad(7, 1) = std::numeric_limits<double>::quiet_NaN();
  expect_refused<NumericalError>([&] { interpolated_repulsion(bad, 1.0, nodes(3), self()); }, "y");
  // The 3-D exact sums are defined (exact_repulsion takes any l).
  EXPECT_GT(exact_repulsion(y3, 1.0, self()).normaliser, 0.0);
}

}  // namespace
}  // namespace gplvm
