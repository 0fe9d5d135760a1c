#pragma once
// SPD(n) with the log-Euclidean metric (docs/math/manifolds.md): flat in the matrix logarithm.
// Tangent vectors are symmetric matrices in the log domain:
//   Exp_P(V) = exp(log P + V),  Log_P(Q) = log Q - log P,  d(P, Q) = |log P - log Q|_F,
// the metric is Frobenius, the tangent basis frobenius_basis(n) at every P (d = n(n+1)/2), and
// the Fréchet mean is closed-form: exp(mean_i log P_i).
#include "gplvm/model/spd_manifold.hpp"

namespace gplvm {

class SpdLogEuclidean final : public SpdManifold {
 public:
  explicit SpdLogEuclidean(Index order) : SpdManifold(order) {}  // n >= 1

  std::string name() const override { return "spd_log_euclidean"; }
  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Matrix tangent_basis(const ConstVectorRef& p) const override;
  FrechetMean frechet_mean(const DataRef& points, const FrechetMeanOptions& options = {}) const override;

 protected:
  Vector initial_mean(const DataRef& points) const override;
};

}  // namespace gplvm
