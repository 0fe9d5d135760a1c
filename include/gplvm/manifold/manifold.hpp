#pragma once
// A Riemannian manifold of stored points: the one geometry layer under the latent spaces
// (model/latent_space.hpp), the output spaces of the wrapped GPLVM (manifold_registry.hpp) and the
// Riemannian optimisers (optim/riemannian_adam.hpp, train/), with one implementation per manifold
// (euclidean, lorentz, sphere, kendall, spd_affine, spd_log_euclidean; docs/math/manifolds.md).
//
// A point is ambient_dim() numbers in the layout of point_shape() (C order), e.g. a unit vector in
// R^{n+1}, k landmarks (x1, y1, ..., xk, yk) or an n x n matrix; a block of points is a matrix with
// one point per row. Tangent vectors are given in the same ambient coordinates. Each manifold has an
// orthonormal tangent basis at a point, through which a tangent vector becomes intrinsic_dim()
// coordinates, the numbers a GP models.
//
// Two kinds of operations, each implemented once per manifold:
//   - per point (vector in, vector out): exp, log, distance, parallel_transport, tangent_basis,
//     riemannian_gradient_at, project, canonical, the metric; what charts, Fréchet means and
//     tests call;
//   - per row block (matrices in place): first_row_outside, distances, riemannian_gradient,
//     retract, tangent_squared_norms, transport; what optimisers call for every point at every
//     step. By default these loop over the per-point ones; the latent manifolds (euclidean,
//     lorentz, sphere) override them with column-vectorised forms whose bits training depends on.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

struct FrechetMeanOptions {
  double tolerance = 1e-10;  // stop when |mean_i Log_mu(p_i)|_mu <= tolerance
  int max_iterations = 100;  // NumericalError when the iteration has not converged by then
};

struct FrechetMean {
  Vector point;
  int iterations = 0;          // Karcher steps taken (0 for a closed form)
  double gradient_norm = 0.0;  // |mean_i Log_mu(p_i)|_mu at the returned point
};

class Manifold {
 public:
  virtual ~Manifold() = default;

  // The registered name (model.latent_space or model.output_space value).
  virtual std::string name() const = 0;
  // What the points are, in a few words for help texts (e.g. "unit vectors of R^{n+1}").
  virtual std::string description() const = 0;
  virtual Index ambient_dim() const = 0;  // numbers per stored point
  virtual Index intrinsic_dim() const = 0;
  // The shape of one point in a data set (/Y is N x point_shape()); a vector by default.
  virtual std::vector<std::uint64_t> point_shape() const {
    return {static_cast<std::uint64_t>(ambient_dim())};
  }
  // Curved: points move by Riemannian steps (exp, transport) and data on it are modelled through a
  // tangent chart; R^n in its own coordinates is the one flat manifold.
  virtual bool is_curved() const { return true; }
  // The set of points, shared by the metrics on the same points (both SPD(n) metrics): data
  // labelled with one manifold fit another of the same point set. By default the name.
  virtual std::string point_set() const { return name(); }
  // How tangent_basis builds its columns, for the run file's chart (one line of text).
  virtual std::string tangent_basis_description() const = 0;

  // ---- Points ----
  // Empty when q is a point of the manifold within `tolerance`; otherwise why not, with the numbers.
  virtual std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const = 0;
  // The first row of X (n x ambient) that is not a point within `tolerance`, or -1 when every row
  // is one; a block of the wrong width has none (0, or -1 when empty).
  virtual Index first_row_outside(const ConstMatrixRef& X, double tolerance) const;
  // The representative the maps work with (Kendall: the pre-shape; SPD: the symmetric part).
  virtual Vector canonical(const ConstVectorRef& q) const { return q; }
  // The point of the manifold nearest to an ambient vector y (how a Euclidean model's prediction
  // is put on the manifold). NumericalError when y has no nearest point.
  virtual Vector project(const ConstVectorRef& y) const = 0;

