#pragma once
// A dense M x N matrix distributed 2-D block-cyclically over a BlacsGrid: the layout ScaLAPACK
// works on. Global block (I, J) of size MB x NB lives on process ((I + rsrc) mod Pr,
// (J + csrc) mod Pc); each process stores its blocks contiguously as one column-major local Eigen
// matrix (local leading dimension max(1, local rows)). The blocks need not divide M or N: the last
// block row/column is partial.
//
// Indices here are 0-based; the ScaLAPACK wrappers convert to the 1-based Fortran convention.
// On ranks outside the grid the local matrix is 0 x 0 and the descriptor's context is -1, which is
// how pdgemr2d recognises non-participants.
#include <algorithm>
#include <array>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/blacs_grid.hpp"

namespace gplvm {

// One dimension of a block-cyclic layout: `n` indices in blocks of `block`, dealt out over `procs`
// processes starting at process `source`. Pure index arithmetic (no MPI), 0-based throughout.
struct BlockCyclicAxis {
  Index n = 0;
  Index block = 1;
  int procs = 1;
  int source = 0;

  int owner(Index global) const noexcept { return static_cast<int>((global / block + source) % procs); }
  Index local_index(Index global) const noexcept { return (global / block) / procs * block + global % block; }
  Index global_index(Index local, int proc) const noexcept {
    const Index shift = (proc - source + procs) % procs;
    return ((local / block) * procs + shift) * block + local % block;
  }
  // How many of the n indices process `proc` owns (ScaLAPACK's numroc).
  Index local_count(int proc) const noexcept;
};

// One locally stored block: its top-left entry in global and in local indices, and its size.
struct LocalBlock {
  Index global_row, global_col, local_row, local_col, rows, cols;
};

class BlockCyclicMatrix {
 public:
  static constexpr int default_block = 64;

  // Zero-initialised. row_block, col_block >= 1; row_source/col_source: the process row/column
  // holding the first block. The grid must outlive the matrix. Not collective.
  BlockCyclicMatrix(const BlacsGrid& grid, Index rows, Index cols, int row_block = default_block,
                    int col_block = default_block, int row_source = 0, int col_source = 0);

  const BlacsGrid& grid() const noexcept { return *grid_; }
  Index rows() const noexcept { return row_axis_.n; }
  Index cols() const noexcept { return col_axis_.n; }
  int row_block() const noexcept { return static_cast<int>(row_axis_.block); }
  int col_block() const noexcept { return static_cast<int>(col_axis_.block); }
  const BlockCyclicAxis& row_axis() const noexcept { return row_axis_; }
  const BlockCyclicAxis& col_axis() const noexcept { return col_axis_; }

  Index local_rows() const noexcept { return local_.rows(); }
  Index local_cols() const noexcept { return local_.cols(); }
  Matrix& local() noexcept { return local_; }
  const Matrix& local() const noexcept { return local_; }
  // Pointer for ScaLAPACK: never null (an empty local part points at a dummy element).
  double* data() noexcept { return local_.size() ? local_.data() : &empty_; }
  const double* data() const noexcept { return local_.size() ? local_.data() : &empty_; }
  // The 9-integer ScaLAPACK descriptor (DTYPE, CTXT, M, N, MB, NB, RSRC, CSRC, LLD).
  const int* descriptor() const noexcept { return descriptor_.data(); }

  // Local <-> global maps (this process's local index; global indices this process owns).
  Index global_row(Index local_row) const noexcept {
    return row_axis_.global_index(local_row, grid_->myrow());
  }
  Index global_col(Index local_col) const noexcept {
    return col_axis_.global_index(local_col, grid_->mycol());
  }
  int row_owner(Index global_row) const noexcept { return row_axis_.owner(global_row); }
  int col_owner(Index global_col) const noexcept { return col_axis_.owner(global_col); }
  bool owns(Index global_row, Index global_col) const noexcept;
  // Local position of an owned global entry (call only where owns() holds).
  Index local_row(Index global_row) const noexcept { return row_axis_.local_index(global_row); }
  Index local_col(Index global_col) const noexcept { return col_axis_.local_index(global_col); }

  // f(const LocalBlock&) for each stored block, column blocks outermost.
  template <class F>
  void for_each_block(F&& f) const;
  // local(i, j) = f(global i, global j) for every local entry.
  template <class F>
  void fill(F&& f);
  // f(global i, global j, value&) for every local entry.
  template <class F>
  void for_each_local(F&& f);
  template <class F>
  void for_each_local(F&& f) const;

  // The whole matrix on every rank of the grid's communicator (one allreduce of M x N doubles:
  // for tests and small matrices only).
  Matrix gather_all() const;

 private:
  const BlacsGrid* grid_;
  BlockCyclicAxis row_axis_, col_axis_;
  Matrix local_;
  std::array<int, 9> descriptor_{};
  mutable double empty_ = 0.0;
};

template <class F>
void BlockCyclicMatrix::for_each_block(F&& f) const {
  for (Index lj = 0; lj < local_cols(); lj += col_axis_.block) {
    // Local blocks are whole global blocks, so only a process's last block can be short.
    const Index cols = std::min<Index>(col_axis_.block, local_cols() - lj);
    for (Index li = 0; li < local_rows(); li += row_axis_.block) {
      const Index rows = std::min<Index>(row_axis_.block, local_rows() - li);
      f(LocalBlock{global_row(li), global_col(lj), li, lj, rows, cols});
    }
  }
}

template <class F>
void BlockCyclicMatrix::fill(F&& f) {
  for_each_local([&](Index i, Index j, double& value) { value = f(i, j); });
}

template <class F>
void BlockCyclicMatrix::for_each_local(F&& f) {
  for (Index lj = 0; lj < local_cols(); ++lj) {
    const Index j = global_col(lj);
    for (Index li = 0; li < local_rows(); ++li) f(global_row(li), j, local_(li, lj));
  }
}

template <class F>
void BlockCyclicMatrix::for_each_local(F&& f) const {
  for (Index lj = 0; lj < local_cols(); ++lj) {
    const Index j = global_col(lj);
    for (Index li = 0; li < local_rows(); ++li) f(global_row(li), j, local_(li, lj));
  }
}

}  // namespace gplvm
