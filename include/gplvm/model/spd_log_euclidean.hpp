#pragma once
// SPD(n) with the log-Euclidean metric (docs/math/manifolds.md): flat in the matrix logarithm.
// Tangent vectors are symmetric matrices in the log domain:
//   Exp_P(V) = exp(log P + V),  Log_P(Q) = log Q - log P,  d(P, Q) = |log P - log Q|_F,
// the metric is Frobenius, the tangent basis frobenius_basis(n) at every P (d = n(n+1)/2), and
// the Fréchet mean is closed-form: exp(mean_i log P_i).
#include "gplvm/model/output_manifold.hpp"

namespace gplvm {

class SpdLogEuclidean final : public OutputManifold {
 public:
  explicit SpdLogEuclidean(Index order);  // n >= 1

  std::string name() const override { return "spd_log_euclidean"; }
  Index data_dim() const override { return n_ * n_; }
  Index intrinsic_dim() const override { return n_ * (n_ + 1) / 2; }
  std::vector<std::uint64_t> point_shape() const override {
    return {static_cast<std::uint64_t>(n_), static_cast<std::uint64_t>(n_)};
  }
  // Not symmetric, or not positive definite (smallest eigenvalue <= tolerance times the largest).
  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  Vector canonical(const ConstVectorRef& q) const override;  // the symmetric part
  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Matrix tangent_basis(const ConstVectorRef& p) const override;
  Vector project(const ConstVectorRef& y) const override;
  FrechetMean frechet_mean(const DataRef& points, const FrechetMeanOptions& options = {}) const override;

 protected:
  Vector initial_mean(const DataRef& points) const override;

 private:
  Index n_;
};

// Why a symmetric-positive-definite matrix (n^2 numbers) is not one; empty if it is. Shared by
// both SPD metrics.
std::string spd_off_manifold_reason(const ConstVectorRef& q, Index n, double tolerance);

}  // namespace gplvm
