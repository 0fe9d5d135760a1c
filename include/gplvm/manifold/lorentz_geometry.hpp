#pragma once
// The hyperboloid (Lorentz) model of hyperbolic space H^Q with curvature -1, as free functions.
//
// A point is a vector of Q + 1 ambient coordinates, time-like coordinate first, on the sheet
//   <x, x>_L = -1, x_0 > 0,   <a, b>_L = -a_0 b_0 + sum_{i>=1} a_i b_i   (the Minkowski product).
// Tangent vectors at x are the v with <x, v>_L = 0; at the origin o = (1, 0, ..., 0) they are
// (0, v~), so a tangent vector at o is also given by its Q spatial coordinates.
// The formulas and the numerically safe forms used here are derived in docs/math/lorentz.md:
// arccosh near 1 is replaced by a chord form, sinh(r)/r and its derivatives by series near 0, and
// points can be re-projected onto the sheet (x_0 = sqrt(1 + |x~|^2)) to stop rounding drift.
// Matrix versions work row by row (one point per row).
#include <algorithm>
#include <cmath>

#include "gplvm/core/types.hpp"

namespace gplvm::lorentz {

// <a, b>_L.
double minkowski_dot(const ConstVectorRef& a, const ConstVectorRef& b);
// g_l v: the time-like coordinate's sign flipped (g_l is its own inverse).
Vector flip_time(const ConstVectorRef& v);

// sinh(r) / r, and (r cosh r - sinh r) / r^3 = (d/dr (sinh r / r)) / r, both finite at r = 0.
double sinhc(double r);
double sinhc_slope_over_r(double r);

// The origin (1, 0, ..., 0) of H^Q.
Vector origin(Index Q);
// The point of H^Q above spatial coordinates x~: (sqrt(1 + |x~|^2), x~).
Vector lift(const ConstVectorRef& spatial);
// Re-projection: keeps the spatial coordinates and resets x_0 = sqrt(1 + |x~|^2).
void reproject(VectorRef x);
void reproject_rows(MatrixRef X);
// max_n |<x_n, x_n>_L + 1| over the rows: how far rounding has moved points off the sheet.
double max_sheet_deviation(const ConstMatrixRef& X);
// The first row that is not a point of the sheet within `tolerance` (x_0 > 0, finite, and
// |<x, x>_L + 1| <= tolerance x_0^2: relative to x_0^2, the size of the rounding in <x, x>_L far
// from the origin), or -1 when every row is one.
Index first_row_off_sheet(const ConstMatrixRef& X, double tolerance);

// Geodesic distance arccosh(-<a, b>_L), computed from the chord a - b when the points are close,
// where arccosh would lose half the digits.
double distance(const ConstVectorRef& a, const ConstVectorRef& b);
// D(i, j) = distance(X1.row(i), X2.row(j)) (to a few ulps: vectorised, arccosh_one_plus of u - 1).
Matrix pairwise_distances(const ConstMatrixRef& X1, const ConstMatrixRef& X2);
// arccosh(1 + m) elementwise for m >= 0, every digit at small m, as one vectorised log.
Matrix arccosh_one_plus(const Matrix& M);

// u = -<a, b>_L = cosh d(a, b) and u - 1, the latter from the chord a - b for nearby points (as in
// distance()), for points given as n contiguous coordinates each (columns of a transposed copy, so
// a loop over pairs copies nothing). No transcendental function: for the adjoints of functions of
// the distance, which need u and sinh d but not d itself.
// Inline: pairwise loops call them once per pair.
struct ProductGap {
  double u;
  double u_minus_1;
};
// Below this u the distance and u - 1 come from the chord.
inline constexpr double kChordRegime = 2.0;
inline ProductGap product_gap(const double* a, const double* b, Index n) {
  double spatial = 0.0;
  for (Index k = 1; k < n; ++k) spatial += a[k] * b[k];
  const double u = -(-a[0] * b[0] + spatial);
  if (u >= kChordRegime) return {u, u - 1.0};
  double chord_spatial = 0.0;  // <a - b, a - b>_L = 2 (u - 1) on the sheet, from differences
  for (Index k = 1; k < n; ++k) chord_spatial += (a[k] - b[k]) * (a[k] - b[k]);
  const double c2 = std::max(-(a[0] - b[0]) * (a[0] - b[0]) + chord_spatial, 0.0);
  return {u, 0.5 * c2};
}
// product_gap for every pair (x1_i, x2_j), column by column with one pass per coordinate over X1's
// contiguous columns (vectorised over i): the same operations per pair as product_gap.
struct ProductGaps {
  Matrix u;          // n1 x n2
  Matrix u_minus_1;  // n1 x n2
};
ProductGaps pairwise_product_gaps(const ConstMatrixRef& X1, const ConstMatrixRef& X2);
// sinh d = sqrt((u - 1)(u + 1)), with every digit near d = 0 because u - 1 has them.
inline double sinh_distance(const ProductGap& gap) {
  return std::sqrt(gap.u_minus_1 * (gap.u_minus_1 + 2.0));
}

// Tangent projection P_x(g) = g + <x, g>_L x (Minkowski-orthogonal onto T_x).
Vector project_tangent(const ConstVectorRef& x, const ConstVectorRef& g);
// The gradient in the chart x~ -> lift(x~) at x (Q values) from an ambient gradient g that is exact
// along tangent directions: d f / d x~_q = g_q + g_0 x_q / x_0 (the chart's coordinate directions
// e_q + (x_q / x_0) e_0 are tangent). What the hGP-LVM paper's optimiser clips.
Vector chart_gradient(const ConstVectorRef& x, const ConstVectorRef& g);
// Exp_x(v) = cosh(|v|_L) x + sinh(|v|_L) v / |v|_L for a tangent v at x.
Vector exp_map(const ConstVectorRef& x, const ConstVectorRef& v);
// Log_x(y): the tangent vector at x with Exp_x(Log_x(y)) = y, of Minkowski norm distance(x, y).
Vector log_map(const ConstVectorRef& x, const ConstVectorRef& y);
// Parallel transport of a tangent vector v at `from` to `to` along their geodesic:
//   v + <to - gamma from, v>_L / (gamma + 1) (from + to),  gamma = -<from, to>_L >= 1.
Vector parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to, const ConstVectorRef& v);

