#include "gplvm/train/point_rows_adam.hpp"

#include <utility>

namespace gplvm {

PointRowsAdam::PointRowsAdam(const Model& model, AdamOptions options)
    : model_(model),
      manifold_(*model.curved_point_space()),
      point_cols_(model.curved_point_space()->ambient_dim()),
      shared_(model.curved_shared_points()),
      adam_(manifold_, static_cast<Index>(model.local_rows()), options),
      shared_adam_(manifold_, shared_.rows, options) {}

void PointRowsAdam::set_learning_rate(double learning_rate) {
  adam_.set_learning_rate(learning_rate);
  shared_adam_.set_learning_rate(learning_rate);
}

void PointRowsAdam::take_moments(AdamState& state) {
  RowMatrix first = model_.local_block_rows(state.first_moment);
  RowMatrix second = model_.local_block_rows(state.second_moment);
  Matrix point_first = first.leftCols(point_cols_);
  Vector point_second = second.col(0);
  adam_.set_state(std::move(point_first), std::move(point_second), state.steps);
  first.leftCols(point_cols_).setZero();
  second.leftCols(point_cols_).setZero();
  model_.set_local_block_rows(state.first_moment, first);
  model_.set_local_block_rows(state.second_moment, second);
  const Index m = shared_.rows, size = m * point_cols_;
  Eigen::Map<Matrix> shared_first(state.first_moment.data() + shared_.offset, m, point_cols_);
  Eigen::Map<Matrix> shared_second(state.second_moment.data() + shared_.offset, m, point_cols_);
  shared_adam_.set_state(shared_first, shared_second.col(0), state.steps);
  state.first_moment.segment(shared_.offset, size).setZero();
  state.second_moment.segment(shared_.offset, size).setZero();
}

void PointRowsAdam::put_moments(AdamState& state) const {
  RowMatrix first = model_.local_block_rows(state.first_moment);
  RowMatrix second = model_.local_block_rows(state.second_moment);
  first.leftCols(point_cols_) = adam_.first_moment();
  second.leftCols(point_cols_).setZero();
  second.col(0) = adam_.second_moment();
  model_.set_local_block_rows(state.first_moment, first);
  model_.set_local_block_rows(state.second_moment, second);
  const Index m = shared_.rows;
  Eigen::Map<Matrix> shared_first(state.first_moment.data() + shared_.offset, m, point_cols_);
  Eigen::Map<Matrix> shared_second(state.second_moment.data() + shared_.offset, m, point_cols_);
  shared_first = shared_adam_.first_moment();
  shared_second.setZero();
  shared_second.col(0) = shared_adam_.second_moment();
}

PointRowsAdam::PointGradient PointRowsAdam::take_gradient(Vector& gradient) const {
  PointGradient out;
  RowMatrix rows = model_.local_block_rows(gradient);
  out.local = rows.leftCols(point_cols_);
  rows.leftCols(point_cols_).setZero();
  model_.set_local_block_rows(gradient, rows);
  Eigen::Map<Matrix> shared(gradient.data() + shared_.offset, shared_.rows, point_cols_);
  out.shared = shared;
  shared.setZero();
  return out;
}

void PointRowsAdam::ascend(Vector& params, const PointGradient& point_gradient, double gradient_scale) {
  RowMatrix rows = model_.local_block_rows(params);
  Matrix points = rows.leftCols(point_cols_);
  adam_.ascend(points, gradient_scale * point_gradient.local);
  rows.leftCols(point_cols_) = points;
  model_.set_local_block_rows(params, rows);
  if (shared_.rows == 0) return;
  Eigen::Map<Matrix> shared(params.data() + shared_.offset, shared_.rows, point_cols_);
  Matrix shared_points = shared;
  shared_adam_.ascend(shared_points, gradient_scale * point_gradient.shared);
  shared = shared_points;
}

}  // namespace gplvm
