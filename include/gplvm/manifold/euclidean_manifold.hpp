#pragma once
// R^n with the standard metric: every map is the identity or a straight line, so latents and data
// on it cost nothing beyond the plain Euclidean formulas. The one flat manifold (is_curved() is
// false): Euclidean data need no tangent chart, and Euclidean latents move by plain steps.
#include "gplvm/manifold/manifold.hpp"

namespace gplvm {

// The name of R^n as a latent space and as an output space: the default of model.latent_space and
// model.output_space, and the input domain of most kernels.
inline constexpr const char* kEuclideanSpace = "euclidean";

class EuclideanManifold final : public Manifold {
 public:
  explicit EuclideanManifold(Index dim);  // n >= 1

  std::string name() const override { return kEuclideanSpace; }
  std::string description() const override { return "R^n, the numbers as they are"; }
  Index ambient_dim() const override { return dim_; }
  Index intrinsic_dim() const override { return dim_; }
  bool is_curved() const override { return false; }
  std::string tangent_basis_description() const override { return "the standard basis of R^n"; }

  // Points are the finite vectors.
  std::string off_manifold_reason(const ConstVectorRef& q, double tolerance) const override;
  Index first_row_outside(const ConstMatrixRef& X, double tolerance) const override;
  Vector canonical(const ConstVectorRef& q) const override { return q; }
  Vector project(const ConstVectorRef& y) const override { return y; }

  Vector exp(const ConstVectorRef& p, const ConstVectorRef& v) const override { return p + v; }
  Vector log(const ConstVectorRef& p, const ConstVectorRef& q) const override { return q - p; }
  double distance(const ConstVectorRef& p, const ConstVectorRef& q) const override { return (p - q).norm(); }
  Matrix distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const override;
  // Tangent spaces of R^n are all R^n: transport is the identity.
  Vector parallel_transport(const ConstVectorRef&, const ConstVectorRef&,
                            const ConstVectorRef& v) const override {
    return v;
  }

  Matrix tangent_basis(const ConstVectorRef&) const override { return Matrix::Identity(dim_, dim_); }
  Vector riemannian_gradient_at(const ConstVectorRef&, const ConstVectorRef& g) const override { return g; }

  void riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const override;
  void retract(MatrixRef X, const ConstMatrixRef& step) const override;
  Vector tangent_squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const override;
  void transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const override;

  // The arithmetic mean (closed form, no iteration).
  FrechetMean frechet_mean(const DataRef& points, const FrechetMeanOptions& options = {}) const override;

 protected:
  Vector initial_mean(const DataRef& points) const override;

 private:
  Index dim_;
};

}  // namespace gplvm
