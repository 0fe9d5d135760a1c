// Geodesics of the expected metric at 1-4 ranks: the spline solver's energy is at most the straight
// line's and the graph geodesic's, shooting with the Christoffel symbols from its initial velocity
// lands on its end point, a constant metric's geodesic is the straight line, and the graph and the
// geodesics split over ranks equal the serial ones.
#include <gtest/gtest.h>

#include "geometry_fixture.hpp"
#include "gplvm/geometry/geodesic_search.hpp"
#include "gplvm/geometry/geodesic_shooting.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/model/linear_kernel.hpp"
#include "support/petsc_environment.hpp"

namespace gplvm {
namespace {

using namespace testing;

const auto* const kPetsc = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

// Two points across the circle of conditioning latents: the straight line crosses the empty middle.
const Vector kFrom = (Vector(2) << -1.5, 0.0).finished();
const Vector kTo = (Vector(2) << 1.5, 0.05).finished();

TEST(SplineGeodesic, IsNoLongerThanTheStraightLineOrTheGraphGeodesic) {
  const Communicator comm;
  const GpPosterior posterior = observed_posterior("eq_ard");
  SplineGeodesicSolver solver(posterior, {});
  const GeodesicGraph graph(posterior, posterior.inputs(), {}, comm);
  EXPECT_EQ(graph.kind(), "grid");
  const GraphPath path = graph.path(kFrom, kTo);
  const Matrix targets = resampled_polyline(path.points, path.arc, solver.parameters());
  const Matrix seeded = fitted_weights(solver.basis(), solver.parameters(), targets, kFrom, kTo);
  const double graph_energy = solver.energy(SplineCurve{kFrom, kTo, seeded}).energy;
  const GeodesicOutcome o = find_geodesic(solver, &graph, kFrom, kTo);
  EXPECT_TRUE(o.solution.converged) << o.solution.stop_reason;
  EXPECT_LE(o.solution.energy.energy, o.solution.straight.energy);
  EXPECT_LE(o.solution.energy.energy, graph_energy);
  EXPECT_LT(o.solution.energy.length, o.solution.straight.length);
}

// Latents on a circle of radius 3 and a lengthscale of 0.5: the middle lies six lengthscales from
// any data, where the decoder is uncertain, so the geodesic goes round the circle.
TEST(SplineGeodesic, GoesRoundTheDataRatherThanThroughTheUncertainMiddle) {
  const Communicator comm;
  const Matrix Z = 2.0 * circle_latents(40, 3);
  const GpPosterior posterior =
      GpPosterior::given_observations(EqArdKernel(1.0, 0.5, 2), Z, smooth_outputs(Z), 0.01);
  SplineGeodesicSolver solver(posterior, {});
  const GeodesicGraph graph(posterior, Z, {}, comm);
  const GeodesicOutcome o = find_geodesic(solver, &graph, 2.0 * kFrom, 2.0 * kTo);
  EXPECT_TRUE(o.solution.converged) << o.solution.stop_reason;
  const Matrix mid = o.solution.curve.evaluate(solver.basis(), Vector::Constant(1, 0.5));
  EXPECT_GT(mid.norm(), 2.0) << mid;
  EXPECT_LT(o.solution.energy.length, 0.8 * o.solution.straight.length);
}

// Started with the boundary-value solution's velocity, the geodesic equation of E[G] ends where the
// solution does, up to the discretisation of the energy (64 nodes, 16 segments here).
TEST(SplineGeodesic, ShootingFromItsInitialVelocityArrivesAtItsEnd) {
  const GpPosterior posterior = observed_posterior("eq_ard");
  SplineGeodesicOptions options;
  options.nodes = 64;
  options.segments = 16;
  SplineGeodesicSolver solver(posterior, options);
  const Vector from = (Vector(2) << -1.2, 0.9).finished(), to = (Vector(2) << 0.9, 1.2).finished();
  const GeodesicSolution s = solver.solve(from, to);
  ASSERT_TRUE(s.converged) << s.stop_reason;
  const Vector velocity = s.curve.evaluate(solver.basis(), Vector::Zero(1), 1).row(0).transpose();
  const Matrix shot = shoot_geodesic(ExpectedMetric(posterior), from, velocity, 400);
  const double miss = (shot.row(shot.rows() - 1).transpose() - to).norm();
  EXPECT_LT(miss, 0.02 * (to - from).norm()) << "landed at " << shot.row(shot.rows() - 1);
}

TEST(SplineGeodesic, UnderAConstantMetricTheStraightLineIsTheGeodesic) {
  const LinearArdKernel k((Vector(2) << 0.7, 1.9).finished());
  const Matrix Z = circle_latents(15, 8);
  const GpPosterior posterior = GpPosterior::given_observations(k, Z, smooth_outputs(Z), 0.05);
  SplineGeodesicSolver solver(posterior, {});
  const GeodesicSolution s = solver.solve(kFrom, kTo);
  EXPECT_NEAR(s.energy.energy, s.straight.energy, 1e-10 * s.straight.energy);
  EXPECT_LT(s.curve.weights.cwiseAbs().maxCoeff(), 1e-6);
  const Matrix shot = shoot_geodesic(ExpectedMetric(posterior), kFrom, kTo - kFrom, 20);
  EXPECT_LT((shot.row(20).transpose() - kTo).norm(), 1e-12);
}

// A decoder on the sphere S^2 (sphere_eq kernel on unit vectors of R^3), solved in the exponential
// chart at the origin: the weights' gradient through the chart is the finite difference of the
// energy, the curve's points are on the sphere, and its energy is at most the chart's straight line's.
TEST(SplineGeodesic, OnTheSphereTheChartCarriesTheCurveAndItsGradient) {
  const std::unique_ptr<LatentSpace> sphere = make_latent_space("sphere", 2);
  const LatentChart chart(*sphere);
  const GpPosterior posterior = sphere_posterior(30, 12);
  const Matrix& Z = posterior.inputs();
  SplineGeodesicSolver solver(posterior, {}, &chart);
  const Vector from = chart.coordinates(Z.row(0)).row(0).transpose(),
               to = chart.coordinates(Z.row(7)).row(0).transpose();
  EXPECT_LT((chart.points(from.transpose()) - Z.row(0)).norm(), 1e-12);  // the chart's inverse
  const SplineCurve curve{from, to, 0.1 * random_normal(solver.basis().num_free(), 2, 13)};
  Matrix dW;
  (void)solver.energy(curve, &dW);
  const auto f = [&](const Vector& w) {
    return solver.energy(SplineCurve{from, to, Eigen::Map<const Matrix>(w.data(), dW.rows(), 2)}).energy;
  };
  const Vector fd =
      finite_difference_gradient(f, Eigen::Map<const Vector>(curve.weights.data(), curve.weights.size()));
  EXPECT_LT(max_relative_error(Eigen::Map<const Vector>(dW.data(), dW.size()), fd), 1e-6);
  const GeodesicSolution s = solver.solve(from, to);
  EXPECT_TRUE(s.converged) << s.stop_reason;
  EXPECT_LE(s.energy.energy, s.straight.energy);
  const Matrix points = solver.points(s.curve.evaluate(solver.basis(), uniform_parameters(15)));
  EXPECT_LT((points.rowwise().norm().array() - 1.0).abs().maxCoeff(), 1e-12);
  EXPECT_LT((points.row(14) - Z.row(7)).norm(), 1e-10);
}

TEST(GeodesicGraph, IsTheSerialGraphAtAnyRankCount) {
  const Communicator comm, self(MPI_COMM_SELF);
  const GpPosterior posterior = inducing_posterior("matern52");
  GeodesicGraphOptions o;
  o.resolution = 13;  // 169 vertices: three moment blocks, uneven over 2-4 ranks
  const GeodesicGraph split(posterior, posterior.inputs(), o, comm),
      serial(posterior, posterior.inputs(), o, self);
  const GraphPath a = split.path(kFrom, kTo), b = serial.path(kFrom, kTo);
  ASSERT_EQ(a.points.rows(), b.points.rows());
  // Bit for bit: the vertex moments are computed in fixed blocks, whichever rank computes each.
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.arc, b.arc);
  o.kind = "knn";
  o.k = 4;
  const GeodesicGraph knn(posterior, posterior.inputs(), o, comm);
  EXPECT_EQ(knn.vertices().rows(), posterior.inputs().rows());
  EXPECT_GT(knn.path(kFrom, kTo).points.rows(), 2);
}

// Five pairs over 1-4 ranks: each rank's share, gathered, equals solving them all on one rank.
TEST(GeodesicSearch, PairsSplitOverRanksEqualTheSerialSolutions) {
  const Communicator comm;
  const GpPosterior posterior = observed_posterior("eq_ard");
  const Matrix Z = posterior.inputs();
  Matrix from(5, 2), to(5, 2);
  for (Index p = 0; p < 5; ++p) {
    from.row(p) = Z.row(p);
    to.row(p) = Z.row(Z.rows() - 1 - 3 * p);
  }
  SplineGeodesicSolver solver(posterior, {});
  const std::vector<GeodesicOutcome> mine = find_geodesics(solver, nullptr, from, to, comm);
  std::vector<double> local;
  for (const GeodesicOutcome& o : mine) local.push_back(o.solution.energy.energy);
  const std::vector<double> all = comm.allgatherv(local);
  ASSERT_EQ(all.size(), 5u);
  for (Index p = 0; p < 5; ++p)
    EXPECT_EQ(all[p], solver.solve(from.row(p).transpose(), to.row(p).transpose()).energy.energy)
        << "pair " << p;
}

}  // namespace
}  // namespace gplvm
