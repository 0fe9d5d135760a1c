#include "gplvm/manifold/kendall_shape_space.hpp"

#include <Eigen/Eigenvalues>
#include <complex>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/sphere_geometry.hpp"

namespace gplvm {
namespace {

using Complex = std::complex<double>;
using ComplexVector = Eigen::VectorXcd;

ComplexVector to_complex(const ConstVectorRef& q) {
  ComplexVector z(q.size() / 2);
  for (Index j = 0; j < z.size(); ++j) z[j] = Complex(q[2 * j], q[2 * j + 1]);
  return z;
}

Vector to_real(const ComplexVector& z) {
  Vector q(2 * z.size());
  for (Index j = 0; j < z.size(); ++j) {
    q[2 * j] = z[j].real();
    q[2 * j + 1] = z[j].imag();
  }
  return q;
}

ComplexVector centred(const ConstVectorRef& q) {
  ComplexVector z = to_complex(q);
  z.array() -= z.mean();
  return z;
}

// <p, w> = sum p_j conj(w_j).
Complex hermitian_product(const ComplexVector& p, const ComplexVector& w) {
  return (p.array() * w.array().conjugate()).sum();
}

}  // namespace

KendallShapeSpace::KendallShapeSpace(Index landmarks) : k_(landmarks) {
  require(landmarks >= 3, "Kendall shapes need at least 3 landmarks",
          {"", kKendallSpace, std::to_string(landmarks)});
}

std::unique_ptr<Manifold> KendallShapeSpace::for_width(Index data_dim, const std::string& key) {
  require(data_dim >= 6 && data_dim % 2 == 0, "Kendall shapes need k >= 3 landmarks of 2 coordinates",
          {"", key, std::to_string(data_dim) + " numbers per point"});
  return std::make_unique<KendallShapeSpace>(data_dim / 2);
}

std::string KendallShapeSpace::off_manifold_reason(const ConstVectorRef& q, double tolerance) const {
  const double size = centred(q).norm(), scale = std::max(1.0, q.cwiseAbs().maxCoeff());
  if (size > tolerance * scale) return {};
  char text[160];
  std::snprintf(text, sizeof text,
                "degenerate shape: the landmarks coincide (centred size %.3g <= tolerance %.3g x %.3g)", size,
                tolerance, scale);
  return text;
}

Vector KendallShapeSpace::canonical(const ConstVectorRef& q) const {
  const ComplexVector z = centred(q);
  return to_real(z / z.norm());
}

Vector KendallShapeSpace::align(const ConstVectorRef& p, const ConstVectorRef& q) const {
  const ComplexVector mu = to_complex(canonical(p)), w = to_complex(canonical(q));
  const Complex c = hermitian_product(mu, w);
  // c = 0: every rotation is equally far; keep w as it is.
  const Complex phase = std::abs(c) > 0 ? c / std::abs(c) : Complex(1.0);
  return to_real(phase * w);
}

Vector KendallShapeSpace::exp(const ConstVectorRef& p, const ConstVectorRef& v) const {
  return sphere::exp_map(canonical(p), v);
}

Vector KendallShapeSpace::log(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return sphere::log_map(canonical(p), align(p, q));
}

double KendallShapeSpace::distance(const ConstVectorRef& p, const ConstVectorRef& q) const {
  // After alignment <p, w*> = |c|: the sphere angle between p and w* is arccos |c|.
  return sphere::angle(canonical(p), align(p, q));
}

Vector KendallShapeSpace::project(const ConstVectorRef& y) const {
  const double size = centred(y).norm();
  if (!(size > 0.0) || !std::isfinite(size))
    throw NumericalError("a configuration whose landmarks coincide has no shape",
                         {"", "centred size", std::to_string(size)});
  return canonical(y);
}

double KendallShapeSpace::ambient_distance(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return (canonical(p) - align(p, q)).norm();
}

Matrix KendallShapeSpace::vertical_directions(const Vector& mu) const {
  Matrix normals = Matrix::Zero(2 * k_, 4);
  for (Index j = 0; j < k_; ++j) {
    normals(2 * j, 0) = normals(2 * j + 1, 1) = 1.0 / std::sqrt(static_cast<double>(k_));
    normals(2 * j, 3) = -mu[2 * j + 1];
    normals(2 * j + 1, 3) = mu[2 * j];
  }
  normals.col(2) = mu;
  return normals;
}

Matrix KendallShapeSpace::tangent_basis(const ConstVectorRef& p) const {
  return sphere::orthogonal_complement(vertical_directions(canonical(p)));
}

Vector KendallShapeSpace::riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const {
  const Matrix normals = vertical_directions(canonical(p));
  return g - normals * (normals.transpose() * g);
}

Vector KendallShapeSpace::parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                                             const ConstVectorRef& v) const {
  const Vector p = canonical(from), w = canonical(to);
  const ComplexVector p_c = to_complex(p), w_c = to_complex(w);
  const Complex c = hermitian_product(p_c, w_c);
  const Complex phase = std::abs(c) > 0 ? c / std::abs(c) : Complex(1.0);
  const Vector aligned = to_real(phase * w_c);  // align(from, to)
  // The horizontal geodesic from p to the aligned representative: cos(t) p + sin(t) u, t in [0, theta].
  const Vector log_pw = sphere::log_map(p, aligned);
  const double theta = log_pw.norm();
  Vector moved = v;
  if (theta > 0.0) {
    const Vector u = log_pw / theta;
    const Vector iu = to_real(Complex(0.0, 1.0) * to_complex(u));
    const double along = v.dot(u), along_rotation = v.dot(iu);
    const Vector velocity = -std::sin(theta) * p + std::cos(theta) * u;  // gamma'(theta)
    const Vector i_velocity = to_real(Complex(0.0, 1.0) * to_complex(velocity));
    moved += (along * velocity - along * u) + (along_rotation * i_velocity - along_rotation * iu);
  }
  // From the aligned representative back to the pre-shape of `to` (a rotation, an isometry that
  // keeps vectors horizontal).
  return to_real(std::conj(phase) * to_complex(moved));
}

Vector KendallShapeSpace::initial_mean(const DataRef& points) const {
  Eigen::MatrixXcd scatter = Eigen::MatrixXcd::Zero(k_, k_);
  for (Index i = 0; i < points.rows(); ++i) {
    const ComplexVector z = to_complex(canonical(points.row(i).transpose()));
    scatter += z * z.adjoint();
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> eigen(scatter);
  const ComplexVector leading = eigen.eigenvectors().col(k_ - 1);
  return canonical(to_real(leading));
}

}  // namespace gplvm
