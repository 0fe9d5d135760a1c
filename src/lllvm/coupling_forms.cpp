#include "gplvm/lllvm/coupling_forms.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// The two forms differ only in the outer operator B and the sign s of the cross terms: Phi_A sums
// (C_p + C_i)^T ... (C_q + C_j) over edges (B = L, s = +1), Phi_Gamma the differences
// (x_k - x_i)(x_k' - x_j)^T (B = P, s = -1); docs/math/lllvm.md derives both.
//   B (K o E) B - B (E o K G) - (E o G K) B + s [B (K o E G) + (K o G E) B]
//   + E o G K G + K o G E G - s [(G K) o (E G) + (K G) o (G E)]
Matrix coupling_block(const CouplingOperators& op, const SparseMatrix& outer, double sign,
                      const Eigen::Ref<const Matrix>& e) {
  const Matrix eg = e * op.graph;
  const Matrix ge = op.graph * e;
  const auto gk = op.kernel_graph.transpose();
  const Matrix inner = op.kernel.cwiseProduct(e) * outer;  // (K o E) B
  Matrix result = outer * inner;
  result -= outer * e.cwiseProduct(op.kernel_graph);
  result -= Matrix(e.cwiseProduct(gk)) * outer;
  result += sign * (outer * op.kernel.cwiseProduct(eg));
  result += sign * (Matrix(op.kernel.cwiseProduct(ge)) * outer);
  result += e.cwiseProduct(op.graph_kernel_graph);
  result += op.kernel.cwiseProduct(op.graph * eg);
  result -= sign * (gk.cwiseProduct(eg) + op.kernel_graph.cwiseProduct(ge));
  return result;
}

Matrix coupling_form(const CouplingOperators& op, const SparseMatrix& outer, double sign,
                     const Matrix& moment, Index dims) {
  const Index n = op.kernel.rows();
  require(moment.rows() == n * dims && moment.cols() == n * dims,
          "an LL-LVM moment matrix must be (n d_x) x (n d_x)",
          {"", "moment", std::to_string(moment.rows()) + " x " + std::to_string(moment.cols())});
  Matrix result(n * dims, n * dims);
  for (Index r = 0; r < dims; ++r)
    for (Index s = r; s < dims; ++s) {
      Matrix block = coupling_block(op, outer, sign, moment.block(r * n, s * n, n, n));
      // The form maps symmetric moments to symmetric results; rounding alone breaks it on the diagonal.
      if (r == s) block = 0.5 * (block + block.transpose()).eval();
      result.block(r * n, s * n, n, n) = block;
      if (s != r) result.block(s * n, r * n, n, n) = block.transpose();
    }
  return result;
}

}  // namespace

CouplingOperators coupling_operators(const NeighbourhoodGraph& graph, Matrix kernel) {
  require(kernel.rows() == graph.size() && kernel.cols() == graph.size(),
          "the coupling kernel must be n x n for the graph's n vertices",
          {"", "kernel", std::to_string(kernel.rows()) + " x " + std::to_string(kernel.cols())});
  Matrix kernel_graph = kernel * graph.adjacency;
  Matrix graph_kernel_graph = graph.adjacency * kernel_graph;
  return {graph.adjacency,   graph.laplacian,         graph.signless,
          std::move(kernel), std::move(kernel_graph), std::move(graph_kernel_graph)};
}

Matrix phi_a(const CouplingOperators& operators, const Matrix& moment, Index dims) {
  return coupling_form(operators, operators.laplacian, 1.0, moment, dims);
}

Matrix phi_gamma(const CouplingOperators& operators, const Matrix& moment, Index dims) {
  return coupling_form(operators, operators.signless, -1.0, moment, dims);
}

}  // namespace gplvm
