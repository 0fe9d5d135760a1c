#include "gplvm/model/lorentz_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gplvm::lorentz {
namespace {

// How far apart two points of the sheet are: u - 1 = -<a, b>_L - 1 and the distance d. Near
// u = 1, -<a, b>_L - 1 cancels to a few digits; on the sheet it equals half the chord's squared
// Minkowski norm <a - b, a - b>_L / 2, which differences keep accurate, and
// d = 2 asinh(sqrt(chord) / 2) then has every digit.
struct Separation {
  double u_minus_1;
  double d;
};

Separation separation_of(const double* a, const double* b, Index n) {
  const ProductGap gap = product_gap(a, b, n);
  if (gap.u >= kChordRegime) return {gap.u_minus_1, std::acosh(gap.u)};
  // The chord's Minkowski length is sqrt(2 (u - 1)); half of it is sqrt((u - 1) / 2).
  return {gap.u_minus_1, 2.0 * std::asinh(std::sqrt(0.5 * gap.u_minus_1))};
}

Separation separation(const ConstVectorRef& a, const ConstVectorRef& b) {
  return separation_of(a.data(), b.data(), a.size());
}

// asinh(rho) / rho, finite at rho = 0.
double asinhc(double rho) {
  return rho < 1e-4 ? 1.0 - rho * rho / 6.0 : std::asinh(rho) / rho;
}

double spatial_dot(const ConstVectorRef& a, const ConstVectorRef& b) {
  return a.tail(a.size() - 1).dot(b.tail(b.size() - 1));
}

}  // namespace

double minkowski_dot(const ConstVectorRef& a, const ConstVectorRef& b) {
  return -a[0] * b[0] + spatial_dot(a, b);
}

Vector flip_time(const ConstVectorRef& v) {
  Vector out = v;
  out[0] = -out[0];
  return out;
}

double sinhc(double r) {
  const double r2 = r * r;
  if (std::abs(r) < 1e-3) return 1.0 + r2 / 6.0 + r2 * r2 / 120.0;
  return std::sinh(r) / r;
}

double sinhc_slope_over_r(double r) {
  const double r2 = r * r;
  // The series of (r cosh r - sinh r) / r^3 = sum_k 2k r^(2k-2) / (2k+1)!: the closed form cancels
  // to nothing as r -> 0.
  if (std::abs(r) < 0.1)
    return 1.0 / 3.0 + r2 * (1.0 / 30.0 + r2 * (1.0 / 840.0 + r2 * (1.0 / 45360.0 + r2 / 3991680.0)));
  return (r * std::cosh(r) - std::sinh(r)) / (r2 * r);
}

Vector origin(Index Q) {
  Vector o = Vector::Zero(Q + 1);
  o[0] = 1.0;
  return o;
}

Vector lift(const ConstVectorRef& spatial) {
  Vector x(spatial.size() + 1);
  x.tail(spatial.size()) = spatial;
  x[0] = std::sqrt(1.0 + spatial.squaredNorm());
  return x;
}

void reproject(VectorRef x) {
  x[0] = std::sqrt(1.0 + x.tail(x.size() - 1).squaredNorm());
}

void reproject_rows(MatrixRef X) {
  const Index Q = X.cols() - 1;
  for (Index n = 0; n < X.rows(); ++n) X(n, 0) = std::sqrt(1.0 + X.row(n).tail(Q).squaredNorm());
}

double max_sheet_deviation(const ConstMatrixRef& X) {
  double worst = 0.0;
  for (Index n = 0; n < X.rows(); ++n) {
    const Vector x = X.row(n).transpose();
    worst = std::max(worst, std::abs(minkowski_dot(x, x) + 1.0));
  }
  return worst;
}

Index first_row_off_sheet(const ConstMatrixRef& X, double tolerance) {
  for (Index n = 0; n < X.rows(); ++n) {
    const Vector x = X.row(n).transpose();
    if (!(x[0] > 0.0) || !x.allFinite()) return n;
    if (!(std::abs(minkowski_dot(x, x) + 1.0) <= tolerance * x[0] * x[0])) return n;
  }
  return -1;
}

