#pragma once
// Cubic-spline curves between two fixed end points (docs/math/geometry.md, "Spline geodesics"):
//   C(t) = (1 - t) p0 + t p1 + C^(t),   t in [0, 1],
// with C^ piecewise cubic on L equal segments, each written in the global t as
// c0 + c1 t + c2 t^2 + c3 t^3, constrained by C^(0) = C^(1) = 0 and continuity of C^, C^' and C^''
// at the L - 1 interior knots (d^2/dt^2 of the cubic is 2 c2 + 6 c3 t). The 4L coefficients under
// those 3L - 1 constraints leave L + 1 free parameters per latent coordinate: the null space of the
// constraint matrix, found by SVD, is an orthonormal basis B (4L x (L + 1)) of them. A curve is then
// its end points and a weight matrix W ((L + 1) x Q); W = 0 is the straight line.
#include "gplvm/core/types.hpp"

namespace gplvm {

class CubicSplineBasis {
 public:
  explicit CubicSplineBasis(Index segments);  // InputError unless segments >= 1

  Index segments() const noexcept { return segments_; }
  Index num_free() const noexcept { return basis_.cols(); }  // L + 1
  const Matrix& coefficients() const noexcept { return basis_; }

  // Rows: the free parameters' contributions to C^ (derivative 0), C^' (1) or C^'' (2) at each t
  // (t.size() x (L + 1)), so that C^(t_j) = row j times W.
  Matrix at(const Vector& t, int derivative = 0) const;

 private:
  Index segments_;
  Matrix basis_;
};

// A spline curve from p0 to p1 with weights W ((L + 1) x Q).
struct SplineCurve {
  Vector start, end;
  Matrix weights;

  // Points (derivative 0), velocities (1) or accelerations (2) at each t (t.size() x Q).
  Matrix evaluate(const CubicSplineBasis& basis, const Vector& t, int derivative = 0) const;
};

// n equally spaced parameters 0, 1 / (n - 1), ..., 1 (n >= 2).
Vector uniform_parameters(Index n);

// The weights whose curve from p0 to p1 is nearest, in least squares, to `targets` (points at the
// parameters t, rows t.size() x Q): how a polyline (a graph geodesic) becomes a spline.
Matrix fitted_weights(const CubicSplineBasis& basis, const Vector& t, const ConstMatrixRef& targets,
                      const Vector& start, const Vector& end);

// The points of a polyline with cumulative lengths `arc` at the given shares t of its total length.
Matrix resampled_polyline(const Matrix& points, const Vector& arc, const Vector& t);

}  // namespace gplvm
