#include "gplvm/manifold/lorentz_geometry.hpp"

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
    // Beyond sqrt(DBL_MAX) the Minkowski square overflows and the test below would pass on
    // infinities: such a point cannot be checked, nor used, in double precision.
    if (!std::isfinite(x[0] * x[0])) return n;
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

// The wrapped normal's maps, row by row with scalar loops like the *_rows maps above; each line
// keeps the order of operations of the vector expressions these replaced, so results kept their
// bits. The per-point forms run the same code on a one-row block.
namespace {

// Row n of M into `out` (M.cols() values): rows of a column-major block are strided, and
// separation_of reads its points contiguously.
void copy_row(const ConstMatrixRef& M, Index n, double* out) {
  for (Index k = 0; k < M.cols(); ++k) out[k] = M(n, k);
}

// A vector's storage as a one-row block.
Eigen::Map<const Matrix> as_row(const ConstVectorRef& v) {
  return {v.data(), 1, v.size()};
}
Eigen::Map<Matrix> as_writable_row(VectorRef v) {
  return {v.data(), 1, v.size()};
}

double log_two_pi() {
  return std::log(2.0 * std::numbers::pi);
}

}  // namespace

void exp_at_origin_rows(const ConstMatrixRef& V, MatrixRef X) {
  // x_0 = cosh r, x~ = (sinh r / r) v~, r = |v~|.
  for (Index n = 0; n < V.rows(); ++n) {
    double r2 = 0.0;
    for (Index k = 0; k < V.cols(); ++k) r2 += V(n, k) * V(n, k);
    const double r = std::sqrt(r2), s = sinhc(r);
    X(n, 0) = std::cosh(r);
    for (Index k = 0; k < V.cols(); ++k) X(n, k + 1) = s * V(n, k);
  }
}

void exp_at_origin_backward_rows(const ConstMatrixRef& V, const ConstMatrixRef& dX, MatrixRef d_V) {
  // d x_0 / d v~ = (sinh r / r) v~ and d x~ / d v~ = (sinh r / r) I + (r cosh r - sinh r) / r^3 v~ v~^T.
  for (Index n = 0; n < V.rows(); ++n) {
    double r2 = 0.0, v_dot_dx = 0.0;
    for (Index k = 0; k < V.cols(); ++k) {
      r2 += V(n, k) * V(n, k);
      v_dot_dx += V(n, k) * dX(n, k + 1);
    }
    const double r = std::sqrt(r2), s = sinhc(r);
    const double along_v = s * dX(n, 0) + sinhc_slope_over_r(r) * v_dot_dx;
    for (Index k = 0; k < V.cols(); ++k) d_V(n, k) += along_v * V(n, k) + s * dX(n, k + 1);
  }
}

Vector exp_at_origin(const ConstVectorRef& spatial_tangent) {
  Vector x(spatial_tangent.size() + 1);
  exp_at_origin_rows(as_row(spatial_tangent), as_writable_row(x));
  return x;
}

void exp_at_origin_backward(const ConstVectorRef& spatial_tangent, const ConstVectorRef& dx,
                            VectorRef d_spatial) {
  exp_at_origin_backward_rows(as_row(spatial_tangent), as_row(dx), as_writable_row(d_spatial));
}

void wrapped_normal_sample_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& V, MatrixRef X) {
  // x = cosh(r) mu + s(r) u, s = sinh r / r, u = PT_{o -> mu}(0, v~) = (m, v~ + m / (mu_0 + 1) mu~),
  // m = mu~.v~, r = |v~|.
  const Index Q = V.cols();
  for (Index n = 0; n < V.rows(); ++n) {
    double r2 = 0.0, m = 0.0;
    for (Index j = 0; j < Q; ++j) r2 += V(n, j) * V(n, j);
    for (Index j = 0; j < Q; ++j) m += Mu(n, j + 1) * V(n, j);
    const double r = std::sqrt(r2), c = std::cosh(r), s = sinhc(r), a = m / (Mu(n, 0) + 1.0);
    X(n, 0) = c * Mu(n, 0) + s * m;
    for (Index j = 0; j < Q; ++j) {
      const double u = V(n, j) + a * Mu(n, j + 1);
      X(n, j + 1) = c * Mu(n, j + 1) + s * u;
    }
  }
}

