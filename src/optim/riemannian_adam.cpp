#include "gplvm/optim/riemannian_adam.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "gplvm/core/error.hpp"

namespace gplvm {

RiemannianAdam::RiemannianAdam(const Manifold& manifold, Index num_points, AdamOptions options)
    : manifold_(manifold),
      options_(options),
      first_moment_(Matrix::Zero(num_points, manifold.ambient_dim())),
      second_moment_(Vector::Zero(num_points)) {
  validate_adam_options(options);
}

void RiemannianAdam::set_learning_rate(double learning_rate) {
  require(std::isfinite(learning_rate) && learning_rate >= 0.0, "learning rate must be finite and >= 0",
          {"", "learning_rate", std::to_string(learning_rate)});
  options_.learning_rate = learning_rate;
}

void RiemannianAdam::set_state(Matrix first_moment, Vector second_moment, std::int64_t steps) {
  require(
      first_moment.rows() == first_moment_.rows() && first_moment.cols() == first_moment_.cols() &&
          second_moment.size() == second_moment_.size() && steps >= 0,
      "Riemannian Adam: moments must be num_points x point_dim and num_points",
      {"", "first_moment", std::to_string(first_moment.rows()) + "x" + std::to_string(first_moment.cols())});
  first_moment_ = std::move(first_moment);
  second_moment_ = std::move(second_moment);
  steps_ = steps;
}

void RiemannianAdam::ascend(MatrixRef points, const ConstMatrixRef& objective_gradient) {
  require(points.rows() == first_moment_.rows() && points.cols() == first_moment_.cols() &&
              objective_gradient.rows() == points.rows() && objective_gradient.cols() == points.cols(),
          "Riemannian Adam: points and gradient must be num_points x point_dim",
          {"", "points", std::to_string(points.rows()) + "x" + std::to_string(points.cols())});
  const double b1 = options_.beta1, b2 = options_.beta2;
  gradient_ = objective_gradient;
  manifold_.riemannian_gradient(points, gradient_);
  first_moment_ = b1 * first_moment_ + (1.0 - b1) * gradient_;
  second_moment_ = b2 * second_moment_ + (1.0 - b2) * manifold_.tangent_squared_norms(points, gradient_);
  ++steps_;
  const double correction1 = 1.0 - std::pow(b1, static_cast<double>(steps_));
  const double correction2 = 1.0 - std::pow(b2, static_cast<double>(steps_));
  step_.resize(points.rows(), points.cols());
  for (Index n = 0; n < points.rows(); ++n) {
    const double scale = options_.learning_rate / correction1 /
                         (std::sqrt(second_moment_[n] / correction2) + options_.epsilon);
    step_.row(n) = scale * first_moment_.row(n);
  }
  before_ = points;
  manifold_.retract(points, step_);
  manifold_.transport(before_, points, first_moment_);
}

}  // namespace gplvm
