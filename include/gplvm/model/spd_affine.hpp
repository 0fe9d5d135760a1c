#pragma once
// SPD(n) with the affine-invariant metric <U, V>_P = tr(P^-1 U P^-1 V) (docs/math/manifolds.md):
//   Exp_P(V) = P^1/2 exp(P^-1/2 V P^-1/2) P^1/2,  Log_P(Q) = P^1/2 log(P^-1/2 Q P^-1/2) P^1/2,
//   d(P, Q) = |log(P^-1/2 Q P^-1/2)|_F.
// Tangent vectors are symmetric matrices at P; the basis at P is P^1/2 E_a P^1/2 over the
// Frobenius basis E_a of Sym(n). No closed-form Fréchet mean: Karcher iteration from the
// log-Euclidean mean.
#include "gplvm/model/spd_manifold.hpp"

namespace gplvm {

class SpdAffine final : public SpdManifold {
 public:
  explicit SpdAffine(Index order) : SpdManifold(order) {}  // n >= 1

  std::string name() const override { return "spd_affine"; }
  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Matrix tangent_basis(const ConstVectorRef& p) const override;

 protected:
  Vector lower_index(const ConstVectorRef& p, const ConstVectorRef& v) const override;  // P^-1 V P^-1
  Vector initial_mean(const DataRef& points) const override;                            // log-Euclidean
};

}  // namespace gplvm