void wrapped_normal_sample_backward_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& V,
                                         const ConstMatrixRef& dX, MatrixRef d_Mu, MatrixRef d_V) {
  // Through u (adjoint w = s dx), then through r = |v~|: dx/dr = sinh(r) mu + s'(r) u, dr/dv~ = v~ / r.
  const Index Q = V.cols();
  for (Index n = 0; n < V.rows(); ++n) {
    double r2 = 0.0, m = 0.0;
    for (Index j = 0; j < Q; ++j) r2 += V(n, j) * V(n, j);
    for (Index j = 0; j < Q; ++j) m += Mu(n, j + 1) * V(n, j);
    const double r = std::sqrt(r2), s = sinhc(r), inv = 1.0 / (Mu(n, 0) + 1.0), a = m * inv;
    const double transported = m / (Mu(n, 0) + 1.0);  // u~ = v~ + transported mu~
    const double w0 = s * dX(n, 0);
    double da = 0.0;
    for (Index j = 0; j < Q; ++j) da += (s * dX(n, j + 1)) * Mu(n, j + 1);
    const double c = std::cosh(r), da_inv = da * inv;
    for (Index k = 0; k <= Q; ++k) d_Mu(n, k) += c * dX(n, k);
    for (Index j = 0; j < Q; ++j)
      d_Mu(n, j + 1) += (w0 * V(n, j) + a * (s * dX(n, j + 1))) + da_inv * V(n, j);
    d_Mu(n, 0) -= da * m * inv * inv;
    for (Index j = 0; j < Q; ++j) d_V(n, j) += (w0 * Mu(n, j + 1) + s * dX(n, j + 1)) + da_inv * Mu(n, j + 1);
    // dx.mu and dx.u over the ambient coordinates.
    double dx_mu = dX(n, 0) * Mu(n, 0), dx_u = dX(n, 0) * m;
    for (Index j = 0; j < Q; ++j) dx_mu += dX(n, j + 1) * Mu(n, j + 1);
    for (Index j = 0; j < Q; ++j) dx_u += dX(n, j + 1) * (V(n, j) + transported * Mu(n, j + 1));
    const double along_r = s * dx_mu + sinhc_slope_over_r(r) * dx_u;
    for (Index j = 0; j < Q; ++j) d_V(n, j) += along_r * V(n, j);
  }
}

void wrapped_normal_log_density_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& Variance,
                                     const ConstMatrixRef& X, VectorRef log_density) {
  // v~ = PT_{mu -> o}(Log_mu(x)): Log_mu(x) = ((x - mu) - (u - 1) mu) / s(d) = l, then
  // v~ = l~ - l_0 / (mu_0 + 1) mu~.
  const Index Q = Variance.cols(), a = Q + 1;
  Vector mu(a), x(a);  // the row's points, contiguous for separation_of
  for (Index n = 0; n < X.rows(); ++n) {
    copy_row(Mu, n, mu.data());
    copy_row(X, n, x.data());
    const Separation sep = separation_of(mu.data(), x.data(), a);
    const double sd = sinhc(sep.d);
    const double l0 = ((x[0] - mu[0]) - sep.u_minus_1 * mu[0]) / sd;
    const double transported = l0 / (mu[0] + 1.0);
    double r2 = 0.0, log_variance = 0.0, quadratic = 0.0;
    for (Index j = 0; j < Q; ++j) {
      const double l = ((x[j + 1] - mu[j + 1]) - sep.u_minus_1 * mu[j + 1]) / sd;
      const double v = l - transported * mu[j + 1];
      r2 += v * v;
      log_variance += std::log(Variance(n, j));
      quadratic += v * v / Variance(n, j);
    }
    log_density[n] = -0.5 * Q * log_two_pi() - 0.5 * log_variance - 0.5 * quadratic -
                     (Q - 1) * std::log(sinhc(std::sqrt(r2)));
  }
}

void standard_wrapped_normal_log_density_rows(const ConstMatrixRef& X, VectorRef log_density) {
  const Index Q = X.cols() - 1;
  for (Index n = 0; n < X.rows(); ++n) {
    double rho2 = 0.0;
    for (Index j = 1; j <= Q; ++j) rho2 += X(n, j) * X(n, j);
    const double r = std::asinh(std::sqrt(rho2));  // distance to the origin, exact near it
    log_density[n] = -0.5 * Q * log_two_pi() - 0.5 * r * r - (Q - 1) * std::log(sinhc(r));
  }
}

