#include "gplvm/objectives/point_psi.hpp"

namespace gplvm {

void point_psi_statistics(const Kernel& kernel, const ConstMatrixRef& X, const ConstMatrixRef& Z,
                          PsiStatistics& out) {
  Vector diagonal;
  kernel.diagonal(X, diagonal);
  out.psi0 = diagonal.sum();
  kernel.cross(X, Z, out.psi1);
  out.psi2.resize(Z.rows(), Z.rows());
  out.psi2.setZero();
  out.psi2.selfadjointView<Eigen::Lower>().rankUpdate(out.psi1.transpose());
  out.psi2.triangularView<Eigen::StrictlyUpper>() = out.psi2.transpose();
}

void point_psi_backward(const Kernel& kernel, const ConstMatrixRef& X, const ConstMatrixRef& Z,
                        const PsiStatistics& value, double d_psi0, const ConstMatrixRef& d_psi1,
                        const ConstMatrixRef& d_psi2, Matrix* dX, Matrix* dZ, VectorRef d_hyper) {
  // Psi2 = K^T K with K = K_XZ: for symmetric G = dL/dPsi2, dL/dK gains 2 K G.
  Matrix d_cross = d_psi1;
  d_cross.noalias() += 2.0 * value.psi1 * d_psi2;
  kernel.cross_backward(X, Z, value.psi1, d_cross, dX, dZ, d_hyper);
  if (d_psi0 != 0.0) kernel.diagonal_backward(X, Vector::Constant(X.rows(), d_psi0), dX, d_hyper);
}

}  // namespace gplvm
