#pragma once
// The squared-exponential kernel on the unit sphere S^Q (model.kernel = "sphere_eq", inputs unit
// vectors in R^{Q+1}, the sphere latent space):
//   k(x, x') = theta exp(-(1 - <x, x'>) / l^2) = theta exp(-|x - x'|^2 / (2 l^2)),
// a function of the chordal distance |x - x'| = 2 sin(d / 2), d the geodesic one, as
// |x - x'|^2 = 2 (1 - <x, x'>) on the sphere. It is the EQ kernel of R^{Q+1} restricted to the
// sphere, so positive definite on it for every theta, l > 0 (docs/math/sphere_latents.md); it is
// evaluated as that restriction (EqArdKernel with one lengthscale l in every coordinate), from the
// differences x - x', which keep every digit for nearby points where 1 - <x, x'> would not.
// Hyperparameters log theta, log l, in that order; grouped as "variance" and "lengthscales" (one).
//
// Input adjoints are the ambient gradients of the chordal form, exact along tangent directions of
// the sphere (their normal part is removed by the sphere latent space's riemannian_gradient).
// Not stationary: k is invariant under rotations of the sphere, not under adding a vector to every
// input, which leaves the sphere. Psi-statistics are not supported: the generic and the EQ kernel's
// closed forms integrate over Gaussian inputs in ambient coordinates, whose mass lies off the
// sphere; the calls throw.
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/kernel.hpp"

namespace gplvm {

class SphereEqKernel final : public Kernel {
 public:
  // ambient_dim = Q + 1 >= 2; throws InputError unless variance and lengthscale are positive and finite.
  SphereEqKernel(double variance, double lengthscale, Index ambient_dim);

  std::unique_ptr<Kernel> clone() const override;
  std::string name() const override { return "sphere_eq"; }
  bool is_stationary() const override { return false; }
  std::vector<NamedHyperparameter> named_hyperparameters() const override;
  Index input_dim() const override { return eq_.input_dim(); }
  Index num_hyperparameters() const override { return 2; }
  std::string hyperparameter_name(Index i) const override;
  Vector hyperparameters() const override;
  void set_hyperparameters(const ConstVectorRef& values) override;

  double variance() const noexcept { return eq_.variance(); }
  double lengthscale() const noexcept { return eq_.lengthscales()[0]; }

  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override;
  void diagonal(const ConstMatrixRef& X, Vector& k) const override;
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override;
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override;
  // d^2 k(x, x') / dx dx'^T at x' = x (kernel.hpp): the ambient EQ kernel's theta I / l^2.
  Matrix gradient_covariance(const ConstMatrixRef& x) const override;
  // The ambient EQ kernel's Hessians; its constant H has zero derivatives.
  std::vector<Matrix> input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const override {
    return eq_.input_hessians(x, Z);
  }
  std::vector<Matrix> gradient_covariance_derivatives(const ConstMatrixRef& x) const override {
    return eq_.gradient_covariance_derivatives(x);
  }

  // Throw InputError (see the file comment).
  void psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                      PsiStatistics& out) const override;
  void psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                    const PsiStatistics& value, double d_psi0, const ConstMatrixRef& d_psi1,
                    const ConstMatrixRef& d_psi2, Matrix* d_mean, Matrix* d_variance, Matrix* dZ,
                    VectorRef d_hyper) const override;

 private:
  // The EQ kernel of R^{Q+1} with l in every coordinate: the 1 + (Q + 1) hyperparameters it is
  // given back and differentiates, tied to this kernel's two.
  static EqArdKernel tied(double variance, double lengthscale, Index ambient_dim);
  // Its gradient (log theta, log l_0, ..., log l_Q) folded into (log theta, log l).
  static void add_tied(const Vector& eq_gradient, VectorRef d_hyper);

  EqArdKernel eq_;
};

}  // namespace gplvm
