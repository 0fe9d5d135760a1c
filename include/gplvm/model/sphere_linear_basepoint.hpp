#pragma once
// A latent-dependent basepoint on the sphere S^n (model.basepoint = "linear",
// docs/math/wrapped_gplvm.md): m(x) = Exp_mu0(B0 A x), with mu0 the training data's Fréchet mean,
// B0 an orthonormal basis of T_mu0 S^n (ambient (n+1) x n) and A an n x Q map. Tangent
// coordinates at m(x) are taken in the frame E(x) = Gamma_{mu0 -> m(x)} B0, B0 parallel-
// transported along the geodesic, which in closed form is (u = A x, w = B0 u, r = |u|)
//   m = cos(r) mu0 + sin(r)/r w,   E = B0 + (cos(r) - 1)/r^2 w u^T - sin(r)/r mu0 u^T,
// and a point p has coordinates V(x, p) = E(x)^T Log_{m(x)}(p). The derivative of V with respect
// to u holds the derivative of Log in its base point (Jacobi fields, closed form on constant
// curvature: sphere::log_base_derivative) carried by dExp, and the derivative of the frame.
#include "gplvm/core/types.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"
#include "gplvm/manifold/tangent_chart.hpp"

namespace gplvm {

// The output space the linear basepoint is defined on (model.basepoint = "linear").
inline constexpr const char* kLinearBasepointSpace = kSphereSpace;

namespace sphere {
// D_m Log_m(p) in ambient coordinates: the (n+1) x (n+1) matrix J with
//   d Log_m(p) = J delta  for a tangent direction delta at m (J is meaningful on T_m only),
//   J = -q(theta) (p - cos(theta) m) p^T - h(theta) m p^T - h(theta) cos(theta) I,
//   h = theta / sin(theta), q = (sin(theta) - theta cos(theta)) / sin(theta)^3, theta = d(m, p).
// Its tangent part, in a frame whose first vector points along Log_m(p), is -diag(1, theta cot
// theta, ...): the Jacobi-field form; the normal part (-h <delta, p> m) is the turn of T_m.
// Undefined at the cut locus (p = -m).
Matrix log_base_derivative(const ConstVectorRef& m, const ConstVectorRef& p);
}  // namespace sphere

class SphereLinearBasepoint {
 public:
  // mu0: unit vector (n+1); basis: (n+1) x n orthonormal, orthogonal to mu0; map: n x Q.
  SphereLinearBasepoint(Vector mu0, Matrix basis, Matrix map);

  Index latent_dim() const noexcept { return map_.cols(); }
  Index tangent_dim() const noexcept { return basis_.cols(); }
  const Matrix& map() const noexcept { return map_; }
  const Vector& mu0() const noexcept { return mu0_; }
  const Matrix& basis() const noexcept { return basis_; }

  Vector basepoint(const ConstVectorRef& x) const;  // m(x)
  Matrix frame(const ConstVectorRef& x) const;      // E(x), (n+1) x n, orthonormal, tangent at m(x)

  // V(x, p) = E(x)^T Log_{m(x)}(p); with d_du (n x n, overwritten) its derivative in u = A x, so
  // that dV/dx = d_du A and dV/dA = d_du (.) x^T.
  Vector coordinates(const ConstVectorRef& x, const ConstVectorRef& p, Matrix* d_du) const;

  // The point of tangent coordinates c at m(x): Exp_{m(x)}(E(x) c) (a mean prediction or a sample).
  Vector point(const ConstVectorRef& x, const ConstVectorRef& c) const;

 private:
  Vector mu0_;
  Matrix basis_, map_;
};

// The chart's own frame. The sphere's geometry is invariant under the rotation R = [mu0 B0], so
// the coordinates V, the frames and the predictions of the linear basepoint are the same in the
// frame where mu0 = e_0 and B0 = [0; I_n]: a model needs nothing of the data but their tangent
// coordinates at mu0 (which train, predict and evaluate already compute), and A stays n x Q in
// the basis B0.
SphereLinearBasepoint chart_frame_basepoint(Matrix map);
// Tangent coordinates c (N x n) at mu0 -> the points Exp_{e_0}((0, c)) of S^n (N x (n + 1)) in the
// chart's frame.
RowMatrix chart_frame_points(const DataRef& coordinates);
// Points of the chart's frame (N x (n + 1)) -> the data's frame: R p = p_0 mu0 + B0 p_{1..n}.
RowMatrix data_frame_points(const TangentChart& chart, const DataRef& frame_points);

}  // namespace gplvm
