#pragma once
// SPD(n) with the affine-invariant metric <U, V>_P = tr(P^-1 U P^-1 V) (docs/math/manifolds.md):
//   Exp_P(V) = P^1/2 exp(P^-1/2 V P^-1/2) P^1/2,  Log_P(Q) = P^1/2 log(P^-1/2 Q P^-1/2) P^1/2,
//   d(P, Q) = |log(P^-1/2 Q P^-1/2)|_F.
// Tangent vectors are symmetric matrices at P; the basis at P is P^1/2 E_a P^1/2 over the
// Frobenius basis E_a of Sym(n), the Riemannian gradient of an ambient gradient G is P sym(G) P,
// and parallel transport from P to Q is V -> E V E^T, E = P^1/2 (P^-1/2 Q P^-1/2)^1/2 P^-1/2.
// No closed-form Fréchet mean: Karcher iteration from the log-Euclidean mean.
#include <memory>

#include "gplvm/manifold/spd_manifold.hpp"

namespace gplvm {

// SPD(n) with the affine-invariant metric, as an output space.
inline constexpr const char* kSpdAffineSpace = "spd_affine";

class SpdAffine final : public SpdManifold {
 public:
  explicit SpdAffine(Index order) : SpdManifold(order) {}  // n >= 1
  // SPD(n) for data rows of data_dim = n^2 numbers; InputError naming `key` otherwise.
  static std::unique_ptr<Manifold> for_width(Index data_dim, const std::string& key);

  std::string name() const override { return kSpdAffineSpace; }
  std::string description() const override {
    return "n x n symmetric positive definite matrices, affine-invariant metric";
  }
  std::string tangent_basis_description() const override {
    return "basepoint^1/2 E basepoint^1/2 over the Frobenius basis E of Sym(n)";
  }
  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Vector parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                            const ConstVectorRef& v) const override;
  Matrix tangent_basis(const ConstVectorRef& p) const override;
  Vector riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const override;

 protected:
  Vector lower_index(const ConstVectorRef& p, const ConstVectorRef& v) const override;  // P^-1 V P^-1
  Vector initial_mean(const DataRef& points) const override;                            // log-Euclidean
};

}  // namespace gplvm