  // ---- Geodesics ----
  virtual Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const = 0;
  // The minimal-norm tangent vector at p with Exp_p(v) = q (on the cut locus: one of them).
  virtual Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const = 0;
  virtual double distance(const ConstVectorRef& p, const ConstVectorRef& q) const = 0;
  // Geodesic distances between the rows of A and of B: |A| x |B|.
  virtual Matrix distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const;
  // The Euclidean distance between two points in the ambient coordinates they are stored in (for
  // Kendall after rotating q onto p: the partial Procrustes distance).
  virtual double ambient_distance(const ConstVectorRef& p, const ConstVectorRef& q) const;
  // A tangent vector v at `from` moved to `to` along their minimising geodesic, keeping its length
  // and its angles with every other transported vector.
  virtual Vector parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                                    const ConstVectorRef& v) const = 0;

  // ---- Tangent spaces ----
  // The Riemannian metric at p.
  double inner(const ConstVectorRef& p, const ConstVectorRef& u, const ConstVectorRef& v) const;
  double norm(const ConstVectorRef& p, const ConstVectorRef& v) const;
  // ambient_dim x intrinsic_dim: columns orthonormal in the metric at p, spanning T_p (for Kendall
  // the horizontal space). Deterministic in p.
  virtual Matrix tangent_basis(const ConstVectorRef& p) const = 0;
  // Coordinates <B_a, v>_p of a tangent vector at p in the basis B = tangent_basis(p), and back.
  Vector to_coordinates(const ConstVectorRef& p, const ConstMatrixRef& basis, const ConstVectorRef& v) const;
  Vector from_coordinates(const ConstMatrixRef& basis, const ConstVectorRef& coordinates) const;
  // The Riemannian gradient at p of a function whose ambient (Euclidean) gradient is g: the tangent
  // vector r with <r, v>_p = g . v for every tangent v.
  virtual Vector riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const = 0;

  // ---- Row blocks (optimisers) ----
  // In place, each row: the ambient gradient G at X becomes the Riemannian gradient.
  virtual void riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const;
  // In place, each row: x <- Exp_x(step), staying on the manifold.
  virtual void retract(MatrixRef X, const ConstMatrixRef& step) const;
  // |v_n|^2 in the metric at x_n, for each row n.
  virtual Vector tangent_squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const;
  // In place, each row: v <- the parallel transport of v from the row of `from` to that of `to`.
  virtual void transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const;
  // For the hGP-LVM paper's optimiser, which clips each point's gradient: the length of each row's
  // gradient in the manifold's chart, from the ambient gradient G at X (exact along tangent
  // directions). By default the length of the Riemannian gradient; the hyperboloid's chart is its
  // spatial coordinates.
  virtual Vector chart_gradient_norms(const ConstMatrixRef& X, const ConstMatrixRef& G) const;

  // ---- Means ----
  // The Fréchet (Karcher) mean of the rows: mu <- Exp_mu(mean_i Log_mu(p_i)) from initial_mean
  // until the mean log is below tolerance; NumericalError naming the gradient norm otherwise.
  // Manifolds with a closed form override it.
  virtual FrechetMean frechet_mean(const DataRef& points, const FrechetMeanOptions& options = {}) const;

 protected:
  // The metric as a map from vectors to covectors: inner(p, u, v) = u . lower_index(p, v).
  virtual Vector lower_index(const ConstVectorRef& p, const ConstVectorRef& v) const { return v; }
  // The Karcher iteration's start.
  virtual Vector initial_mean(const DataRef& points) const = 0;
};

// Index of the first row that is not on the manifold within tolerance, with the reason; -1 if all are.
struct OffManifoldRow {
  Index row = -1;
  std::string reason;
};
OffManifoldRow first_off_manifold_row(const Manifold& manifold, const DataRef& rows, double tolerance);

}  // namespace gplvm
