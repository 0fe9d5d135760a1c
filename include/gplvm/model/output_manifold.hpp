#pragma once
// Riemannian manifolds the data live on (the output side of a wrapped GPLVM; docs/math/manifolds.md).
//
// A point is one stored data row: data_dim() numbers in the layout of point_shape() (C order), e.g.
// a unit vector in R^{n+1}, k landmarks (x1, y1, ..., xk, yk) or an n x n matrix. Tangent vectors
// are given in the same ambient coordinates. Each manifold has an orthonormal tangent basis at a
// point, through which a tangent vector becomes intrinsic_dim() coordinates, the numbers a GP models.
// Latent-side geometry (model/latent_space.hpp, model/lorentz_geometry.hpp) is a separate concept.
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

// The relative eigenvalue floor of the projection onto SPD(n): the nearest SPD matrix in the
// Frobenius norm has no positive floor (it may be singular), so eigenvalues are clipped to this
// fraction of the largest |eigenvalue|, which keeps the result inside SPD(n) by the membership check.
inline constexpr double kSpdProjectionFloor = 1e-6;

struct FrechetMeanOptions {
  double tolerance = 1e-10;  // stop when |mean_i Log_mu(p_i)|_mu <= tolerance
  int max_iterations = 100;  // NumericalError when the iteration has not converged by then
};

struct FrechetMean {
  Vector point;
  int iterations = 0;          // Karcher steps taken (0 for a closed form)
  double gradient_norm = 0.0;  // |mean_i Log_mu(p_i)|_mu at the returned point
};

class OutputManifold {
 public:
  virtual ~OutputManifold() = default;

  virtual std::string name() const = 0;  // the model.output_space value
  virtual Index data_dim() const = 0;    // numbers per stored point
  virtual Index intrinsic_dim() const = 0;
  // The shape of one point in a data set (/Y is N x point_shape()).
  virtual std::vector<std::uint64_t> point_shape() const = 0;

  // Empty when q is a point of the manifold within `tolerance`; otherwise why not, with the numbers.
  virtual std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const = 0;
  // The representative the maps work with (Kendall: the pre-shape; SPD: the symmetric part).
  virtual Vector canonical(const ConstVectorRef& q) const { return q; }

  virtual Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const = 0;
  // The minimal-norm tangent vector at p with Exp_p(v) = q (on the cut locus: one of them).
  virtual Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const = 0;
  virtual double distance(const ConstVectorRef& p, const ConstVectorRef& q) const = 0;
  // The Euclidean distance between two points in the ambient coordinates they are stored in: the
  // chord |p - q| on the sphere, the Frobenius norm |P - Q|_F for SPD; for Kendall the chord
  // between the pre-shapes after rotating q onto p (partial Procrustes distance).
  virtual double ambient_distance(const ConstVectorRef& p, const ConstVectorRef& q) const;
  // The point of the manifold nearest to an ambient vector y (how a Euclidean model's prediction is
  // put on the manifold): sphere y/|y|; Kendall the pre-shape (centred, normalised; rotation is
  // immaterial, as every distance aligns); SPD the symmetric part with its eigenvalues clipped
  // below at kSpdProjectionFloor times the largest |eigenvalue|. NumericalError when y has no
  // nearest point (zero vector, coincident landmarks, zero matrix).
  virtual Vector project(const ConstVectorRef& y) const = 0;
  // The Riemannian metric at p (Euclidean in ambient coordinates unless overridden).
  double inner(const ConstVectorRef& p, const ConstVectorRef& u, const ConstVectorRef& v) const;
  double norm(const ConstVectorRef& p, const ConstVectorRef& v) const;

  // data_dim x intrinsic_dim: columns orthonormal in the metric at p, spanning T_p (for Kendall
  // the horizontal space). Deterministic in p.
  virtual Matrix tangent_basis(const ConstVectorRef& p) const = 0;
  // Coordinates <B_a, v>_p of a tangent vector at p in the basis B = tangent_basis(p), and back.
  Vector to_coordinates(const ConstVectorRef& p, const ConstMatrixRef& basis, const ConstVectorRef& v) const;
  Vector from_coordinates(const ConstMatrixRef& basis, const ConstVectorRef& coordinates) const;

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

// The known output spaces besides "euclidean".
const std::vector<std::string>& output_manifold_names();
// The manifold named by a model.output_space value for points of data_dim numbers (sphere: n + 1;
// kendall: 2k; spd_*: n^2). InputError naming `key` when the name is unknown or the width does
// not fit the manifold.
std::unique_ptr<OutputManifold> make_output_manifold(const std::string& name, Index data_dim,
                                                     const std::string& key = "model.output_space");

// Index of the first row that is not on the manifold within tolerance, with the reason; -1 if all are.
struct OffManifoldRow {
  Index row = -1;
  std::string reason;
};
OffManifoldRow first_off_manifold_row(const OutputManifold& manifold, const DataRef& rows, double tolerance);

}  // namespace gplvm