void wrapped_normal_log_density_backward_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& Variance,
                                              const ConstMatrixRef& X, double scale, MatrixRef d_Mu,
                                              MatrixRef d_Variance, MatrixRef d_X) {
  // Forward, as in wrapped_normal_log_density: z = x - u mu (u = -<mu, x>_L), w = z / s(d),
  // v~ = w~ - w_0 mu~ / (mu_0 + 1), r = |v~|. Reverse mode through each line; u's extension off the
  // sheet is -<mu, x>_L, whose derivative agrees with any other along tangent directions.
  const Index Q = Variance.cols(), a = Q + 1;
  Vector mu(a), x(a), z(a), dw(a), v(Q), b(Q);  // fixed scratch for every row
  for (Index n = 0; n < X.rows(); ++n) {
    copy_row(Mu, n, mu.data());
    copy_row(X, n, x.data());
    const Separation sep = separation_of(mu.data(), x.data(), a);
    const double u = 1.0 + sep.u_minus_1, sd = sinhc(sep.d), f = 1.0 / sd;
    for (Index k = 0; k < a; ++k) z[k] = (x[k] - mu[k]) - sep.u_minus_1 * mu[k];
    const double inv = 1.0 / (mu[0] + 1.0), w0 = f * z[0], w0_inv = w0 * inv;
    double r2 = 0.0;
    for (Index j = 0; j < Q; ++j) {
      v[j] = f * z[j + 1] - w0_inv * mu[j + 1];
      r2 += v[j] * v[j];
    }
    const double r = std::sqrt(r2);
    for (Index j = 0; j < Q; ++j) {
      const double var = Variance(n, j);
      d_Variance(n, j) += scale * (-0.5 / var + 0.5 * (v[j] * v[j]) / (var * var));
    }
    const double radial = (Q - 1) * sinhc_slope_over_r(r) / sinhc(r);
    for (Index j = 0; j < Q; ++j) b[j] = scale * (-(v[j] / Variance(n, j)) - radial * v[j]);
    // v~ = w~ - w_0 mu~ / (mu_0 + 1)
    double b_mu = 0.0;
    for (Index j = 0; j < Q; ++j) b_mu += b[j] * mu[j + 1];
    for (Index j = 0; j < Q; ++j) dw[j + 1] = b[j];
    dw[0] = -b_mu * inv;
    for (Index j = 0; j < Q; ++j) d_Mu(n, j + 1) -= w0_inv * b[j];
    d_Mu(n, 0) += w0 * b_mu * inv * inv;
    // w = f(u) z with f = d / sinh d, f'(u) = -((d cosh d - sinh d) / d^3) / (sinh d / d)^3
    double dw_z = 0.0;
    for (Index k = 0; k < a; ++k) dw_z += dw[k] * z[k];
    double du = -(sinhc_slope_over_r(sep.d) / (sd * sd * sd)) * dw_z;
    // z = x - u mu, with dz = f dw
    double dz_mu = 0.0;
    for (Index k = 0; k < a; ++k) {
      const double dz = f * dw[k];
      d_X(n, k) += dz;
      d_Mu(n, k) -= u * dz;
      dz_mu += dz * mu[k];
    }
    du -= dz_mu;
    // u = mu_0 x_0 - mu~.x~
    d_Mu(n, 0) += du * x[0];
    for (Index j = 1; j < a; ++j) d_Mu(n, j) -= du * x[j];
    d_X(n, 0) += du * mu[0];
    for (Index j = 1; j < a; ++j) d_X(n, j) -= du * mu[j];
  }
}

void standard_wrapped_normal_log_density_backward_rows(const ConstMatrixRef& X, double scale, MatrixRef d_X) {
  // r = asinh(rho), rho = |x~|: d log p / dr = -r (1 + (Q - 1) s'(r) / (r s(r))) and
  // dr / dx~ = x~ / (rho sqrt(1 + rho^2)); their product is written with r / rho = asinhc(rho), so
  // nothing divides by r or rho.
  const Index Q = X.cols() - 1;
  for (Index n = 0; n < X.rows(); ++n) {
    double rho2 = 0.0;
    for (Index j = 1; j <= Q; ++j) rho2 += X(n, j) * X(n, j);
    const double rho = std::sqrt(rho2), r = std::asinh(rho);
    const double per_r = -(1.0 + (Q - 1) * sinhc_slope_over_r(r) / sinhc(r));
    const double coefficient = scale * per_r * asinhc(rho) / std::sqrt(1.0 + rho * rho);
    for (Index j = 1; j <= Q; ++j) d_X(n, j) += coefficient * X(n, j);
  }
}

namespace {

// (s(r) - 3 s'(r) / r) / r^2 = (d/dr (s'(r) / r)) / r for s(r) = sinh r / r, finite at r = 0: the
// series sum_{m >= 1} 4 m (m + 1) r^(2m - 2) / (2m + 3)! near 0, where the closed form cancels.
double sinhc_slope_over_r_derivative_over_r(double r) {
  const double r2 = r * r;
  if (std::abs(r) < 0.5)
    return 1.0 / 15.0 +
           r2 * (1.0 / 210.0 +
                 r2 * (1.0 / 7560.0 + r2 * (1.0 / 498960.0 + r2 * (1.0 / 51891840.0 + r2 / 7783776000.0))));
  return (sinhc(r) - 3.0 * sinhc_slope_over_r(r)) / r2;
}

// The slope's radial factor F(r) = (1 + (Q - 1) s'(r) / (r s(r))) / s(r) and F'(r) / r.
struct SlopeFactor {
  double F;
  double F_prime_over_r;
};

SlopeFactor slope_factor(double r, Index Q) {
  const double S = sinhc(r), sigma = sinhc_slope_over_r(r), tau = sinhc_slope_over_r_derivative_over_r(r);
  // s' = r sigma, sigma' = r tau: F' / r = -sigma / S^2 + (Q - 1)(tau S - 2 sigma^2) / S^3.
  return {(1.0 + (Q - 1) * sigma / S) / S,
          -sigma / (S * S) + (Q - 1) * (tau * S - 2.0 * sigma * sigma) / (S * S * S)};
}

}  // namespace

