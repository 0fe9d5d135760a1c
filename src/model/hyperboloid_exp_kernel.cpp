#include "gplvm/model/hyperboloid_exp_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "kernel_checks.hpp"

namespace gplvm {
namespace {

using kernel_checks::require_input_dim;
using kernel_checks::require_positive_finite;

[[noreturn]] void psi_not_supported() {
  throw InputError(
      "hyperboloid_exp has no Psi-statistics: the generic ones integrate over Gaussian inputs in ambient "
      "coordinates, off the hyperboloid (use a model without Psi-statistics)",
      {"", "model.kernel", "hyperboloid_exp"});
}

// Rows of X1 per pass: the element-wise passes over pairs (distances, exp, the adjoint's
// coefficients) work on tiles of this many rows, whose arrays stay in cache for any number of rows
// (the Bayesian hGP-LVM's L n stacked samples).
constexpr Index kRowTile = 256;

// Per pair (i, j): c = G k / (kappa sinh d) and c u, u = -<x_i, z_j>_L; 0 where G or k is 0 and at
// coincident points (the cusp's subgradient 0). sinh d comes from u, with no transcendental function.
struct PairCoefficients {
  Matrix c, cu;
};

PairCoefficients pair_coefficients(const ConstMatrixRef& X1, const ConstMatrixRef& X2,
                                   const ConstMatrixRef& K, const ConstMatrixRef& G, double kappa) {
  // Whole-block array passes (vectorised), then a fix-up of the pairs without a term.
  const lorentz::ProductGaps gaps = lorentz::pairwise_product_gaps(X1, X2);
  const Eigen::ArrayXXd m = gaps.u_minus_1.array();
  const Eigen::ArrayXXd sinh_d = (m * (m + 2.0)).sqrt(), weight = G.array() * K.array();
  PairCoefficients p{(weight / (kappa * sinh_d)).matrix(), Matrix()};
  double* c = p.c.data();
  for (Index e = 0; e < p.c.size(); ++e)
    if (weight.data()[e] == 0.0 || sinh_d.data()[e] == 0.0) c[e] = 0.0;
  p.cu = p.c.cwiseProduct(gaps.u);
  return p;
}

// out += flip_time(S - diag(s) X): the summed pair terms of each point, time-like sign flipped.
void add_flipped(const Matrix& S, const Vector& s, const ConstMatrixRef& X, Matrix& out) {
  Matrix d = S - s.asDiagonal() * X;
  d.col(0) = -d.col(0);
  out += d;
}

}  // namespace

HyperboloidExpKernel::HyperboloidExpKernel(double variance, double kappa, Index ambient_dim)
    : variance_(variance), kappa_(kappa), ambient_dim_(ambient_dim) {
  if (ambient_dim < 2)
    throw InputError("hyperboloid_exp needs Lorentz coordinates: Q + 1 >= 2 input columns",
                     {"", "latent_dim", std::to_string(ambient_dim)});
  require_positive_finite(variance, "kernel.variance");
  require_positive_finite(kappa, "kernel.kappa");
}

std::unique_ptr<Kernel> HyperboloidExpKernel::clone() const {
  return std::make_unique<HyperboloidExpKernel>(*this);
}

std::string HyperboloidExpKernel::hyperparameter_name(Index i) const {
  return i == 0 ? "log_variance" : "log_kappa";
}

std::vector<NamedHyperparameter> HyperboloidExpKernel::named_hyperparameters() const {
  return {{"variance", Vector::Constant(1, variance_)}, {"kappa", Vector::Constant(1, kappa_)}};
}

Vector HyperboloidExpKernel::hyperparameters() const {
  return Vector{{std::log(variance_), std::log(kappa_)}};
}

void HyperboloidExpKernel::set_hyperparameters(const ConstVectorRef& values) {
  kernel_checks::require_hyperparameters(values, 2, "hyperboloid_exp");
  variance_ = std::exp(values[0]);
  kappa_ = std::exp(values[1]);
}

void HyperboloidExpKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  require_input_dim(X1, ambient_dim_, "X1");
  require_input_dim(X2, ambient_dim_, "X2");
  // Vectorised exp; SIMD exp clamps its argument near log(DBL_MIN) and returns a subnormal there on
  // some targets where IEEE exp gives 0, so arguments below that bound are 0 on every build.
  constexpr double kLogSmallestNormal = -708.0;
  K.resize(X1.rows(), X2.rows());
  for (Index first = 0; first < X1.rows(); first += kRowTile) {
    const Index t = std::min(kRowTile, X1.rows() - first);
    const Eigen::ArrayXXd exponent =
        -lorentz::pairwise_distances(X1.middleRows(first, t), X2).array() / kappa_;
    Matrix tile = variance_ * exponent.exp();  // vectorised (inside a select: one call per element)
    for (Index e = 0; e < tile.size(); ++e)
      if (exponent.data()[e] < kLogSmallestNormal) tile.data()[e] = 0.0;
    K.middleRows(first, t) = tile;
  }
}

void HyperboloidExpKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  require_input_dim(X, ambient_dim_, "X");
  k.setConstant(X.rows(), variance_);
}

void HyperboloidExpKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2,
                                          const ConstMatrixRef& K, const ConstMatrixRef& G, Matrix* dX1,
                                          Matrix* dX2, VectorRef d_hyper) const {
  require_input_dim(X1, ambient_dim_, "X1");
  require_input_dim(X2, ambient_dim_, "X2");
  // dk/dlog sigma = k; dk/dlog kappa = k d / kappa = -k log(k / sigma), read off the forward's K
  // (a vectorised log instead of a second arccosh per pair; its error is a rounding of log k, so
  // absolute in k d / kappa). Where k underflowed to 0 the clamp makes the term 0 rather than 0 * inf.
  const auto k = K.array();
  d_hyper[0] += (G.array() * k).sum();
  d_hyper[1] -= (G.array() * k * (k / variance_).cwiseMax(std::numeric_limits<double>::min()).log()).sum();
  if (!dX1 && !dX2) return;
  // Inputs: the file comment's tangent gradient summed over pairs,
  //   dX1_i = flip_time(sum_j c_ij (z_j - u_ij x_i)) = flip_time((C X2)_i - (sum_j c_ij u_ij) x_i),
  // c = G k / (kappa sinh d), and the same for X2 with C^T: two thin products instead of a vector
  // update per pair.
  for (Index first = 0; first < X1.rows(); first += kRowTile) {
    const Index t = std::min(kRowTile, X1.rows() - first);
    const auto X1_tile = X1.middleRows(first, t);
    const PairCoefficients p =
        pair_coefficients(X1_tile, X2, K.middleRows(first, t), G.middleRows(first, t), kappa_);
    if (dX1) {
      Matrix tile = Matrix::Zero(t, X1.cols());
      add_flipped(p.c * X2, p.cu.rowwise().sum(), X1_tile, tile);
      dX1->middleRows(first, t) += tile;
    }
    if (dX2) add_flipped(p.c.transpose() * X1_tile, p.cu.colwise().sum().transpose(), X2, *dX2);
  }
}

void HyperboloidExpKernel::diagonal_backward(const ConstMatrixRef&, const Vector& g, Matrix*,
                                             VectorRef d_hyper) const {
  d_hyper[0] += variance_ * g.sum();  // k(x, x) = sigma: no input or kappa dependence
}

void HyperboloidExpKernel::psi_statistics(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                                          PsiStatistics&) const {
  psi_not_supported();
}

void HyperboloidExpKernel::psi_backward(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                                        const PsiStatistics&, double, const ConstMatrixRef&,
                                        const ConstMatrixRef&, Matrix*, Matrix*, Matrix*, VectorRef) const {
  psi_not_supported();
}

Matrix HyperboloidExpKernel::gradient_covariance(const ConstMatrixRef& x) const {
  // exp(-d / kappa) has a cusp at d = 0: the GP is continuous but nowhere differentiable, so its
  // Jacobian (and the metric built from it) does not exist.
  throw InputError(
      "the kernel 'hyperboloid_exp' has a cusp at x = x' (a Laplacian kernel of the geodesic "
      "distance): a GP with it has no derivative, so the Jacobian of its predictive mean does "
      "not exist",
      {"", "model.kernel", name()});
}

}  // namespace gplvm
