#pragma once
// Kendall's shape space of planar configurations of k >= 3 landmarks (docs/math/manifolds.md).
//
// A stored point is k landmarks (x1, y1, ..., xk, yk), read as z in C^k. Translation and scale are
// removed by the pre-shape (z - mean z) / |z - mean z|, a point of the unit sphere in the centred
// subspace; rotation by aligning: w is rotated onto p by the phase of c = <p, w> = sum p_j conj(w_j),
// which makes <p, w*> = |c| real and positive. Then
//   d([p], [w]) = arccos |c|,  Log_p([w]) = sphere Log_p(w*)  (horizontal: sum v_j = 0, <v, p> = 0),
//   Exp_p(v) = sphere Exp_p(v) (the representative aligned to p).
// The intrinsic dimension is 2k - 4; the tangent basis spans the horizontal space at p.
#include "gplvm/model/output_manifold.hpp"

namespace gplvm {

class KendallShapeSpace final : public OutputManifold {
 public:
  explicit KendallShapeSpace(Index landmarks);  // k >= 3

  std::string name() const override { return "kendall"; }
  Index data_dim() const override { return 2 * k_; }
  Index intrinsic_dim() const override { return 2 * k_ - 4; }
  std::vector<std::uint64_t> point_shape() const override { return {static_cast<std::uint64_t>(k_), 2}; }
  // Degenerate configurations (all landmarks equal within tolerance times the largest coordinate).
  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  Vector canonical(const ConstVectorRef& q) const override;  // the pre-shape
  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Matrix tangent_basis(const ConstVectorRef& p) const override;
  Vector project(const ConstVectorRef& y) const override;  // the pre-shape
  double ambient_distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  // The pre-shape of q rotated onto the pre-shape of p (optimal rotation, closed form).
  Vector align(const ConstVectorRef& p, const ConstVectorRef& q) const;

 protected:
  // The full-Procrustes extrinsic mean: the leading eigenvector of sum_i z_i z_i^*.
  Vector initial_mean(const DataRef& points) const override;

 private:
  Index k_;
};

}  // namespace gplvm