void standard_wrapped_normal_log_density_slope_rows(const ConstMatrixRef& Mu, const ConstMatrixRef& V,
                                                    VectorRef slope) {
  // log p = const - h(r), h(r) = r^2 / 2 + (Q - 1) log s(r): along the transported v~ the distance to
  // the origin changes by mu~.v~ / |mu~| (transport along the radial geodesic keeps the radial
  // component), so the slope is -h'(r) mu~.v~ / |mu~| = -F(r) mu~.v~ (|mu~| = sinh r = r s(r)).
  const Index Q = V.cols();
  for (Index n = 0; n < V.rows(); ++n) {
    double rho2 = 0.0, along = 0.0;
    for (Index j = 0; j < Q; ++j) rho2 += Mu(n, j + 1) * Mu(n, j + 1);
    for (Index j = 0; j < Q; ++j) along += Mu(n, j + 1) * V(n, j);
    slope[n] = -slope_factor(std::asinh(std::sqrt(rho2)), Q).F * along;
  }
}

void standard_wrapped_normal_log_density_slope_backward_rows(const ConstMatrixRef& Mu,
                                                             const ConstMatrixRef& V, double scale,
                                                             MatrixRef d_Mu, MatrixRef d_V) {
  // d/dmu~ F(r) = F'(r) (dr / drho) mu~ / rho = (F'(r) / r) / (cosh r s(r)) mu~, cosh r = sqrt(1 + rho^2).
  const Index Q = V.cols();
  for (Index n = 0; n < V.rows(); ++n) {
    double rho2 = 0.0, along = 0.0;
    for (Index j = 0; j < Q; ++j) rho2 += Mu(n, j + 1) * Mu(n, j + 1);
    for (Index j = 0; j < Q; ++j) along += Mu(n, j + 1) * V(n, j);
    const double r = std::asinh(std::sqrt(rho2));
    const SlopeFactor f = slope_factor(r, Q);
    const double radial = along * f.F_prime_over_r / (std::sqrt(1.0 + rho2) * sinhc(r));
    for (Index j = 0; j < Q; ++j) {
      d_Mu(n, j + 1) -= scale * (f.F * V(n, j) + radial * Mu(n, j + 1));
      d_V(n, j) -= scale * f.F * Mu(n, j + 1);
    }
  }
}

Vector wrapped_normal_sample(const ConstVectorRef& mu, const ConstVectorRef& spatial_tangent) {
  Vector x(mu.size());
  wrapped_normal_sample_rows(as_row(mu), as_row(spatial_tangent), as_writable_row(x));
  return x;
}

void wrapped_normal_sample_backward(const ConstVectorRef& mu, const ConstVectorRef& spatial_tangent,
                                    const ConstVectorRef& dx, VectorRef d_mu, VectorRef d_spatial) {
  wrapped_normal_sample_backward_rows(as_row(mu), as_row(spatial_tangent), as_row(dx), as_writable_row(d_mu),
                                      as_writable_row(d_spatial));
}

double wrapped_normal_log_density(const ConstVectorRef& mu, const ConstVectorRef& variance,
                                  const ConstVectorRef& x) {
  double log_density = 0.0;
  wrapped_normal_log_density_rows(as_row(mu), as_row(variance), as_row(x),
                                  Eigen::Map<Vector>(&log_density, 1));
  return log_density;
}

double standard_wrapped_normal_log_density(const ConstVectorRef& x) {
  double log_density = 0.0;
  standard_wrapped_normal_log_density_rows(as_row(x), Eigen::Map<Vector>(&log_density, 1));
  return log_density;
}

void wrapped_normal_log_density_backward(const ConstVectorRef& mu, const ConstVectorRef& variance,
                                         const ConstVectorRef& x, double scale, VectorRef d_mu,
                                         VectorRef d_variance, VectorRef d_x) {
  wrapped_normal_log_density_backward_rows(as_row(mu), as_row(variance), as_row(x), scale,
                                           as_writable_row(d_mu), as_writable_row(d_variance),
                                           as_writable_row(d_x));
}

void standard_wrapped_normal_log_density_backward(const ConstVectorRef& x, double scale, VectorRef d_x) {
  standard_wrapped_normal_log_density_backward_rows(as_row(x), scale, as_writable_row(d_x));
}

}  // namespace gplvm::lorentz
