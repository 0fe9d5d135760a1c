#include "gplvm/parallel/blacs_grid.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "scalapack_api.hpp"

namespace gplvm {
namespace {

std::string shape_text(int nprow, int npcol) {
  return std::to_string(nprow) + "x" + std::to_string(npcol);
}

}  // namespace

std::pair<int, int> BlacsGrid::default_shape(int ranks) {
  require(ranks >= 1, "a process grid needs at least one rank", {"", "ranks", std::to_string(ranks)});
  int rows = 1;
  for (int d = 2; 16L * d * d <= ranks; ++d)
    if (ranks % d == 0) rows = d;
  return {rows, ranks / rows};
}

BlacsGrid::BlacsGrid(const Communicator& comm) : BlacsGrid(comm, 0, 0) {}

BlacsGrid::BlacsGrid(const Communicator& comm, int nprow, int npcol) : comm_(comm) {
  if (nprow == 0 && npcol == 0) std::tie(nprow, npcol) = default_shape(comm.size());
  require(nprow >= 1 && npcol >= 1, "process grid dimensions must be positive",
          {"", "grid", shape_text(nprow, npcol)});
  require(static_cast<long>(nprow) * npcol <= comm.size(),
          "process grid " + shape_text(nprow, npcol) + " needs " + std::to_string(nprow * npcol) +
              " ranks but only " + std::to_string(comm.size()) + " were launched",
          {"", "grid", shape_text(nprow, npcol)});
  nprow_ = nprow;
  npcol_ = npcol;
  // A BLACS system handle for this communicator (not necessarily MPI_COMM_WORLD); gridinit builds
  // its own communicator from it, so the handle can be released straight away. Collective.
  const int handle = Csys2blacs_handle(comm.raw());
  int context = handle;
  Cblacs_gridinit(&context, "Row", nprow, npcol);
  Cfree_blacs_system_handle(handle);
  // Ranks beyond Pr * Pc are not in the grid; BLACS hands them context -1.
  if (comm.rank() < nprow * npcol) {
    context_ = context;
    int rows = 0, cols = 0;
    Cblacs_gridinfo(context_, &rows, &cols, &myrow_, &mycol_);
    if (rows != nprow || cols != npcol || myrow_ < 0)
      throw Error("BLACS grid " + shape_text(nprow, npcol) + " could not be created (got " +
                  shape_text(rows, cols) + ")");
  }
}

BlacsGrid::~BlacsGrid() {
  if (context_ >= 0) Cblacs_gridexit(context_);
}

}  // namespace gplvm
