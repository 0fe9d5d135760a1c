#pragma once
// The chart of a constant-basepoint wrapped model: an output manifold, a basepoint mu (the
// training data's Fréchet mean) and an orthonormal basis B of T_mu. Data points map to tangent
// coordinates c = [Log_mu(p)]_B (the numbers a GP models) and coordinates back to points by
// Exp_mu(B c) (docs/math/wrapped_gplvm.md).
#include <memory>

#include "gplvm/manifold/manifold.hpp"

namespace gplvm {

struct TangentChart {
  std::shared_ptr<const Manifold> manifold;
  Vector basepoint;  // ambient_dim numbers, canonical
  Matrix basis;      // ambient_dim x intrinsic_dim, tangent_basis(basepoint)

  // The chart at the Fréchet mean of the rows (all training rows; every rank the same rows).
  static TangentChart at_frechet_mean(std::shared_ptr<const Manifold> manifold, const DataRef& rows,
                                      const FrechetMeanOptions& options = {});
  // The chart at a given basepoint with its tangent basis.
  static TangentChart at(std::shared_ptr<const Manifold> manifold, const ConstVectorRef& basepoint);

  // rows (n x ambient_dim) -> tangent coordinates (n x intrinsic_dim).
  RowMatrix coordinates(const DataRef& rows) const;
  // Tangent coordinates (n x intrinsic_dim) -> points on the manifold (n x ambient_dim).
  RowMatrix points(const DataRef& coordinates) const;
};

}  // namespace gplvm
