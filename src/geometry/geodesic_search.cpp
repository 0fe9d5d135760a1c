#include "gplvm/geometry/geodesic_search.hpp"

#include <algorithm>
#include <chrono>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

GeodesicOutcome find_geodesic(SplineGeodesicSolver& solver, const GeodesicGraph* graph, const Vector& from,
                              const Vector& to) {
  const auto started = std::chrono::steady_clock::now();
  GeodesicOutcome out;
  Matrix initial;
  if (graph) {
    const GraphPath path = graph->path(from, to);
    out.graph_length = path.arc[path.arc.size() - 1];
    const Matrix targets = resampled_polyline(path.points, path.arc, solver.parameters());
    initial = fitted_weights(solver.basis(), solver.parameters(), targets, from, to);
  }
  out.solution = solver.solve(from, to, graph ? &initial : nullptr);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

std::vector<GeodesicOutcome> find_geodesics(SplineGeodesicSolver& solver, const GeodesicGraph* graph,
                                            const Matrix& from, const Matrix& to, const Communicator& comm) {
  require(from.rows() == to.rows() && from.cols() == to.cols(), "geodesic end points differ in number",
          {"", "pairs", std::to_string(from.rows()) + " vs " + std::to_string(to.rows())});
  const RowPartition split(static_cast<std::uint64_t>(from.rows()), comm.size());
  const auto begin = static_cast<Index>(split.begin(comm.rank())),
             count = static_cast<Index>(split.count(comm.rank()));
  std::vector<GeodesicOutcome> out;
  out.reserve(static_cast<std::size_t>(count));
  // A rank that fails alone would leave the others in the gather that follows: agree first.
  comm.all_or_none([&] {
    for (Index p = begin; p < begin + count; ++p)
      out.push_back(find_geodesic(solver, graph, from.row(p).transpose(), to.row(p).transpose()));
  });
  return out;
}

}  // namespace gplvm
