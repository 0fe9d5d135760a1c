#pragma once
// What both SPD(n) metrics share (docs/math/manifolds.md): the points (n x n symmetric positive
// definite matrices stored as n^2 numbers), their layout, the membership test, the symmetric part
// as the canonical form, and the projection of the GPLVMProj baseline. The metrics differ only in
// exp, log, distance, the tangent basis and the Fréchet mean.
#include "gplvm/model/output_manifold.hpp"

namespace gplvm {

class SpdManifold : public OutputManifold {
 public:
  explicit SpdManifold(Index order);  // n >= 1

  Index data_dim() const override { return n_ * n_; }
  Index intrinsic_dim() const override { return n_ * (n_ + 1) / 2; }
  std::vector<std::uint64_t> point_shape() const override {
    return {static_cast<std::uint64_t>(n_), static_cast<std::uint64_t>(n_)};
  }
  // Not symmetric, or not positive definite (smallest eigenvalue <= tolerance times the largest).
  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  Vector canonical(const ConstVectorRef& q) const override;  // the symmetric part
  Vector project(const ConstVectorRef& y) const override;

 protected:
  Index n_;
};

}  // namespace gplvm
