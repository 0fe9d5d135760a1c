#include "gplvm/objectives/wrapped_linear_basepoint.hpp"

namespace gplvm {

RowMatrix linear_basepoint_coordinates(const SphereLinearBasepoint& basepoint, const ConstMatrixRef& X,
                                       const DataRef& points) {
  RowMatrix V(X.rows(), basepoint.tangent_dim());
  for (Index j = 0; j < X.rows(); ++j)
    V.row(j) = basepoint.coordinates(X.row(j).transpose(), points.row(j).transpose(), nullptr).transpose();
  return V;
}

LinearBasepointGradient wrapped_linear_basepoint_lml(const Kernel& kernel, double noise_variance,
                                                     const ConstMatrixRef& X, const DataRef& points,
                                                     const SphereLinearBasepoint& basepoint,
                                                     bool with_gradient) {
  const Index n = basepoint.tangent_dim();
  RowMatrix V(X.rows(), n);
  std::vector<Matrix> jacobians(with_gradient ? X.rows() : 0);
  for (Index j = 0; j < X.rows(); ++j)
    V.row(j) = basepoint
                   .coordinates(X.row(j).transpose(), points.row(j).transpose(),
                                with_gradient ? &jacobians[j] : nullptr)
                   .transpose();
  const GpMarginal m =
      gp_marginal(kernel, noise_variance, X, V, "K_NN + noise I (wrapped GPLVM, linear basepoint)");
  LinearBasepointGradient g;
  g.gp.value = m.log_likelihood;
  if (!with_gradient) return g;
  g.gp.d_latents = Matrix::Zero(X.rows(), X.cols());
  g.gp.d_kernel = Vector::Zero(kernel.num_hyperparameters());
  backprop_symmetric_block(kernel, noise_variance, X, m.kernel_block,
                           gp_marginal_adjoint(m, m.factor.inverse()), g.gp);
  // The data term's dependence on V: dL/dV_j = -alpha_j, carried to u_j = A x_j by J_j.
  const Matrix& A = basepoint.map();
  g.d_map = Matrix::Zero(A.rows(), A.cols());
  for (Index j = 0; j < X.rows(); ++j) {
    const Vector d_u = -(jacobians[j].transpose() * m.alpha.row(j).transpose());
    g.gp.d_latents.row(j) += (A.transpose() * d_u).transpose();
    g.d_map.noalias() += d_u * X.row(j);
  }
  return g;
}

}  // namespace gplvm
