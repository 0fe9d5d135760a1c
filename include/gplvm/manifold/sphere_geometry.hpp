#pragma once
// The unit sphere S^n in R^{n+1} with the round metric, as free functions: the one place its
// formulas live, used by the sphere output manifold (sphere_manifold.hpp), Kendall's pre-shape
// sphere and the sphere latent space (sphere_latent_space.hpp). docs/math/manifolds.md and
// docs/math/sphere_latents.md derive them.
//   Exp_p(v) = cos|v| p + sin|v| v/|v|,  Log_p(q) = theta (q - <p,q> p)/|q - <p,q> p|,
//   d(p, q) = theta = arccos <p, q>, computed as 2 atan2(|p - q|, |p + q|) (accurate at every angle).
// Tangent vectors at p are the v with <p, v> = 0; at the north pole e_0 = (1, 0, ..., 0) they are
// (0, v~), so a tangent vector there is also given by its last n coordinates.
// Matrix versions work row by row (one point or tangent vector per row).
#include "gplvm/core/types.hpp"

namespace gplvm::sphere {

// sin(t) / t, finite at 0.
double sinc(double t);
// (t cos t - sin t) / t^3 = (d/dt sinc(t)) / t, finite at 0 (-1/3 there).
double sinc_slope_over_t(double t);

double angle(const ConstVectorRef& p, const ConstVectorRef& q);
// Exp_p(v), normalised (no drift off the sphere from rounding).
Vector exp_map(const ConstVectorRef& p, const ConstVectorRef& v);
// Log at the antipode returns a vector of norm pi along the first tangent basis vector.
Vector log_map(const ConstVectorRef& p, const ConstVectorRef& q);
// Parallel transport of a tangent vector v at p to q along their minimising geodesic:
//   v - <q, v> / (1 + <p, q>) (p + q),  1 + <p, q> = |p + q|^2 / 2;
// v unchanged at the antipode, where no geodesic is minimising (every tangent space there is T_p).
Vector parallel_transport(const ConstVectorRef& p, const ConstVectorRef& q, const ConstVectorRef& v);
// Columns 'normals.cols()' .. of the full Q of a Householder QR of `normals` (orthonormal columns):
// an orthonormal basis of their orthogonal complement.
Matrix orthogonal_complement(const ConstMatrixRef& normals);

// The first row that is not a unit vector within `tolerance` (| |x| - 1 | <= tolerance; a row of
// non-finite values, or one whose norm overflows, never is), or -1 when every row is one.
Index first_row_off_sphere(const ConstMatrixRef& X, double tolerance);
// D(i, j) = angle(A.row(i), B.row(j)).
Matrix pairwise_angles(const ConstMatrixRef& A, const ConstMatrixRef& B);

// Row blocks, row by row with scalar loops: a row's result does not depend on its position in the
// block (so training gives the same bits at any rank count).
// out[n] = |V.row(n)|^2.
Vector squared_norm_rows(const ConstMatrixRef& V);
// X.row(n) = Exp_{e_0}((0, V.row(n))) = (cos r, sinc(r) v~), r = |v~|: V is n x Q, X n x (Q + 1).
void exp_at_origin_rows(const ConstMatrixRef& V, MatrixRef X);
// Its adjoint: given dL/dX, ADDS dL/dV.
void exp_at_origin_backward_rows(const ConstMatrixRef& V, const ConstMatrixRef& dX, MatrixRef d_V);
// In place, each row: g <- g - <g, x> x, the tangent projection (the Riemannian gradient of an
// ambient gradient g at x).
void project_tangent_rows(const ConstMatrixRef& X, MatrixRef G);
// In place, each row: x <- Exp_x(step - <step, x> x), normalised.
void retract_rows(MatrixRef X, const ConstMatrixRef& step);
// In place, each row: v <- parallel_transport(from, to, v).
void parallel_transport_rows(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V);

}  // namespace gplvm::sphere