// Exp at the origin of the tangent vector (0, v~), given its spatial part v~ (Q numbers).
Vector exp_at_origin(const ConstVectorRef& spatial_tangent);
// Spatial part of Log_o(x).
Vector log_at_origin(const ConstVectorRef& x);
// PT_{o -> mu}(0, v~), an ambient tangent vector at mu, from the spatial part v~ (closed form:
// time-like part mu~.v~, spatial part v~ + (mu~.v~) / (mu_0 + 1) mu~).
Vector transport_from_origin(const ConstVectorRef& mu, const ConstVectorRef& spatial_tangent);
// Spatial part of PT_{mu -> o}(u) for a tangent u at mu (its time-like part is 0).
Vector transport_to_origin(const ConstVectorRef& mu, const ConstVectorRef& u);

// Row blocks (one point or tangent vector per row), computed column by column over the whole
// block with no per-row temporaries: what optimisers call for every point at every step.
// <a_n, b_n>_L for each row n.
Vector minkowski_dot_rows(const ConstMatrixRef& A, const ConstMatrixRef& B);
// In place, each row: g <- P_x(g_l g), the Riemannian gradient of an ambient gradient g at x.
void riemannian_gradient_rows(const ConstMatrixRef& X, MatrixRef G);
// In place, each row: x <- Exp_x(P_x(step)), then re-projection onto the sheet.
void retract_rows(MatrixRef X, const ConstMatrixRef& step);
// In place, each row: v <- PT_{from -> to}(v).
void parallel_transport_rows(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V);
// X.row(n) = exp_at_origin(V.row(n)): the encoders' tangent vectors at the origin mapped to points.
void exp_at_origin_rows(const ConstMatrixRef& V, MatrixRef X);
// ADDS each row's exp_at_origin_backward to d_V.
void exp_at_origin_backward_rows(const ConstMatrixRef& V, const ConstMatrixRef& dX, MatrixRef d_V);

// The Poincare ball B^Q: p = x~ / (1 + x_0), and back x = ((1 + |p|^2), 2 p) / (1 - |p|^2).
Vector to_poincare(const ConstVectorRef& x);
Vector from_poincare(const ConstVectorRef& p);
Matrix to_poincare_rows(const ConstMatrixRef& X);

// Adjoint of exp_at_origin: given dL/dx (ambient), ADDS dL/dv~ to d_spatial.
void exp_at_origin_backward(const ConstVectorRef& spatial_tangent, const ConstVectorRef& dx,
                            VectorRef d_spatial);