Matrix arccosh_one_plus(const Matrix& M) {
  // arccosh(1 + m) = log1p(t), t = m + sqrt(m (m + 2)) (a sum of non-negative terms: no
  // cancellation at any m), with log1p(t) = log(w) t / (w - 1), w = 1 + t (Kahan's form, a few
  // ulps), so that the one transcendental call is Eigen's vectorised log over the whole matrix.
  // Above 1e150, m (m + 2) would overflow and arccosh(1 + m) = log(2 (1 + m)) to rounding.
  constexpr double kLarge = 1e150;
  const Eigen::ArrayXXd m = M.array().min(kLarge);
  const Eigen::ArrayXXd t = m + (m * (m + 2.0)).sqrt();
  const Eigen::ArrayXXd w = 1.0 + t;
  const Eigen::ArrayXXd log_w = w.log();
  Matrix D(M.rows(), M.cols());
  for (Index e = 0; e < M.size(); ++e) {
    if (M.data()[e] >= kLarge)
      D.data()[e] = std::log(2.0 * (1.0 + M.data()[e]));
    else
      D.data()[e] = w.data()[e] == 1.0 ? t.data()[e] : log_w.data()[e] * t.data()[e] / (w.data()[e] - 1.0);
  }
  return D;
}

double distance(const ConstVectorRef& a, const ConstVectorRef& b) {
  return separation(a, b).d;
}

ProductGaps pairwise_product_gaps(const ConstMatrixRef& X1, const ConstMatrixRef& X2) {
  // Rows of X1 in tiles whose work arrays stay in L1 (a pass per coordinate over all of X1's rows
  // at once ran from memory for the Bayesian model's L n stacked samples).
  constexpr Index kTile = 256;
  const Index n1 = X1.rows(), n = X1.cols();
  ProductGaps gaps{Matrix(n1, X2.rows()), Matrix(n1, X2.rows())};
  Eigen::ArrayXd spatial(kTile), chord(kTile), difference(kTile);
  for (Index first = 0; first < n1; first += kTile) {
    const Index t = std::min(kTile, n1 - first);
    auto sp = spatial.head(t), ch = chord.head(t), df = difference.head(t);
    for (Index j = 0; j < X2.rows(); ++j) {
      sp.setZero();
      ch.setZero();
      for (Index k = 1; k < n; ++k) {
        sp += X1.col(k).segment(first, t).array() * X2(j, k);
        df = X1.col(k).segment(first, t).array() - X2(j, k);
        ch += df * df;
      }
      df = X1.col(0).segment(first, t).array() - X2(j, 0);
      ch = (-(df * df) + ch).max(0.0);
      double* u = gaps.u.col(j).data() + first;
      double* gap = gaps.u_minus_1.col(j).data() + first;
      Eigen::Map<Eigen::ArrayXd>(u, t) = -(-X1.col(0).segment(first, t).array() * X2(j, 0) + sp);
      // A branch-free select, so the loop vectorises (Eigen's select does not).
      for (Index i = 0; i < t; ++i) gap[i] = u[i] >= kChordRegime ? u[i] - 1.0 : 0.5 * ch[i];
    }
  }
  return gaps;
}

Matrix pairwise_distances(const ConstMatrixRef& X1, const ConstMatrixRef& X2) {
  return arccosh_one_plus(pairwise_product_gaps(X1, X2).u_minus_1);
}

Vector project_tangent(const ConstVectorRef& x, const ConstVectorRef& g) {
  return g + minkowski_dot(x, g) * x;
}

Vector chart_gradient(const ConstVectorRef& x, const ConstVectorRef& g) {
  const Index q = x.size() - 1;
  return g.tail(q) + (g[0] / x[0]) * x.tail(q);
}

Vector exp_map(const ConstVectorRef& x, const ConstVectorRef& v) {
  const double r = std::sqrt(std::max(minkowski_dot(v, v), 0.0));
  return std::cosh(r) * x + sinhc(r) * v;
}

