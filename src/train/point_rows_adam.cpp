#include "gplvm/train/point_rows_adam.hpp"

#include <utility>

namespace gplvm {

PointRowsAdam::PointRowsAdam(const Model& model, AdamOptions options)
    : model_(model),
      manifold_(*model.curved_point_space()),
      point_cols_(model.curved_point_space()->ambient_dim()),
      adam_(manifold_, static_cast<Index>(model.local_rows()), options) {}

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
}

void PointRowsAdam::put_moments(AdamState& state) const {
  RowMatrix first = model_.local_block_rows(state.first_moment);
  RowMatrix second = model_.local_block_rows(state.second_moment);
  first.leftCols(point_cols_) = adam_.first_moment();
  second.leftCols(point_cols_).setZero();
  second.col(0) = adam_.second_moment();
  model_.set_local_block_rows(state.first_moment, first);
  model_.set_local_block_rows(state.second_moment, second);
}

Matrix PointRowsAdam::take_gradient(Vector& gradient) const {
  RowMatrix rows = model_.local_block_rows(gradient);
  Matrix points = rows.leftCols(point_cols_);
  rows.leftCols(point_cols_).setZero();
  model_.set_local_block_rows(gradient, rows);
  return points;
}

void PointRowsAdam::ascend(Vector& params, const Matrix& point_gradient, double gradient_scale) {
  RowMatrix rows = model_.local_block_rows(params);
  Matrix points = rows.leftCols(point_cols_);
  adam_.ascend(points, gradient_scale * point_gradient);
  rows.leftCols(point_cols_) = points;
  model_.set_local_block_rows(params, rows);
}

}  // namespace gplvm
