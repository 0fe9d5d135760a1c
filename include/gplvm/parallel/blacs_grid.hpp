#pragma once
// RAII BLACS process grid over a Communicator: the Pr x Pc grid every ScaLAPACK call runs on.
//
// Ranks 0 .. Pr*Pc - 1 of the communicator form the grid in row-major order (rank r sits at
// (r / Pc, r % Pc)). A grid may use fewer ranks than the communicator has (Pr*Pc <= P): the
// remaining ranks are not members (context() == -1, myrow() == mycol() == -1), call no ScaLAPACK
// routine on it, and contribute zeros to the reductions the distributed objectives make over the
// whole communicator, so every rank still ends with the same results. A grid larger than the
// communicator is an InputError.
#include <utility>

#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class BlacsGrid {
 public:
  // The default grid on all ranks (default_shape).
  explicit BlacsGrid(const Communicator& comm);
  // An explicit Pr x Pc grid (Pr, Pc >= 1, Pr * Pc <= P); 0 x 0 asks for the default grid.
  BlacsGrid(const Communicator& comm, int nprow, int npcol);
  ~BlacsGrid();
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;

  // The default Pr x Pc = P: Pr is the largest divisor of P with 16 Pr^2 <= P, so 1 x P up to
  // 63 ranks, then a grid 16 or more times as wide as tall (64 ranks: 2 x 32, 256: 4 x 64).
  // Why: pdpotrf at 2-16 ranks on one node ran fastest on a flat grid, 1.15-1.87x faster than on
  // the square one (docs/benchmarks.md, "The device machine"): the panel of a 1 x P grid
  // is factorised and solved on one rank without messages, and each rank's trailing update is
  // one tall local product. At scale the rows keep each rank's share of block columns
  // (N / (Pc NB)) from running out and bound the panel broadcast; that part is not measured.
  static std::pair<int, int> default_shape(int ranks);

  int context() const noexcept { return context_; }  // -1 on ranks outside the grid
  int nprow() const noexcept { return nprow_; }
  int npcol() const noexcept { return npcol_; }
  int myrow() const noexcept { return myrow_; }  // -1 on ranks outside the grid
  int mycol() const noexcept { return mycol_; }
  bool is_member() const noexcept { return context_ >= 0; }
  int size() const noexcept { return nprow_ * npcol_; }
  // The communicator the grid was built on (all its ranks take part in collective calls).
  const Communicator& communicator() const noexcept { return comm_; }

 private:
  Communicator comm_;
  int context_ = -1;
  int nprow_ = 0, npcol_ = 0, myrow_ = -1, mycol_ = -1;
};

}  // namespace gplvm
