#include "gplvm/lllvm/linear_statistics.hpp"

namespace gplvm {

Vector expected_b(const LllvmProblem& problem, const Matrix& mean_c, double gamma) {
  const Index n = problem.nodes();
  const SparseMatrix& g = problem.graph.adjacency;
  Vector b = Vector::Zero(problem.latent_size());
  for (Index j = 0; j < g.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(g, j); it; ++it) {
      const Index i = it.row();
      const Vector difference = (problem.y.row(i) - problem.y.row(j)).transpose();
      for (Index r = 0; r < problem.latent_dims; ++r)
        b[r * n + i] += (mean_c.col(r * n + i) + mean_c.col(r * n + j)).dot(difference);
    }
  return gamma * b;
}

Matrix expected_h(const LllvmProblem& problem, const Vector& mean_x) {
  const Index n = problem.nodes();
  const SparseMatrix& g = problem.graph.adjacency;
  Matrix h = Matrix::Zero(problem.data_dims(), problem.latent_size());
  for (Index j = 0; j < g.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(g, j); it; ++it) {
      const Index i = it.row();
      const Vector difference = (problem.y.row(j) - problem.y.row(i)).transpose();
      for (Index r = 0; r < problem.latent_dims; ++r)
        h.col(r * n + i) += (mean_x[r * n + j] - mean_x[r * n + i]) * difference;
    }
  return h;
}

}  // namespace gplvm