// A draw of the wrapped normal at mu from its tangent sample v~ at the origin (below):
// Exp_mu(PT_{o -> mu}(0, v~)), written as cosh(r) mu + (sinh r / r) PT_{o -> mu}(0, v~), r = |v~|.
Vector wrapped_normal_sample(const ConstVectorRef& mu, const ConstVectorRef& spatial_tangent);
// Its adjoint: given dL/dx, ADDS dL/dmu (ambient) and dL/dv~.
void wrapped_normal_sample_backward(const ConstVectorRef& mu, const ConstVectorRef& spatial_tangent,
                                    const ConstVectorRef& dx, VectorRef d_mu, VectorRef d_spatial);

// The wrapped normal N^w(mu, diag(variance)) (Nagano et al. 2019): the law of
// Exp_mu(PT_{o -> mu}(0, v~)) with v~ ~ N(0, diag(variance)). Its log density with respect to the
// hyperbolic volume, at x:
//   log N(v~ | 0, diag(variance)) - (Q - 1) log(sinh r / r),  v~ = PT_{mu -> o}(Log_mu(x)), r = |v~|.
double wrapped_normal_log_density(const ConstVectorRef& mu, const ConstVectorRef& variance,
                                  const ConstVectorRef& x);
// The standard wrapped normal at the origin, in closed form with r = distance(o, x):
//   -Q/2 log(2 pi) - r^2 / 2 - (Q - 1) log(sinh r / r).
double standard_wrapped_normal_log_density(const ConstVectorRef& x);
// Adjoints of the two densities: ADD scale * the gradients (ambient, exact along tangent
// directions at mu and x, the only ones the hyperboloid has) to d_mu, d_variance and d_x.
void wrapped_normal_log_density_backward(const ConstVectorRef& mu, const ConstVectorRef& variance,
                                         const ConstVectorRef& x, double scale, VectorRef d_mu,
                                         VectorRef d_variance, VectorRef d_x);
void standard_wrapped_normal_log_density_backward(const ConstVectorRef& x, double scale, VectorRef d_x);

// The wrapped normal over row blocks, one distribution per row (row n: location Mu.row(n), tangent
// sample V.row(n), variances Variance.row(n), point X.row(n)): the Bayesian models call these for
// every row and sample at every step. Row by row with scalar loops, writing into the caller's
// blocks and a fixed scratch per call (nothing allocated per row), so a row's result does not
// depend on its position in the block; the per-point functions above are these on one row.
// X.row(n) = wrapped_normal_sample(Mu.row(n), V.row(n)).
void wrapped_normal_sample_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& V, MatrixRef X);
// ADDS each row's dL/dmu and dL/dv~ (wrapped_normal_sample_backward) to d_Mu and d_V.
void wrapped_normal_sample_backward_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& V,
                                         const ConstMatrixRef& dX, MatrixRef d_Mu, MatrixRef d_V);
// log_density[n] = wrapped_normal_log_density(Mu.row(n), Variance.row(n), X.row(n)).
void wrapped_normal_log_density_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& Variance,
                                     const ConstMatrixRef& X, VectorRef log_density);
// log_density[n] = standard_wrapped_normal_log_density(X.row(n)).
void standard_wrapped_normal_log_density_rows(const ConstMatrixRef& X, VectorRef log_density);
// ADD scale * each row's gradients, as the per-point adjoints do.
void wrapped_normal_log_density_backward_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& Variance,
                                              const ConstMatrixRef& X, double scale, MatrixRef d_Mu,
                                              MatrixRef d_Variance, MatrixRef d_X);
void standard_wrapped_normal_log_density_backward_rows(const ConstMatrixRef& X, double scale, MatrixRef d_X);

// The slope of log p, p the standard wrapped normal at the origin, at mu along the transported
// tangent PT_{o -> mu}(0, v~) (the first-order term in v~ of log p at the wrapped normal's sample,
// which the exact KL's control variate removes; docs/math/lorentz.md):
//   slope[n] = -F(r) mu~.v~,  F(r) = (1 + (Q - 1) s'(r) / (r s(r))) / s(r),  s(r) = sinh r / r,
// r = d(o, mu) = asinh |mu~|. A function of mu~ alone: its gradient's time-like part is 0.
void standard_wrapped_normal_log_density_slope_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& V,
                                                    VectorRef slope);
// ADDS scale * its gradients to d_Mu and d_V.
void standard_wrapped_normal_log_density_slope_backward_rows(const ConstMatrixRef& Mu,
                                                             const ConstMatrixRef& V, double scale,
                                                             MatrixRef d_Mu, MatrixRef d_V);

}  // namespace gplvm::lorentz
