#include "gplvm/train/point_rows_adam.hpp"

#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

PointRowsAdam::PointRowsAdam(const Model& model, AdamOptions options)
    : model_(model),
      manifold_(model.curved_point_space()->manifold()),
      point_cols_(model.curved_point_space()->ambient_dim()),
      local_offset_(model.curved_local_points_offset()),
      shared_(model.curved_shared_points()),
      adam_(manifold_, static_cast<Index>(model.local_rows()), options),
      shared_adam_(manifold_, shared_.rows, options) {
  require(local_offset_ >= 0, "minibatch Riemannian Adam needs the model's points as one block",
          {"", "model.kind", model.kind()});
}

Eigen::Map<RowMatrix> PointRowsAdam::local_points(Vector& values) const {
  return {values.data() + local_offset_, static_cast<Index>(model_.local_rows()), point_cols_};
}

void PointRowsAdam::set_learning_rate(double learning_rate) {
  adam_.set_learning_rate(learning_rate);
  shared_adam_.set_learning_rate(learning_rate);
}

void PointRowsAdam::take_moments(AdamState& state) {
  Eigen::Map<RowMatrix> first = local_points(state.first_moment);
  Eigen::Map<RowMatrix> second = local_points(state.second_moment);
  adam_.set_state(Matrix(first), Vector(second.col(0)), state.steps);
  first.setZero();
  second.setZero();
  const Index m = shared_.rows, size = m * point_cols_;
  Eigen::Map<Matrix> shared_first(state.first_moment.data() + shared_.offset, m, point_cols_);
  Eigen::Map<Matrix> shared_second(state.second_moment.data() + shared_.offset, m, point_cols_);
  shared_adam_.set_state(shared_first, shared_second.col(0), state.steps);
  state.first_moment.segment(shared_.offset, size).setZero();
  state.second_moment.segment(shared_.offset, size).setZero();
}

void PointRowsAdam::put_moments(AdamState& state) const {
  Eigen::Map<RowMatrix> first = local_points(state.first_moment);
  Eigen::Map<RowMatrix> second = local_points(state.second_moment);
  first = adam_.first_moment();
  second.setZero();
  second.col(0) = adam_.second_moment();
  const Index m = shared_.rows;
  Eigen::Map<Matrix> shared_first(state.first_moment.data() + shared_.offset, m, point_cols_);
  Eigen::Map<Matrix> shared_second(state.second_moment.data() + shared_.offset, m, point_cols_);
  shared_first = shared_adam_.first_moment();
  shared_second.setZero();
  shared_second.col(0) = shared_adam_.second_moment();
}

PointRowsAdam::PointGradient PointRowsAdam::take_gradient(Vector& gradient) const {
  PointGradient out;
  Eigen::Map<RowMatrix> local = local_points(gradient);
  out.local = local;
  local.setZero();
  Eigen::Map<Matrix> shared(gradient.data() + shared_.offset, shared_.rows, point_cols_);
  out.shared = shared;
  shared.setZero();
  return out;
}

void PointRowsAdam::ascend(Vector& params, const PointGradient& point_gradient, double gradient_scale) {
  Eigen::Map<RowMatrix> local = local_points(params);
  points_ = local;
  scaled_gradient_ = gradient_scale * point_gradient.local;
  adam_.ascend(points_, scaled_gradient_);
  local = points_;
  if (shared_.rows == 0) return;
  Eigen::Map<Matrix> shared(params.data() + shared_.offset, shared_.rows, point_cols_);
  points_ = shared;
  scaled_gradient_ = gradient_scale * point_gradient.shared;
  shared_adam_.ascend(points_, scaled_gradient_);
  shared = points_;
}

}  // namespace gplvm
