#pragma once
// The hyperboloid exponential kernel (Watanabe et al. 2025, eq. 10) on H^Q in the Lorentz model:
//   k(x, x') = sigma exp(-d(x, x') / kappa),   d = arccosh(-<x, x'>_L),
// a Laplacian (Matern-1/2-type) kernel in the geodesic distance, positive definite for every
// sigma, kappa > 0 because the hyperbolic distance is conditionally negative definite (Istas 2012,
// Feragen et al. 2015). Inputs are ambient Lorentz coordinates (Q + 1 columns, time-like first, on
// the sheet <x, x>_L = -1); hyperparameters log sigma, log kappa, in that order.
//
// Input adjoints are ambient gradients that are exact along tangent directions of the hyperboloid
// (the only directions a point on it can move in): this kernel returns the tangent one,
// g_l grad_x k with grad_x k = k / (kappa sinh d) (x' - u x), u = -<x, x'>_L, bounded by k / kappa
// as d -> 0, and zero at coincident points, where k has a cusp. riemannian_gradient of the Lorentz
// latent space maps it to the Riemannian gradient unchanged.
//
// Not stationary: k is invariant under the isometries of H^Q (Lorentz boosts and rotations), not
// under adding a vector to every input, which leaves the hyperboloid. (is_stationary() only lets a
// model pin a translation direction, so "false" is the safe answer.)
// Psi-statistics are not supported: the generic ones integrate over Gaussian inputs in the ambient
// coordinates, whose mass lies off the hyperboloid, so they would be wrong; the call throws.
#include "gplvm/model/kernel.hpp"

namespace gplvm {

class HyperboloidExpKernel final : public Kernel {
 public:
  // ambient_dim = Q + 1 >= 2; throws InputError unless variance and kappa are positive and finite.
  HyperboloidExpKernel(double variance, double kappa, Index ambient_dim);

  std::unique_ptr<Kernel> clone() const override;
  std::string name() const override { return "hyperboloid_exp"; }
  bool is_stationary() const override { return false; }
  std::vector<NamedHyperparameter> named_hyperparameters() const override;
  Index input_dim() const override { return ambient_dim_; }
  Index num_hyperparameters() const override { return 2; }
  std::string hyperparameter_name(Index i) const override;
  Vector hyperparameters() const override;
  void set_hyperparameters(const ConstVectorRef& values) override;

  double variance() const noexcept { return variance_; }
  double kappa() const noexcept { return kappa_; }

  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override;
  void diagonal(const ConstMatrixRef& X, Vector& k) const override;
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override;
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override;
  // d^2 k(x, x') / dx dx'^T at x' = x (kernel.hpp): none: InputError, as k has a cusp at x = x'.
  Matrix gradient_covariance(const ConstMatrixRef& x) const override;

  // Throw InputError (see the file comment).
  void psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                      PsiStatistics& out) const override;
  void psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                    const PsiStatistics& value, double d_psi0, const ConstMatrixRef& d_psi1,
                    const ConstMatrixRef& d_psi2, Matrix* d_mean, Matrix* d_variance, Matrix* dZ,
                    VectorRef d_hyper) const override;

 private:
  double variance_;
  double kappa_;
  Index ambient_dim_;
};

}  // namespace gplvm
