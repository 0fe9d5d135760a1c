#include "gplvm/geometry/curve_energy.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// The Laplacian of the path 1 - 2 - ... - N: (W S)_{ii} summed gives sum_i (s_ii + s_{i+1,i+1} - 2
// s_{i,i+1}).
Matrix path_laplacian(Index n) {
  Matrix W = Matrix::Zero(n, n);
  for (Index i = 0; i + 1 < n; ++i) {
    W(i, i) += 1.0;
    W(i + 1, i + 1) += 1.0;
    W(i, i + 1) = W(i + 1, i) = -1.0;
  }
  return W;
}

}  // namespace

Matrix posterior_reduction(const GpPosterior& posterior) {
  Matrix P = posterior.factor().inverse();
  if (const Matrix* spread = posterior.spread_root_transposed()) P.noalias() -= spread->transpose() * *spread;
  return P;
}

CurveEnergy expected_curve_energy(const GpPosterior& posterior, const ConstMatrixRef& nodes,
                                  bool with_gradient, const Matrix* reduction) {
  const Index n = nodes.rows();
  require(n >= 2, "a curve needs at least two nodes", {"", "nodes", std::to_string(n)});
  require(nodes.allFinite(), "a curve's nodes contain NaN or Inf", {"", "nodes", "non-finite"});
  const Kernel& kernel = posterior.kernel();
  const Matrix& Z = posterior.inputs();
  const Matrix* spread = posterior.spread_root_transposed();
  const auto D = static_cast<double>(posterior.output_dim());

  Matrix Kc, Kcc;  // k(Z, C) (M x N), k(C, C) (N x N)
  kernel.cross(Z, nodes, Kc);
  kernel.cross(nodes, nodes, Kcc);
  const Matrix mean = Kc.transpose() * posterior.weights();  // N x D
  // P Kc, with P = K^{-1} - R R^T: S = k(C, C) - Kc^T P Kc. From the reduction by one product, or by
  // the factor's two triangular solves (and R^T Kc) when none is given.
  Matrix reduced;
  if (reduction) {
    reduced.noalias() = *reduction * Kc;
  } else {
    reduced = Kc;
    posterior.factor().solve_in_place(reduced);
    if (spread) reduced.noalias() -= spread->transpose() * (*spread * Kc);
  }
  const Matrix covariance = Kcc - Kc.transpose() * reduced;

  CurveEnergy out;
  out.segments.resize(n - 1);
  for (Index i = 0; i + 1 < n; ++i)
    out.segments[i] = (mean.row(i + 1) - mean.row(i)).squaredNorm() +
                      D * (covariance(i, i) + covariance(i + 1, i + 1) - 2.0 * covariance(i, i + 1));
  const auto scale = static_cast<double>(n - 1);
  out.energy = scale * out.segments.sum();
  // Rounding can leave a segment of coincident nodes a hair below 0.
  out.length = out.segments.cwiseMax(0.0).cwiseSqrt().sum();
  if (!with_gradient) return out;

  const Matrix W = path_laplacian(n);
  const Matrix d_mean = (2.0 * scale) * (W * mean);  // d energy / d mu
  const Matrix d_cov = (scale * D) * W;              // d energy / d S (symmetric)
  // mu = Kc^T alpha and S = k(C, C) - Kc^T P Kc (P symmetric).
  const Matrix d_kc = posterior.weights() * d_mean.transpose() - 2.0 * reduced * d_cov;
  out.gradient = Matrix::Zero(n, nodes.cols());
  Vector d_hyper = Vector::Zero(kernel.num_hyperparameters());
  kernel.cross_backward(Z, nodes, Kc, d_kc, nullptr, &out.gradient, d_hyper);
  kernel.cross_backward(nodes, nodes, Kcc, d_cov, &out.gradient, &out.gradient, d_hyper);
  return out;
}

double latent_length(const ConstMatrixRef& nodes) {
  double length = 0.0;
  for (Index i = 0; i + 1 < nodes.rows(); ++i) length += (nodes.row(i + 1) - nodes.row(i)).norm();
  return length;
}

}  // namespace gplvm
