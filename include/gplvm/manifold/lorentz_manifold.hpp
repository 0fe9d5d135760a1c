#pragma once
// The hyperboloid (Lorentz) model of hyperbolic space H^Q with curvature -1: a point is Q + 1
// ambient coordinates, time-like first, on <x, x>_L = -1, x_0 > 0 (lorentz_geometry.hpp has the
// formulas; docs/math/lorentz.md derives them).
//   - the metric is the Minkowski product restricted to tangent vectors (<x, v>_L = 0), so the
//     Riemannian gradient is the ambient gradient's time-like sign flipped (the metric's inverse),
//     then projected onto the tangent space;
//   - retract: the exponential map along the (re-projected) tangent step, then re-projection onto
//     the sheet, so rounding cannot accumulate over many steps;
//   - the tangent basis at x is the origin's spatial basis parallel-transported to x.
#include "gplvm/manifold/manifold.hpp"

namespace gplvm {

// The hyperboloid's name as a latent space (and the input domain of its kernels).
inline constexpr const char* kLorentzSpace = "lorentz";

class LorentzManifold final : public Manifold {
 public:
  explicit LorentzManifold(Index intrinsic_dim);  // Q >= 1

  std::string name() const override { return kLorentzSpace; }
  std::string description() const override {
    return "hyperbolic space H^n in the hyperboloid model, n + 1 Lorentz coordinates per point";
  }
  Index ambient_dim() const override { return dim_ + 1; }
  Index intrinsic_dim() const override { return dim_; }
  std::string tangent_basis_description() const override {
    return "the origin's spatial unit vectors parallel-transported to the basepoint";
  }

  // x_0 > 0, finite, and |<x, x>_L + 1| <= tolerance x_0^2 (lorentz::first_row_off_sheet).
  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  Index first_row_outside(const ConstMatrixRef& X, double tolerance) const override;
  // The point above the same spatial coordinates (x_0 reset to sqrt(1 + |x~|^2)).
  Vector project(const ConstVectorRef& y) const override;

  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override;
  Matrix distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const override;
  Vector parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                            const ConstVectorRef& v) const override;

  Matrix tangent_basis(const ConstVectorRef& p) const override;
  Vector riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const override;

  // Row blocks through lorentz_geometry.hpp's row functions (no temporary per row).
  void riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const override;
  void retract(MatrixRef X, const ConstMatrixRef& step) const override;
  // Tangent vectors are space-like: <v, v>_L >= 0 is their squared length.
  Vector tangent_squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const override;
  void transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const override;
  // The gradient's length in the chart x~ -> lift(x~) (lorentz::chart_gradient).
  Vector chart_gradient_norms(const ConstMatrixRef& X, const ConstMatrixRef& G) const override;

 protected:
  // The Minkowski metric: u . g_l v.
  Vector lower_index(const ConstVectorRef& p, const ConstVectorRef& v) const override;
  // The Euclidean mean of the points scaled back onto the sheet, m / sqrt(-<m, m>_L).
  Vector initial_mean(const DataRef& points) const override;

 private:
  Index dim_;
};

}  // namespace gplvm
