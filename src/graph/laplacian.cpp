#include "gplvm/graph/laplacian.hpp"

#include <cmath>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"
#include "named_choice.hpp"

namespace gplvm {
namespace {

Vector degrees(const SparseGraph& graph) {
  Vector d = Vector::Zero(graph.local_rows());
  for (Index i = 0; i < graph.local_rows(); ++i)
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e) d[i] += graph.weights[e];
  return d;
}

// Every degree positive, or the same InputError on every rank naming the lowest isolated vertex.
void require_no_isolated_vertex(const SparseGraph& graph, const Vector& degree, const Communicator& comm) {
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t isolated = none;
  for (Index i = 0; i < degree.size() && isolated == none; ++i)
    if (!(degree[i] > 0.0)) isolated = static_cast<std::int64_t>(graph.first_row) + i;
  isolated = comm.allreduce_min(isolated);
  if (isolated != none)
    throw InputError("vertex (row) " + std::to_string(isolated) +
                         " of the neighbour graph is isolated (no edge of positive weight), so its "
                         "Laplacian row is undefined; raise graph.k or graph.epsilon",
                     {"", "graph", std::to_string(isolated)});
}

// W's rows with an entry on every diagonal (0 where W has none), so that the Laplacian's diagonal
// is preallocated when the matrix is shifted or its diagonal set.
LocalSparseRows rows_with_diagonal(const SparseGraph& graph) {
  LocalSparseRows rows{
      static_cast<std::int64_t>(graph.num_rows), static_cast<std::int64_t>(graph.first_row), {0}, {}, {}};
  for (Index i = 0; i < graph.local_rows(); ++i) {
    const std::int64_t self = rows.first_row + i;
    bool has_diagonal = false;
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e) {
      rows.columns.push_back(graph.columns[e]);
      rows.values.push_back(graph.weights[e]);
      has_diagonal = has_diagonal || graph.columns[e] == self;
    }
    if (!has_diagonal) {
      rows.columns.push_back(self);
      rows.values.push_back(0.0);
    }
    rows.row_start.push_back(static_cast<std::int64_t>(rows.columns.size()));
  }
  return rows;
}

}  // namespace

LaplacianKind parse_laplacian(const std::string& name, const std::string& key) {
  return named_choice<LaplacianKind>(name, key, "graph Laplacian",
                                     {{"unnormalised", LaplacianKind::unnormalised},
                                      {"random_walk", LaplacianKind::random_walk},
                                      {"symmetric", LaplacianKind::symmetric}});
}

MatHandle graph_laplacian(const SparseGraph& graph, LaplacianKind kind, const Communicator& comm) {
  const Vector degree = degrees(graph);
  require_no_isolated_vertex(graph, degree, comm);
  MatHandle L = distributed_matrix(rows_with_diagonal(graph), comm);  // W, then scaled in place
  if (kind == LaplacianKind::unnormalised) {
    const VecHandle d = row_vector(L.get(), degree);
    check_petsc(MatScale(L.get(), -1.0), "MatScale");
    check_petsc(MatDiagonalSet(L.get(), d.get(), ADD_VALUES), "MatDiagonalSet");
    return L;
  }
  if (kind == LaplacianKind::random_walk) {
    const VecHandle inverse = row_vector(L.get(), degree.cwiseInverse());
    check_petsc(MatDiagonalScale(L.get(), inverse.get(), nullptr), "MatDiagonalScale");
  } else {
    const VecHandle root = row_vector(L.get(), degree.cwiseSqrt().cwiseInverse());
    check_petsc(MatDiagonalScale(L.get(), root.get(), root.get()), "MatDiagonalScale");
  }
  check_petsc(MatScale(L.get(), -1.0), "MatScale");
  check_petsc(MatShift(L.get(), 1.0), "MatShift");
  return L;
}

}  // namespace gplvm
