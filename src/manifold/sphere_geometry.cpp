#include "gplvm/manifold/sphere_geometry.hpp"

#include <Eigen/QR>
#include <cmath>
#include <numbers>

namespace gplvm::sphere {

double sinc(double t) {
  // Taylor series below 1e-4, where 1 - t^2/6 + t^4/120 is exact to rounding.
  if (std::abs(t) < 1e-4) return 1.0 - t * t / 6.0 + t * t * t * t / 120.0;
  return std::sin(t) / t;
}

double sinc_slope_over_t(double t) {
  // t cos t - sin t cancels to t^3 / 3 near 0, losing digits as eps / t^2; below 0.1 the series
  // -1/3 + t^2/30 - t^4/840 + t^6/45360 is exact to rounding (the next term is t^8 / 3991680).
  const double t2 = t * t;
  if (std::abs(t) < 0.1) return -1.0 / 3.0 + t2 * (1.0 / 30.0 + t2 * (-1.0 / 840.0 + t2 / 45360.0));
  return (t * std::cos(t) - std::sin(t)) / (t2 * t);
}

double angle(const ConstVectorRef& p, const ConstVectorRef& q) {
  // arccos <p, q> loses half the digits near 0 and pi; the chord and the sum do not.
  return 2.0 * std::atan2((p - q).norm(), (p + q).norm());
}

Vector exp_map(const ConstVectorRef& p, const ConstVectorRef& v) {
  const double t = v.norm();
  Vector q = std::cos(t) * p + sinc(t) * v;
  return q / q.norm();  // removes rounding drift off the sphere; no change in exact arithmetic
}

Matrix orthogonal_complement(const ConstMatrixRef& normals) {
  const Index m = normals.rows(), r = normals.cols();
  const Eigen::HouseholderQR<Matrix> qr(normals);
  const Matrix q = qr.householderQ() * Matrix::Identity(m, m);
  return q.rightCols(m - r);
}

Vector log_map(const ConstVectorRef& p, const ConstVectorRef& q) {
  const double c = p.dot(q);
  Vector w = q - c * p;
  const double s = w.norm();
  const double t = std::atan2(s, c);
  if (s > 0) return (t / s) * w;
  if (c > 0) return Vector::Zero(p.size());
  // q = -p: every direction is a minimising geodesic; a deterministic one of norm pi.
  return std::numbers::pi * orthogonal_complement(p).col(0);
}

Vector parallel_transport(const ConstVectorRef& p, const ConstVectorRef& q, const ConstVectorRef& v) {
  const Vector sum = p + q;
  const double one_plus_cos = 0.5 * sum.squaredNorm();  // 1 + <p, q>, every digit near the antipode
  if (!(one_plus_cos > 0.0)) return v;
  return v - (q.dot(v) / one_plus_cos) * sum;
}

namespace {

// <A.row(i), B.row(j)> as a scalar loop over the coordinates: the same operations for a row at any
// position of any block (Eigen's reductions would vectorise differently with the row's alignment,
// and results must not depend on how rows are distributed).
double dot_of_rows(const ConstMatrixRef& A, Index i, const ConstMatrixRef& B, Index j) {
  double sum = 0.0;
  for (Index k = 0; k < A.cols(); ++k) sum += A(i, k) * B(j, k);
  return sum;
}

}  // namespace

Index first_row_off_sphere(const ConstMatrixRef& X, double tolerance) {
  for (Index n = 0; n < X.rows(); ++n) {
    const double norm = X.row(n).norm();
    // NaN fails the comparison; an overflowing norm is inf.
    if (!(std::isfinite(norm) && std::abs(norm - 1.0) <= tolerance)) return n;
  }
  return -1;
}

Matrix pairwise_angles(const ConstMatrixRef& A, const ConstMatrixRef& B) {
  Matrix D(A.rows(), B.rows());
  for (Index j = 0; j < B.rows(); ++j)
    for (Index i = 0; i < A.rows(); ++i) D(i, j) = angle(A.row(i).transpose(), B.row(j).transpose());
  return D;
}

Vector squared_norm_rows(const ConstMatrixRef& V) {
  Vector out(V.rows());
  for (Index n = 0; n < V.rows(); ++n) out[n] = dot_of_rows(V, n, V, n);
  return out;
}

void exp_at_origin_rows(const ConstMatrixRef& V, MatrixRef X) {
  for (Index n = 0; n < V.rows(); ++n) {
    const double r = std::sqrt(dot_of_rows(V, n, V, n)), s = sinc(r);
    X(n, 0) = std::cos(r);
    for (Index k = 0; k < V.cols(); ++k) X(n, k + 1) = s * V(n, k);
  }
}

void exp_at_origin_backward_rows(const ConstMatrixRef& V, const ConstMatrixRef& dX, MatrixRef d_V) {
  // x_0 = cos r: d/dv = -sin(r) v / r = -sinc(r) v.
  // x~ = sinc(r) v: its Jacobian sinc(r) I + sinc'(r) / r v v^T (symmetric).
  for (Index n = 0; n < V.rows(); ++n) {
    const double r = std::sqrt(dot_of_rows(V, n, V, n)), s = sinc(r);
    double v_dot_g = 0.0;
    for (Index k = 0; k < V.cols(); ++k) v_dot_g += V(n, k) * dX(n, k + 1);
    const double along_v = sinc_slope_over_t(r) * v_dot_g - dX(n, 0) * s;
    for (Index k = 0; k < V.cols(); ++k) d_V(n, k) += s * dX(n, k + 1) + along_v * V(n, k);
  }
}

void project_tangent_rows(const ConstMatrixRef& X, MatrixRef G) {
  for (Index n = 0; n < X.rows(); ++n) {
    const double along = dot_of_rows(G, n, X, n);
    for (Index k = 0; k < X.cols(); ++k) G(n, k) -= along * X(n, k);
  }
}

void retract_rows(MatrixRef X, const ConstMatrixRef& step) {
  Matrix tangent = step;
  const Index a = X.cols();
  for (Index n = 0; n < X.rows(); ++n) {
    const double along = dot_of_rows(tangent, n, X, n);
    for (Index k = 0; k < a; ++k) tangent(n, k) -= along * X(n, k);
    const double t = std::sqrt(dot_of_rows(tangent, n, tangent, n)), c = std::cos(t), s = sinc(t);
    double length = 0.0;
    for (Index k = 0; k < a; ++k) {
      X(n, k) = c * X(n, k) + s * tangent(n, k);
      length += X(n, k) * X(n, k);
    }
    length = std::sqrt(length);
    for (Index k = 0; k < a; ++k) X(n, k) /= length;  // removes rounding drift off the sphere
  }
}

void parallel_transport_rows(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) {
  const Index a = V.cols();
  for (Index n = 0; n < V.rows(); ++n) {
    double one_plus_cos = 0.0;  // |from + to|^2 / 2
    for (Index k = 0; k < a; ++k) one_plus_cos += (from(n, k) + to(n, k)) * (from(n, k) + to(n, k));
    one_plus_cos *= 0.5;
    if (!(one_plus_cos > 0.0)) continue;  // the antipode: v as it is
    const double coefficient = dot_of_rows(to, n, V, n) / one_plus_cos;
    for (Index k = 0; k < a; ++k) V(n, k) -= coefficient * (from(n, k) + to(n, k));
  }
}

}  // namespace gplvm::sphere