Vector log_map(const ConstVectorRef& x, const ConstVectorRef& y) {
  // (d / sinh d)(y - u x), with y - u x written as (y - x) - (u - 1) x so that nearby points
  // do not subtract two vectors of size u.
  const Separation s = separation(x, y);
  return ((y - x) - s.u_minus_1 * x) / sinhc(s.d);
}

Vector parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to, const ConstVectorRef& v) {
  const double gamma = -minkowski_dot(from, to);
  return v + (minkowski_dot(to - gamma * from, v) / (gamma + 1.0)) * (from + to);
}

Vector exp_at_origin(const ConstVectorRef& spatial_tangent) {
  const double r = spatial_tangent.norm();
  Vector x(spatial_tangent.size() + 1);
  x[0] = std::cosh(r);
  x.tail(spatial_tangent.size()) = sinhc(r) * spatial_tangent;
  return x;
}

void exp_at_origin_backward(const ConstVectorRef& spatial_tangent, const ConstVectorRef& dx,
                            VectorRef d_spatial) {
  // x_0 = cosh r, x~ = (sinh r / r) v~: d x_0 / d v~ = (sinh r / r) v~ and
  // d x~ / d v~ = (sinh r / r) I + (r cosh r - sinh r) / r^3 v~ v~^T.
  const double r = spatial_tangent.norm();
  const auto d_spatial_x = dx.tail(spatial_tangent.size());
  d_spatial +=
      (sinhc(r) * dx[0] + sinhc_slope_over_r(r) * spatial_tangent.dot(d_spatial_x)) * spatial_tangent +
      sinhc(r) * d_spatial_x;
}

Vector log_at_origin(const ConstVectorRef& x) {
  // |Log_o(x)| = asinh(|x~|) on the sheet, in the direction of x~.
  const auto spatial = x.tail(x.size() - 1);
  return asinhc(spatial.norm()) * spatial;
}

Vector transport_from_origin(const ConstVectorRef& mu, const ConstVectorRef& spatial_tangent) {
  const Index Q = spatial_tangent.size();
  const double m = mu.tail(Q).dot(spatial_tangent);
  Vector u(Q + 1);
  u[0] = m;
  u.tail(Q) = spatial_tangent + (m / (mu[0] + 1.0)) * mu.tail(Q);
  return u;
}

Vector transport_to_origin(const ConstVectorRef& mu, const ConstVectorRef& u) {
  const Index Q = mu.size() - 1;
  return u.tail(Q) - (u[0] / (mu[0] + 1.0)) * mu.tail(Q);
}

// The row-block maps below run row by row with scalar loops and no temporaries: each row gets the
// same operations whatever its position in the block, so a point's update does not depend on how
// many points a rank holds (a column-vectorised pass would round rows in its scalar tail
// differently), and training stays bitwise reproducible across rank counts.
namespace {

double minkowski_dot_of_rows(const ConstMatrixRef& A, Index a, const ConstMatrixRef& B, Index b) {
  double spatial = 0.0;
  for (Index k = 1; k < A.cols(); ++k) spatial += A(a, k) * B(b, k);
  return -A(a, 0) * B(b, 0) + spatial;
}

}  // namespace

Vector minkowski_dot_rows(const ConstMatrixRef& A, const ConstMatrixRef& B) {
  Vector out(A.rows());
  for (Index n = 0; n < A.rows(); ++n) out[n] = minkowski_dot_of_rows(A, n, B, n);
  return out;
}

void riemannian_gradient_rows(const ConstMatrixRef& X, MatrixRef G) {
  for (Index n = 0; n < X.rows(); ++n) {
    G(n, 0) = -G(n, 0);
    const double along = minkowski_dot_of_rows(X, n, G, n);
    for (Index k = 0; k < X.cols(); ++k) G(n, k) += along * X(n, k);
  }
}

