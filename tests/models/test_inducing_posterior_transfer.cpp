// q(u) carried to redrawn inducing inputs (objectives/inducing_posterior_transfer.hpp), checked
// against two independent facts:
//   - rows of Z taken again, in any order, receive exactly their marginal of q(u) (means and
//     covariance rows of the old posterior), and the same Z gives back q(u) itself;
//   - at new inputs, the carried means and variances are the inducing-point predictive of the old
//     posterior there (models/inducing_predictor.hpp, a separate implementation of p(f | u) q(u)),
//     less the noise, plus the jitter each inducing value carries.
// Both on the hyperboloid (the active set's space) and in R^Q.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/hyperboloid_exp_kernel.hpp"
#include "gplvm/models/inducing_predictor.hpp"
#include "gplvm/objectives/inducing_posterior_transfer.hpp"

namespace gplvm {
namespace {

struct Case {
  std::unique_ptr<Kernel> kernel;
  Matrix inputs;      // Z, M x ambient
  Matrix new_inputs;  // points of the same space not in Z
};

Matrix gaussian(Index rows, Index cols, std::mt19937_64& rng, double scale) {
  std::normal_distribution<double> normal(0.0, scale);
  Matrix M(rows, cols);
  for (Index i = 0; i < M.size(); ++i) M.data()[i] = normal(rng);
  return M;
}

Case lorentz_case(Index m, Index fresh, std::mt19937_64& rng) {
  Case c;
  c.kernel = std::make_unique<HyperboloidExpKernel>(1.3, 2.0, 3);
  const Matrix tangent = gaussian(m + fresh, 2, rng, 0.8);
  Matrix points(m + fresh, 3);
  lorentz::exp_at_origin_rows(tangent, points);
  c.inputs = points.topRows(m);
  c.new_inputs = points.bottomRows(fresh);
  return c;
}

Case euclidean_case(Index m, Index fresh, std::mt19937_64& rng) {
  Case c;
  c.kernel = std::make_unique<EqArdKernel>(0.7, 0.9, 2);
  const Matrix points = gaussian(m + fresh, 2, rng, 1.0);
  c.inputs = points.topRows(m);
  c.new_inputs = points.bottomRows(fresh);
  return c;
}

// A q(u) with correlated means and a full, well-conditioned S.
InducingPosterior some_posterior(Index m, Index d, std::mt19937_64& rng) {
  InducingPosterior q;
  q.mean = gaussian(m, d, rng, 1.0);
  q.scale = gaussian(m, m, rng, 0.2);
  q.scale.triangularView<Eigen::StrictlyUpper>().setZero();
  q.scale.diagonal() = q.scale.diagonal().cwiseAbs().array() + 0.3;
  return q;
}

Matrix covariance(const InducingPosterior& q) {
  const Matrix L = q.scale.triangularView<Eigen::Lower>();
  return L * L.transpose();
}

void expect_rows_receive_their_marginal(Case c) {
  std::mt19937_64 rng(5);
  const Index m = c.inputs.rows();
  const InducingPosterior q = some_posterior(m, 4, rng);
  const std::vector<Index> rows = {5, 0, 7, 2, 3};  // a subset, out of order
  Matrix again(static_cast<Index>(rows.size()), c.inputs.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) again.row(static_cast<Index>(i)) = c.inputs.row(rows[i]);

  const InducingPosterior carried = transferred_inducing_posterior(q, *c.kernel, c.inputs, again);
  const Matrix S = covariance(q), S_carried = covariance(carried);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto a = static_cast<Index>(i);
    EXPECT_LT((carried.mean.row(a) - q.mean.row(rows[i])).norm(), 1e-9) << i;
    for (std::size_t j = 0; j < rows.size(); ++j)
      EXPECT_NEAR(S_carried(a, static_cast<Index>(j)), S(rows[i], rows[j]), 1e-9) << i << "," << j;
  }

  const InducingPosterior same = transferred_inducing_posterior(q, *c.kernel, c.inputs, c.inputs);
  EXPECT_LT((same.mean - q.mean).norm(), 1e-9 * q.mean.norm());
  EXPECT_LT((covariance(same) - S).norm(), 1e-9 * S.norm());
}

TEST(InducingPosteriorTransfer, RowsOfZTakenAgainReceiveTheirMarginal) {
  std::mt19937_64 rng(1);
  {
    SCOPED_TRACE("hyperboloid");
    expect_rows_receive_their_marginal(lorentz_case(9, 0, rng));
  }
  SCOPED_TRACE("euclidean");
  expect_rows_receive_their_marginal(euclidean_case(9, 0, rng));
}

void expect_new_inputs_get_the_predictive(Case c) {
  std::mt19937_64 rng(7);
  const Index m = c.inputs.rows();
  const InducingPosterior q = some_posterior(m, 3, rng);
  const double noise = 0.25;
  InducingPointPredictor predictor(c.kernel->clone(), c.inputs, q, noise);
  const Prediction at_new = predictor.predict(c.new_inputs);

  const InducingPosterior carried = transferred_inducing_posterior(q, *c.kernel, c.inputs, c.new_inputs);
  Matrix K;
  c.kernel->cross(c.inputs, c.inputs, K);
  const double jitter = kInducingRelativeJitter * K.diagonal().mean();
  const Matrix S_carried = covariance(carried);
  for (Index i = 0; i < c.new_inputs.rows(); ++i) {
    EXPECT_LT((carried.mean.row(i) - at_new.mean.row(i)).norm(), 1e-8 * (1 + at_new.mean.row(i).norm())) << i;
    EXPECT_NEAR(S_carried(i, i), at_new.variance[i] - noise + jitter, 1e-8) << i;
  }
}

TEST(InducingPosteriorTransfer, NewInputsGetTheOldPosteriorsPredictive) {
  std::mt19937_64 rng(3);
  {
    SCOPED_TRACE("hyperboloid");
    expect_new_inputs_get_the_predictive(lorentz_case(8, 6, rng));
  }
  SCOPED_TRACE("euclidean");
  expect_new_inputs_get_the_predictive(euclidean_case(8, 6, rng));
}

}  // namespace
}  // namespace gplvm
