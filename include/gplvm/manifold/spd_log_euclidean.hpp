#pragma once
// SPD(n) with the log-Euclidean metric (docs/math/manifolds.md): flat in the matrix logarithm.
// Tangent vectors are symmetric matrices in the log domain:
//   Exp_P(V) = exp(log P + V),  Log_P(Q) = log Q - log P,  d(P, Q) = |log P - log Q|_F,
// the metric is Frobenius, the tangent basis frobenius_basis(n) at every P (d = n(n+1)/2),
// parallel transport is the identity (the log domain is flat), the Riemannian gradient of an
// ambient gradient G is D exp_{log P}[sym(G)] (the exponential's derivative is self-adjoint), and
// the Fréchet mean is closed-form: exp(mean_i log P_i).
#include <memory>

#include "gplvm/manifold/spd_manifold.hpp"

namespace gplvm {

// SPD(n) with the log-Euclidean metric, as an output space.
inline constexpr const char* kSpdLogEuclideanSpace = "spd_log_euclidean";

class SpdLogEuclidean final : public SpdManifold {
 public:
  explicit SpdLogEuclidean(Index order) : SpdManifold(order) {}  // n >= 1
  // SPD(n) for data rows of data_dim = n^2 numbers; InputError naming `key` otherwise.
  static std::unique_ptr<Manifold> for_width(Index data_dim, const std::string& key);

  std::string name() const override { return kSpdLogEuclideanSpace; }
  std::string description() const override {
    return "n x n symmetric positive definite matrices, log-Euclidean metric";
  }
  std::string tangent_basis_description() const override {
    return "Frobenius basis of Sym(n): E_ii, (E_ij + E_ji)/sqrt(2)";
  }
  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Vector parallel_transport(const ConstVectorRef&, const ConstVectorRef&,
                            const ConstVectorRef& v) const override {
    return v;
  }
  Matrix tangent_basis(const ConstVectorRef& p) const override;
  Vector riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const override;
  FrechetMean frechet_mean(const DataRef& points, const FrechetMeanOptions& options = {}) const override;

 protected:
  Vector initial_mean(const DataRef& points) const override;
};

}  // namespace gplvm