void retract_rows(MatrixRef X, const ConstMatrixRef& step) {
  Matrix tangent = step;
  const Index a = X.cols();
  for (Index n = 0; n < X.rows(); ++n) {
    const double along = minkowski_dot_of_rows(X, n, tangent, n);
    for (Index k = 0; k < a; ++k) tangent(n, k) += along * X(n, k);
    const double r = std::sqrt(std::max(minkowski_dot_of_rows(tangent, n, tangent, n), 0.0));
    const double c = std::cosh(r), s = sinhc(r);
    double spatial = 0.0;
    for (Index k = 0; k < a; ++k) {
      X(n, k) = c * X(n, k) + s * tangent(n, k);
      if (k > 0) spatial += X(n, k) * X(n, k);
    }
    X(n, 0) = std::sqrt(1.0 + spatial);  // re-projection
  }
}

void parallel_transport_rows(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) {
  const Index a = V.cols();
  for (Index n = 0; n < V.rows(); ++n) {
    const double gamma = -minkowski_dot_of_rows(from, n, to, n);
    // <to - gamma from, v>_L
    double spatial = 0.0;
    for (Index k = 1; k < a; ++k) spatial += (to(n, k) - gamma * from(n, k)) * V(n, k);
    const double coefficient = (-(to(n, 0) - gamma * from(n, 0)) * V(n, 0) + spatial) / (gamma + 1.0);
    for (Index k = 0; k < a; ++k) V(n, k) += coefficient * (from(n, k) + to(n, k));
  }
}

Vector to_poincare(const ConstVectorRef& x) {
  return x.tail(x.size() - 1) / (1.0 + x[0]);
}

Vector from_poincare(const ConstVectorRef& p) {
  const double n2 = p.squaredNorm(), scale = 1.0 / (1.0 - n2);
  Vector x(p.size() + 1);
  x[0] = (1.0 + n2) * scale;
  x.tail(p.size()) = 2.0 * scale * p;
  return x;
}

Matrix to_poincare_rows(const ConstMatrixRef& X) {
  Matrix P(X.rows(), X.cols() - 1);
  for (Index n = 0; n < X.rows(); ++n) P.row(n) = to_poincare(X.row(n).transpose()).transpose();
  return P;
}

Vector wrapped_normal_sample(const ConstVectorRef& mu, const ConstVectorRef& spatial_tangent) {
  const double r = spatial_tangent.norm();
  return std::cosh(r) * mu + sinhc(r) * transport_from_origin(mu, spatial_tangent);
}

void wrapped_normal_sample_backward(const ConstVectorRef& mu, const ConstVectorRef& spatial_tangent,
                                    const ConstVectorRef& dx, VectorRef d_mu, VectorRef d_spatial) {
  // x = cosh(r) mu + s(r) u with s = sinh r / r, u = (m, v~ + a mu~), m = mu~.v~, a = m / (mu_0 + 1).
  const Index Q = spatial_tangent.size();
  const auto v = spatial_tangent;
  const auto mu_s = mu.tail(Q);
  const double r = v.norm(), s = sinhc(r), m = mu_s.dot(v), inv = 1.0 / (mu[0] + 1.0), a = m * inv;
  const Vector u = transport_from_origin(mu, v);
  // Through u (adjoint w = s dx).
  const double w0 = s * dx[0];
  const Vector w_s = s * dx.tail(Q);
  const double da = w_s.dot(mu_s);
  d_mu += std::cosh(r) * dx;
  d_mu.tail(Q) += w0 * v + a * w_s + (da * inv) * v;
  d_mu[0] -= da * m * inv * inv;
  d_spatial += w0 * mu_s + w_s + (da * inv) * mu_s;
  // Through r = |v~|: dx/dr = sinh(r) mu + s'(r) u, and dr/dv~ = v~ / r.
  d_spatial += (s * dx.dot(mu) + sinhc_slope_over_r(r) * dx.dot(u)) * v;
}

