#pragma once
// Geodesics between given end points, the way `gplvm geodesic` finds them: a graph geodesic
// (geometry/geodesic_graph.hpp) resampled at the spline's nodes by its share of the path's expected
// length, fitted as a spline, then the spline solver from it or the straight line, whichever is
// shorter in energy (geometry/spline_geodesic.hpp). Many pairs are split over the ranks by rows: every
// pair is solved by one rank alone, so a curve is the same at any number of ranks.
#include <vector>

#include "gplvm/geometry/geodesic_graph.hpp"
#include "gplvm/geometry/spline_geodesic.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct GeodesicOutcome {
  GeodesicSolution solution;
  double graph_length = 0.0;  // the graph path's expected length (0 without a graph)
  double seconds = 0.0;       // wall time of this geodesic, graph path included
};

// One geodesic; `graph` may be null (start from the straight line).
GeodesicOutcome find_geodesic(SplineGeodesicSolver& solver, const GeodesicGraph* graph, const Vector& from,
                              const Vector& to);

// Collective: the geodesics of this rank's rows of `from` and `to` (P x Q each, replicated), the
// rows RowPartition gives it, in order.
std::vector<GeodesicOutcome> find_geodesics(SplineGeodesicSolver& solver, const GeodesicGraph* graph,
                                            const Matrix& from, const Matrix& to, const Communicator& comm);

}  // namespace gplvm
