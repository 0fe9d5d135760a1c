#pragma once
// Kendall's shape space of planar configurations of k >= 3 landmarks (docs/math/manifolds.md).
//
// A stored point is k landmarks (x1, y1, ..., xk, yk), read as z in C^k. Translation and scale are
// removed by the pre-shape (z - mean z) / |z - mean z|, a point of the unit sphere in the centred
// subspace; rotation by aligning: w is rotated onto p by the phase of c = <p, w> = sum p_j conj(w_j),
// which makes <p, w*> = |c| real and positive. Then
//   d([p], [w]) = arccos |c|,  Log_p([w]) = sphere Log_p(w*)  (horizontal: sum v_j = 0, <v, p> = 0),
//   Exp_p(v) = sphere Exp_p(v) (the representative aligned to p).
// The intrinsic dimension is 2k - 4; the tangent basis spans the horizontal space at p, and the
// Riemannian gradient is the ambient gradient's horizontal part. Parallel transport along the
// horizontal geodesic from p towards u = Log_p(w*) / |Log_p(w*)| is the sphere's, except that the
// component along i u turns with the geodesic as well (to i gamma'): tangent vectors stay
// horizontal (docs/math/manifolds.md).
#include <memory>

#include "gplvm/manifold/manifold.hpp"

namespace gplvm {

// Kendall's shape space's name as an output space.
inline constexpr const char* kKendallSpace = "kendall";

class KendallShapeSpace final : public Manifold {
 public:
  explicit KendallShapeSpace(Index landmarks);  // k >= 3
  // The shape space of data rows of data_dim = 2k numbers; InputError naming `key` and the width
  // when there is none.
  static std::unique_ptr<Manifold> for_width(Index data_dim, const std::string& key);

  std::string name() const override { return kKendallSpace; }
  std::string description() const override {
    return "planar shapes: k x 2 landmarks up to translation, scale and rotation (Kendall's shape space)";
  }
  Index ambient_dim() const override { return 2 * k_; }
  Index intrinsic_dim() const override { return 2 * k_ - 4; }
  std::vector<std::uint64_t> point_shape() const override { return {static_cast<std::uint64_t>(k_), 2}; }
  std::string tangent_basis_description() const override {
    return "Householder complement of translations, scaling and rotation at the pre-shape";
  }
  // Degenerate configurations (all landmarks equal within tolerance times the largest coordinate).
  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  Vector canonical(const ConstVectorRef& q) const override;  // the pre-shape
  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Vector parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                            const ConstVectorRef& v) const override;
  Matrix tangent_basis(const ConstVectorRef& p) const override;
  // At the pre-shape of p: g less its components along the four non-horizontal directions.
  Vector riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const override;
  Vector project(const ConstVectorRef& y) const override;  // the pre-shape
  double ambient_distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  // The pre-shape of q rotated onto the pre-shape of p (optimal rotation, closed form).
  Vector align(const ConstVectorRef& p, const ConstVectorRef& q) const;

 protected:
  // The full-Procrustes extrinsic mean: the leading eigenvector of sum_i z_i z_i^*.
  Vector initial_mean(const DataRef& points) const override;

 private:
  // 2k x 4, orthonormal: the directions at the pre-shape mu that are not horizontal (the two
  // translations, scaling mu itself and rotation i mu).
  Matrix vertical_directions(const Vector& mu) const;

  Index k_;
};

}  // namespace gplvm
