#include "gplvm/lllvm/dimension_major.hpp"

namespace gplvm {

Permutation node_to_dimension_major(Index nodes, Index dims) {
  Permutation p(nodes * dims);
  for (Index i = 0; i < nodes; ++i)
    for (Index r = 0; r < dims; ++r) p.indices()[i * dims + r] = r * nodes + i;
  return p;
}

void add_to_diagonal_blocks(Matrix& m, const SparseMatrix& block, Index dims) {
  const Index n = block.rows();
  for (Index r = 0; r < dims; ++r) m.block(r * n, r * n, n, n) += block;
}

double trace_with_diagonal_blocks(const SparseMatrix& block, const Matrix& s, Index dims) {
  const Index n = block.rows();
  double trace = 0.0;
  for (Index r = 0; r < dims; ++r)
    for (Index j = 0; j < block.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(block, j); it; ++it)
        trace += it.value() * s(r * n + j, r * n + it.row());
  return trace;
}

double sum_of_diagonal_blocks(const Matrix& s, Index dims) {
  const Index n = s.rows() / dims;
  double sum = 0.0;
  for (Index r = 0; r < dims; ++r) sum += s.block(r * n, r * n, n, n).sum();
  return sum;
}

}  // namespace gplvm
