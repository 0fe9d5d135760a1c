#pragma once
// Riemannian Adam (Becigneul & Ganea, "Riemannian adaptive optimization methods", ICLR 2019) for
// point parameters on a manifold, one point per row. For an objective f that is maximised:
//   g = grad f(x)                                  (Riemannian gradient, tangent at x)
//   m <- b1 m + (1 - b1) g,   v <- b2 v + (1 - b2) |g|_x^2      (v: one value per point)
//   x' = Exp_x(lr m_hat / (sqrt(v_hat) + eps)),   m <- PT_{x -> x'}(m)
// with Adam's bias corrections m_hat = m / (1 - b1^t), v_hat = v / (1 - b2^t). The first moment
// is a tangent vector at the current point and moves with it by parallel transport, so it is
// never added to a vector of another tangent space; the second moment is a scalar per point, as
// a manifold has no coordinates to keep per-coordinate moments in. On a one-dimensional Euclidean
// manifold this is Adam. Only point blocks use it; every other parameter keeps (sharded) Adam.
#include "gplvm/core/types.hpp"
#include "gplvm/manifold/manifold.hpp"
#include "gplvm/optim/adam.hpp"

namespace gplvm {

class RiemannianAdam {
 public:
  // The manifold must outlive the optimiser.
  RiemannianAdam(const Manifold& manifold, Index num_points, AdamOptions options);

  // One ascent step of every point (rows of `points`, on the manifold) given the ambient gradient
  // of the objective at them.
  void ascend(MatrixRef points, const ConstMatrixRef& objective_gradient);
  void set_learning_rate(double learning_rate);  // finite and >= 0
  // Restores moments and step count as the accessors below returned them (a checkpoint, a
  // rollback); the first moment must be tangent at the points it will be applied to.
  void set_state(Matrix first_moment, Vector second_moment, std::int64_t steps);

  const Matrix& first_moment() const noexcept { return first_moment_; }  // tangent at each point
  const Vector& second_moment() const noexcept { return second_moment_; }
  std::int64_t steps() const noexcept { return steps_; }

 private:
  const Manifold& manifold_;
  AdamOptions options_;
  Matrix first_moment_;
  Vector second_moment_;
  std::int64_t steps_ = 0;
  // Work space of ascend, kept between steps so that a step allocates nothing.
  Matrix gradient_, step_, before_;
};

}  // namespace gplvm
