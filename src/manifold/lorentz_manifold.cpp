#include "gplvm/manifold/lorentz_manifold.hpp"

#include <cmath>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"

namespace gplvm {

LorentzManifold::LorentzManifold(Index intrinsic_dim) : dim_(intrinsic_dim) {
  require(intrinsic_dim >= 1, "the hyperboloid H^Q needs Q >= 1",
          {"", kLorentzSpace, std::to_string(intrinsic_dim)});
}

std::string LorentzManifold::off_manifold_reason(const ConstVectorRef& q, double tolerance) const {
  if (q.size() != ambient_dim()) return "a point of H^Q has Q + 1 coordinates";
  if (lorentz::first_row_off_sheet(q.transpose(), tolerance) < 0) return {};
  if (!q.allFinite()) return "a coordinate is not finite";
  if (!(q[0] > 0.0)) return "the time-like coordinate is not positive (the lower sheet)";
  char text[160];
  std::snprintf(text, sizeof text, "<x, x>_L = %.17g differs from -1 by more than tolerance %.3g x x_0^2",
                lorentz::minkowski_dot(q, q), tolerance);
  return text;
}

Index LorentzManifold::first_row_outside(const ConstMatrixRef& X, double tolerance) const {
  if (X.cols() != ambient_dim()) return X.rows() > 0 ? 0 : -1;
  return lorentz::first_row_off_sheet(X, tolerance);
}

Vector LorentzManifold::project(const ConstVectorRef& y) const {
  Vector x = y;
  lorentz::reproject(x);
  if (!x.allFinite())
    throw NumericalError("a non-finite vector has no nearest point on the hyperboloid",
                         {"", "|y|", std::to_string(y.norm())});
  return x;
}

Vector LorentzManifold::exp(const ConstVectorRef& p, const ConstVectorRef& v) const {
  return lorentz::exp_map(p, v);
}

Vector LorentzManifold::log(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return lorentz::log_map(p, q);
}

double LorentzManifold::distance(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return lorentz::distance(p, q);
}

Matrix LorentzManifold::distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const {
  return lorentz::pairwise_distances(A, B);
}

Vector LorentzManifold::parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                                           const ConstVectorRef& v) const {
  return lorentz::parallel_transport(from, to, v);
}

Matrix LorentzManifold::tangent_basis(const ConstVectorRef& p) const {
  Matrix basis(dim_ + 1, dim_);
  for (Index q = 0; q < dim_; ++q) basis.col(q) = lorentz::transport_from_origin(p, Vector::Unit(dim_, q));
  return basis;
}

Vector LorentzManifold::riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const {
  return lorentz::project_tangent(p, lorentz::flip_time(g));
}

// The optimiser's maps run over whole row blocks (every local point, every step), without a
// temporary per row.
void LorentzManifold::riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const {
  lorentz::riemannian_gradient_rows(X, G);
}

void LorentzManifold::retract(MatrixRef X, const ConstMatrixRef& step) const {
  lorentz::retract_rows(X, step);
}

Vector LorentzManifold::tangent_squared_norms(const ConstMatrixRef&, const ConstMatrixRef& V) const {
  return lorentz::minkowski_dot_rows(V, V);
}

void LorentzManifold::transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const {
  lorentz::parallel_transport_rows(from, to, V);
}

Vector LorentzManifold::chart_gradient_norms(const ConstMatrixRef& X, const ConstMatrixRef& G) const {
  Vector norms(X.rows());
  for (Index n = 0; n < X.rows(); ++n)
    norms[n] = lorentz::chart_gradient(X.row(n).transpose(), G.row(n).transpose()).norm();
  return norms;
}

Vector LorentzManifold::lower_index(const ConstVectorRef&, const ConstVectorRef& v) const {
  return lorentz::flip_time(v);
}

Vector LorentzManifold::initial_mean(const DataRef& points) const {
  const Vector sum = points.colwise().sum().transpose();
  // A sum of points of the upper sheet is time-like (<m, m>_L < 0): its scaling is on the sheet.
  return sum / std::sqrt(-lorentz::minkowski_dot(sum, sum));
}

}  // namespace gplvm
