#include "gplvm/model/sphere_linear_basepoint.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"

namespace gplvm {
namespace {

// Below these radii the closed forms cancel catastrophically; their Taylor series (to r^4, error
// below r^6 ~ 1e-14) take over.
constexpr double kSeriesRadius = 0.03;

struct RadialFactors {
  double a;   // (cos r - 1) / r^2
  double b;   // sin r / r
  double ap;  // a'(r) / r
  double c;   // b'(r) / r = (r cos r - sin r) / r^3
};

RadialFactors radial_factors(double r) {
  const double r2 = r * r;
  if (r < kSeriesRadius)
    return {-0.5 + r2 / 24 - r2 * r2 / 720, 1 - r2 / 6 + r2 * r2 / 120, 1.0 / 12 - r2 / 180 + r2 * r2 / 6720,
            -1.0 / 3 + r2 / 30 - r2 * r2 / 840};
  const double s = std::sin(r), co = std::cos(r);
  return {(co - 1) / r2, s / r, (2 - 2 * co - r * s) / (r2 * r2), (r * co - s) / (r2 * r)};
}

}  // namespace

namespace sphere {

Matrix log_base_derivative(const ConstVectorRef& m, const ConstVectorRef& p) {
  const double theta = angle(m, p), cos_theta = std::cos(theta);
  const double h = 1.0 / sinc(theta);
  const double t2 = theta * theta;
  const double q = theta < kSeriesRadius
                       ? 1.0 / 3 + 2 * t2 / 15 + 2 * t2 * t2 / 63
                       : (std::sin(theta) - theta * cos_theta) / std::pow(std::sin(theta), 3);
  const Index n = m.size();
  Matrix J = -h * cos_theta * Matrix::Identity(n, n);
  J.noalias() -= q * (p - cos_theta * m) * p.transpose();
  J.noalias() -= h * m * p.transpose();
  return J;
}

}  // namespace sphere

SphereLinearBasepoint::SphereLinearBasepoint(Vector mu0, Matrix basis, Matrix map)
    : mu0_(std::move(mu0)), basis_(std::move(basis)), map_(std::move(map)) {
  require(basis_.rows() == mu0_.size() && basis_.cols() == mu0_.size() - 1 && map_.rows() == basis_.cols(),
          "linear basepoint: the map must be intrinsic_dim x Q and the basis (n + 1) x n",
          {"", "model.basepoint", std::to_string(map_.rows()) + " x " + std::to_string(map_.cols())});
}

Vector SphereLinearBasepoint::basepoint(const ConstVectorRef& x) const {
  return sphere::exp_map(mu0_, basis_ * (map_ * x));
}

Matrix SphereLinearBasepoint::frame(const ConstVectorRef& x) const {
  const Vector u = map_ * x;
  const RadialFactors f = radial_factors(u.norm());
  return basis_ + (f.a * (basis_ * u) - f.b * mu0_) * u.transpose();
}

Vector SphereLinearBasepoint::coordinates(const ConstVectorRef& x, const ConstVectorRef& p,
                                          Matrix* d_du) const {
  const Vector u = map_ * x, w = basis_ * u;
  const RadialFactors f = radial_factors(u.norm());
  const Vector m = sphere::exp_map(mu0_, w);
  const Vector log = sphere::log_map(m, p);
  const Vector log_b = basis_.transpose() * log;
  const double s = u.dot(log_b), t = mu0_.dot(log);
  // g = E^T Log = B0^T Log + a u (u . B0^T Log) - b u (mu0 . Log)
  Vector g = log_b + (f.a * s - f.b * t) * u;
  if (d_du == nullptr) return g;
  // dm/du = b B0 + c w u^T - b mu0 u^T (dExp at mu0), then dLog/du through D_m Log_m(p).
  const Matrix dm = f.b * basis_ + (f.c * w - f.b * mu0_) * u.transpose();
  const Matrix dlog = sphere::log_base_derivative(m, p) * dm;  // (n+1) x n
  const Matrix dlog_b = basis_.transpose() * dlog;
  *d_du = dlog_b;
  d_du->diagonal().array() += f.a * s - f.b * t;
  // the r-dependence of a and b, and the u that multiplies them
  d_du->noalias() += (f.ap * s - f.c * t) * u * u.transpose();
  const Vector ds = log_b + dlog_b.transpose() * u;  // d(u . B0^T Log)/du
  const Vector dt = dlog.transpose() * mu0_;         // d(mu0 . Log)/du
  d_du->noalias() += u * (f.a * ds - f.b * dt).transpose();
  return g;
}

Vector SphereLinearBasepoint::point(const ConstVectorRef& x, const ConstVectorRef& c) const {
  return sphere::exp_map(basepoint(x), frame(x) * c);
}

SphereLinearBasepoint chart_frame_basepoint(Matrix map) {
  const Index n = map.rows();
  Vector mu0 = Vector::Zero(n + 1);
  mu0[0] = 1.0;
  Matrix basis = Matrix::Zero(n + 1, n);
  basis.bottomRows(n).setIdentity();
  return {std::move(mu0), std::move(basis), std::move(map)};
}

RowMatrix chart_frame_points(const DataRef& coordinates) {
  const Index n = coordinates.cols();
  Vector e0 = Vector::Zero(n + 1), v = Vector::Zero(n + 1);
  e0[0] = 1.0;
  RowMatrix out(coordinates.rows(), n + 1);
  for (Index i = 0; i < coordinates.rows(); ++i) {
    v.tail(n) = coordinates.row(i).transpose();
    out.row(i) = sphere::exp_map(e0, v).transpose();
  }
  return out;
}

RowMatrix data_frame_points(const TangentChart& chart, const DataRef& frame_points) {
  require(frame_points.cols() == chart.basepoint.size() && chart.basis.cols() + 1 == frame_points.cols(),
          "points of the chart's frame have the wrong width",
          {"", "model.basepoint", std::to_string(frame_points.cols())});
  RowMatrix out = frame_points.col(0) * chart.basepoint.transpose();
  out.noalias() += frame_points.rightCols(chart.basis.cols()) * chart.basis.transpose();
  return out;
}

}  // namespace gplvm
