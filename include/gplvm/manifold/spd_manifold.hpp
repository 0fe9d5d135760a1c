#pragma once
// What both SPD(n) metrics share (docs/math/manifolds.md): the points (n x n symmetric positive
// definite matrices stored as n^2 numbers), their layout, the membership test, the symmetric part
// as the canonical form, and the projection of the GPLVMProj baseline. The metrics differ only in
// exp, log, distance, transport, the tangent basis, the Riemannian gradient and the Fréchet mean.
#include "gplvm/manifold/manifold.hpp"

namespace gplvm {

// The relative eigenvalue floor of the projection onto SPD(n): the nearest SPD matrix in the
// Frobenius norm has no positive floor (it may be singular), so eigenvalues are clipped to this
// fraction of the largest |eigenvalue|, which keeps the result inside SPD(n) by the membership check.
inline constexpr double kSpdProjectionFloor = 1e-6;

class SpdManifold : public Manifold {
 public:
  explicit SpdManifold(Index order);  // n >= 1

  Index ambient_dim() const override { return n_ * n_; }
  Index intrinsic_dim() const override { return n_ * (n_ + 1) / 2; }
  std::vector<std::uint64_t> point_shape() const override {
    return {static_cast<std::uint64_t>(n_), static_cast<std::uint64_t>(n_)};
  }
  std::string point_set() const override { return "SPD(n)"; }
  // Not symmetric, or not positive definite (smallest eigenvalue <= tolerance times the largest).
  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  Vector canonical(const ConstVectorRef& q) const override;  // the symmetric part
  Vector project(const ConstVectorRef& y) const override;

 protected:
  Index n_;
};

}  // namespace gplvm
