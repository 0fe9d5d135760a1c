#pragma once
// The unit sphere S^n in R^{n+1} with the round metric (docs/math/manifolds.md):
//   Exp_p(v) = cos|v| p + sin|v| v/|v|,  Log_p(q) = theta (q - <p,q> p)/|q - <p,q> p|,
//   d(p, q) = theta = arccos <p, q>, computed as 2 atan2(|p - q|, |p + q|) (accurate at every angle).
// Log at the antipode returns a vector of norm pi along the first tangent basis vector. The
// formulas are sphere_geometry.hpp's, shared with the sphere latent space.
#include "gplvm/model/output_manifold.hpp"
#include "gplvm/model/sphere_geometry.hpp"

namespace gplvm {

class SphereManifold final : public OutputManifold {
 public:
  explicit SphereManifold(Index ambient_dim);  // n + 1 >= 2

  std::string name() const override { return "sphere"; }
  Index data_dim() const override { return ambient_; }
  Index intrinsic_dim() const override { return ambient_ - 1; }
  std::vector<std::uint64_t> point_shape() const override { return {static_cast<std::uint64_t>(ambient_)}; }
  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Matrix tangent_basis(const ConstVectorRef& p) const override;
  Vector project(const ConstVectorRef& y) const override;

 protected:
  Vector initial_mean(const DataRef& points) const override;  // the normalised Euclidean mean

 private:
  Index ambient_;
};

}  // namespace gplvm
