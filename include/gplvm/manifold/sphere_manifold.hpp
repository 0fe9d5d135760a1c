#pragma once
// The unit sphere S^n in R^{n+1} with the round metric (docs/math/manifolds.md,
// docs/math/sphere_latents.md), as a latent space's manifold and as an output space:
//   Exp_p(v) = cos|v| p + sin|v| v/|v|,  Log_p(q) = theta (q - <p,q> p)/|q - <p,q> p|,
//   d(p, q) = theta = arccos <p, q>, computed as 2 atan2(|p - q|, |p + q|) (accurate at every angle).
// Log at the antipode returns a vector of norm pi along the first tangent basis vector. The
// metric is the ambient one on tangent vectors, so the Riemannian gradient is the tangent
// projection g - <g, x> x. The formulas are sphere_geometry.hpp's.
#include <memory>

#include "gplvm/manifold/manifold.hpp"
#include "gplvm/manifold/sphere_geometry.hpp"

namespace gplvm {

// The sphere's name as a latent space and as an output space.
inline constexpr const char* kSphereSpace = "sphere";

class SphereManifold final : public Manifold {
 public:
  explicit SphereManifold(Index ambient_dim);  // n + 1 >= 2
  // The sphere whose points have data_dim coordinates (an output space's data rows); InputError
  // naming `key` and the width when there is none.
  static std::unique_ptr<Manifold> for_width(Index data_dim, const std::string& key);

  std::string name() const override { return kSphereSpace; }
  std::string description() const override { return "the unit sphere S^n, unit vectors of n + 1 numbers"; }
  Index ambient_dim() const override { return ambient_; }
  Index intrinsic_dim() const override { return ambient_ - 1; }
  std::string tangent_basis_description() const override { return "Householder complement of the basepoint"; }

  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  // | |x| - 1 | <= tolerance for each row (a row of non-finite values, or one whose norm
  // overflows, never is a point).
  Index first_row_outside(const ConstMatrixRef& X, double tolerance) const override;
  Vector project(const ConstVectorRef& y) const override;

  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Matrix distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const override;
  Vector parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                            const ConstVectorRef& v) const override;

  Matrix tangent_basis(const ConstVectorRef& p) const override;
  Vector riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const override;

  // Row blocks through sphere_geometry.hpp's row functions (no temporary per row).
  void riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const override;
  // The exponential map along the (re-projected) tangent step, then normalisation, so rounding
  // cannot accumulate over many steps.
  void retract(MatrixRef X, const ConstMatrixRef& step) const override;
  Vector tangent_squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const override;
  void transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const override;

 protected:
  Vector initial_mean(const DataRef& points) const override;  // the normalised Euclidean mean

 private:
  Index ambient_;
};

}  // namespace gplvm
