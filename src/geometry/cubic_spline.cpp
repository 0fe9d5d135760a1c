#include "gplvm/geometry/cubic_spline.hpp"

#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// The monomials' derivative of order `derivative` at t: (1, t, t^2, t^3)^(derivative).
Eigen::RowVector4d monomials(double t, int derivative) {
  switch (derivative) {
    case 0:
      return {1.0, t, t * t, t * t * t};
    case 1:
      return {0.0, 1.0, 2.0 * t, 3.0 * t * t};
    case 2:
      return {0.0, 0.0, 2.0, 6.0 * t};
    default:
      throw Error("a spline has derivatives of order 0, 1 and 2 only");
  }
}

// The constraint rows on the 4L coefficients: both ends zero, then C0, C1 and C2 continuity at each
// interior knot (left segment minus right segment).
Matrix constraint_matrix(Index segments) {
  Matrix A = Matrix::Zero(3 * segments - 1, 4 * segments);
  A.block<1, 4>(0, 0) = monomials(0.0, 0);
  A.block<1, 4>(1, 4 * (segments - 1)) = monomials(1.0, 0);
  Index row = 2;
  for (Index s = 1; s < segments; ++s) {
    const double knot = static_cast<double>(s) / static_cast<double>(segments);
    for (int order = 0; order <= 2; ++order, ++row) {
      A.block<1, 4>(row, 4 * (s - 1)) = monomials(knot, order);
      A.block<1, 4>(row, 4 * s) = -monomials(knot, order);
    }
  }
  return A;
}

}  // namespace

CubicSplineBasis::CubicSplineBasis(Index segments) : segments_(segments) {
  require(segments >= 1, "a spline needs at least one segment", {"", "segments", std::to_string(segments)});
  const Eigen::JacobiSVD<Matrix> svd(constraint_matrix(segments), Eigen::ComputeFullV);
  // The constraints are independent (rank 3L - 1), so the null space is the last L + 1 columns of V.
  basis_ = svd.matrixV().rightCols(segments + 1);
}

Matrix CubicSplineBasis::at(const Vector& t, int derivative) const {
  Matrix out(t.size(), num_free());
  for (Index j = 0; j < t.size(); ++j) {
    const auto s = std::clamp<Index>(static_cast<Index>(std::floor(t[j] * static_cast<double>(segments_))), 0,
                                     segments_ - 1);
    out.row(j) = monomials(t[j], derivative) * basis_.middleRows(4 * s, 4);
  }
  return out;
}

Matrix SplineCurve::evaluate(const CubicSplineBasis& basis, const Vector& t, int derivative) const {
  Matrix out = basis.at(t, derivative) * weights;
  if (derivative == 0) {
    for (Index j = 0; j < t.size(); ++j) out.row(j) += ((1.0 - t[j]) * start + t[j] * end).transpose();
  } else if (derivative == 1) {
    out.rowwise() += (end - start).transpose();
  }
  return out;
}

Vector uniform_parameters(Index n) {
  require(n >= 2, "a curve needs at least two nodes", {"", "nodes", std::to_string(n)});
  return Vector::LinSpaced(n, 0.0, 1.0);
}

Matrix fitted_weights(const CubicSplineBasis& basis, const Vector& t, const ConstMatrixRef& targets,
                      const Vector& start, const Vector& end) {
  Matrix residual = targets;
  for (Index j = 0; j < t.size(); ++j) residual.row(j) -= ((1.0 - t[j]) * start + t[j] * end).transpose();
  return basis.at(t).colPivHouseholderQr().solve(residual);
}

Matrix resampled_polyline(const Matrix& points, const Vector& arc, const Vector& t) {
  Matrix out(t.size(), points.cols());
  const double total = arc[arc.size() - 1];
  for (Index j = 0; j < t.size(); ++j) {
    if (!(total > 0.0) || points.rows() < 2) {
      out.row(j) = (1.0 - t[j]) * points.row(0) + t[j] * points.row(points.rows() - 1);
      continue;
    }
    const double s = t[j] * total;
    // The segment [arc_i, arc_{i+1}] that holds s.
    const auto upper = std::upper_bound(arc.data(), arc.data() + arc.size(), s);
    const Index i = std::clamp<Index>(static_cast<Index>(upper - arc.data()) - 1, 0, points.rows() - 2);
    const double width = arc[i + 1] - arc[i];
    const double u = width > 0.0 ? std::clamp((s - arc[i]) / width, 0.0, 1.0) : 0.0;
    out.row(j) = (1.0 - u) * points.row(i) + u * points.row(i + 1);
  }
  return out;
}

}  // namespace gplvm
