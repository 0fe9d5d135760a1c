#include "gplvm/manifold/manifold.hpp"

#include <cstdio>

#include "gplvm/core/error.hpp"

namespace gplvm {

double Manifold::inner(const ConstVectorRef& p, const ConstVectorRef& u, const ConstVectorRef& v) const {
  return u.dot(lower_index(p, v));
}

double Manifold::ambient_distance(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return (canonical(p) - canonical(q)).norm();
}

double Manifold::norm(const ConstVectorRef& p, const ConstVectorRef& v) const {
  return std::sqrt(std::max(0.0, inner(p, v, v)));
}

Vector Manifold::to_coordinates(const ConstVectorRef& p, const ConstMatrixRef& basis,
                                const ConstVectorRef& v) const {
  return basis.transpose() * lower_index(p, v);
}

Vector Manifold::from_coordinates(const ConstMatrixRef& basis, const ConstVectorRef& coordinates) const {
  return basis * coordinates;
}

Index Manifold::first_row_outside(const ConstMatrixRef& X, double tolerance) const {
  if (X.cols() != ambient_dim()) return X.rows() > 0 ? 0 : -1;
  for (Index i = 0; i < X.rows(); ++i)
    if (!off_manifold_reason(X.row(i).transpose(), tolerance).empty()) return i;
  return -1;
}

Matrix Manifold::distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const {
  Matrix D(A.rows(), B.rows());
  for (Index j = 0; j < B.rows(); ++j)
    for (Index i = 0; i < A.rows(); ++i) D(i, j) = distance(A.row(i).transpose(), B.row(j).transpose());
  return D;
}

void Manifold::riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const {
  for (Index n = 0; n < X.rows(); ++n)
    G.row(n) = riemannian_gradient_at(X.row(n).transpose(), G.row(n).transpose()).transpose();
}

void Manifold::retract(MatrixRef X, const ConstMatrixRef& step) const {
  for (Index n = 0; n < X.rows(); ++n)
    X.row(n) = canonical(exp(X.row(n).transpose(), step.row(n).transpose())).transpose();
}

Vector Manifold::tangent_squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const {
  Vector out(X.rows());
  for (Index n = 0; n < X.rows(); ++n) {
    const Vector v = V.row(n).transpose();
    out[n] = inner(X.row(n).transpose(), v, v);
  }
  return out;
}

void Manifold::transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const {
  for (Index n = 0; n < V.rows(); ++n)
    V.row(n) =
        parallel_transport(from.row(n).transpose(), to.row(n).transpose(), V.row(n).transpose()).transpose();
}

Vector Manifold::chart_gradient_norms(const ConstMatrixRef& X, const ConstMatrixRef& G) const {
  Matrix riemannian = G;
  riemannian_gradient(X, riemannian);
  return tangent_squared_norms(X, riemannian).cwiseSqrt();
}

FrechetMean Manifold::frechet_mean(const DataRef& points, const FrechetMeanOptions& options) const {
  require(points.rows() > 0, "the Fréchet mean needs at least one point", {"", "points", "0"});
  FrechetMean mean{initial_mean(points), 0, 0.0};
  for (;; ++mean.iterations) {
    Vector step = Vector::Zero(ambient_dim());
    for (Index i = 0; i < points.rows(); ++i) step += log(mean.point, points.row(i).transpose());
    step /= static_cast<double>(points.rows());
    mean.gradient_norm = norm(mean.point, step);
    if (mean.gradient_norm <= options.tolerance) return mean;
    if (mean.iterations >= options.max_iterations) break;
    mean.point = canonical(exp(mean.point, step));
  }
  char text[160];
  std::snprintf(text, sizeof text, "|mean Log| = %.3g > tolerance %.3g after %d iterations",
                mean.gradient_norm, options.tolerance, options.max_iterations);
  throw NumericalError("the Fréchet mean on " + name() + " did not converge (data too spread out?)",
                       {"", "frechet_mean", text});
}

OffManifoldRow first_off_manifold_row(const Manifold& manifold, const DataRef& rows, double tolerance) {
  for (Index i = 0; i < rows.rows(); ++i) {
    std::string reason = manifold.off_manifold_reason(rows.row(i).transpose(), tolerance);
    if (!reason.empty()) return {i, std::move(reason)};
  }
  return {};
}

}  // namespace gplvm