double wrapped_normal_log_density(const ConstVectorRef& mu, const ConstVectorRef& variance,
                                  const ConstVectorRef& x) {
  const Index Q = variance.size();
  const Vector v = transport_to_origin(mu, log_map(mu, x));
  const double r = v.norm();
  return -0.5 * Q * std::log(2.0 * std::numbers::pi) - 0.5 * variance.array().log().sum() -
         0.5 * (v.array().square() / variance.array()).sum() - (Q - 1) * std::log(sinhc(r));
}

double standard_wrapped_normal_log_density(const ConstVectorRef& x) {
  const Index Q = x.size() - 1;
  const double r = std::asinh(x.tail(Q).norm());  // distance to the origin, exact near it
  return -0.5 * Q * std::log(2.0 * std::numbers::pi) - 0.5 * r * r - (Q - 1) * std::log(sinhc(r));
}

void wrapped_normal_log_density_backward(const ConstVectorRef& mu, const ConstVectorRef& variance,
                                         const ConstVectorRef& x, double scale, VectorRef d_mu,
                                         VectorRef d_variance, VectorRef d_x) {
  // Forward, as in wrapped_normal_log_density: z = x - u mu (u = -<mu, x>_L), w = z / s(d),
  // v~ = w~ - w_0 mu~ / (mu_0 + 1), r = |v~|. Reverse mode through each line; u's extension off the
  // sheet is -<mu, x>_L, whose derivative agrees with any other along tangent directions.
  const Index Q = variance.size();
  const auto mu_s = mu.tail(Q);
  const Separation sep = separation(mu, x);
  const double u = 1.0 + sep.u_minus_1, sd = sinhc(sep.d), f = 1.0 / sd;
  const Vector z = (x - mu) - sep.u_minus_1 * mu;
  const Vector w = f * z;
  const double inv = 1.0 / (mu[0] + 1.0);
  const Vector v = w.tail(Q) - (w[0] * inv) * mu_s;
  const double r = v.norm();

  const Eigen::ArrayXd var = variance.array();
  d_variance.array() += scale * (-0.5 / var + 0.5 * v.array().square() / var.square());
  const Vector b = scale * (-(v.array() / var).matrix() - ((Q - 1) * sinhc_slope_over_r(r) / sinhc(r)) * v);
  // v~ = w~ - w_0 mu~ / (mu_0 + 1)
  Vector dw(Q + 1);
  dw.tail(Q) = b;
  dw[0] = -b.dot(mu_s) * inv;
  d_mu.tail(Q) -= (w[0] * inv) * b;
  d_mu[0] += w[0] * b.dot(mu_s) * inv * inv;
  // w = f(u) z with f = d / sinh d, f'(u) = -((d cosh d - sinh d) / d^3) / (sinh d / d)^3
  const Vector dz = f * dw;
  double du = -(sinhc_slope_over_r(sep.d) / (sd * sd * sd)) * dw.dot(z);
  // z = x - u mu
  d_x += dz;
  d_mu -= u * dz;
  du -= dz.dot(mu);
  // u = mu_0 x_0 - mu~.x~
  d_mu[0] += du * x[0];
  d_mu.tail(Q) -= du * x.tail(Q);
  d_x[0] += du * mu[0];
  d_x.tail(Q) -= du * mu_s;
}

void standard_wrapped_normal_log_density_backward(const ConstVectorRef& x, double scale, VectorRef d_x) {
  // r = asinh(rho), rho = |x~|: d log p / dr = -r (1 + (Q - 1) s'(r) / (r s(r))) and
  // dr / dx~ = x~ / (rho sqrt(1 + rho^2)); their product is written with r / rho = asinhc(rho), so
  // nothing divides by r or rho.
  const Index Q = x.size() - 1;
  const auto xs = x.tail(Q);
  const double rho = xs.norm(), r = std::asinh(rho);
  const double per_r = -(1.0 + (Q - 1) * sinhc_slope_over_r(r) / sinhc(r));
  d_x.tail(Q) += (scale * per_r * asinhc(rho) / std::sqrt(1.0 + rho * rho)) * xs;
}

}  // namespace gplvm::lorentz
