#pragma once
// Riemannian Adam for the free points of a model on a curved latent space
// (Model::curved_point_space(): the first ambient_dim() columns of its local block rows, and the
// replicated points of Model::curved_shared_points(), e.g. inducing inputs) inside the minibatch
// trainer, beside the sharded Adam that moves every other parameter.
//
// The points' gradient is taken out of the flat gradient before sharded Adam sees it, so their
// Euclidean moments stay zero and sharded Adam leaves them where they are (a zero gradient with
// zero moments is a zero step). Those otherwise unused point entries of the flat AdamState are
// where the Riemannian moments travel (checkpoints, rollbacks): the first moment in the first
// moment's point entries, each point's scalar second moment in the first coordinate's entries of
// the second moment (the first point column of a local row; the first column of the column-major
// shared points). So a checkpoint holds them in global row order and resumes at any rank count
// with no dataset of its own. The shared points' gradient is the reduced one, the same on every
// rank, so every rank takes the same step.
#include "gplvm/model/latent_space.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/optim/riemannian_adam.hpp"

namespace gplvm {

class PointRowsAdam {
 public:
  // model.curved_point_space() must be non-null; the model must outlive this.
  PointRowsAdam(const Model& model, AdamOptions options);

  // Moves the Riemannian moments out of `state`'s point entries into the optimisers (zeroing them
  // there for sharded Adam); the step count is state.steps.
  void take_moments(AdamState& state);
  // Writes the optimisers' moments into `state`'s point entries.
  void put_moments(AdamState& state) const;

  // The ambient gradients of this rank's points (rows) and of the shared points.
  struct PointGradient {
    Matrix local;
    Matrix shared;
  };
  // Removes the points' ambient gradient from `gradient` (zeroes it there) and returns it.
  PointGradient take_gradient(Vector& gradient) const;
  // One Riemannian Adam step of this rank's points and of the shared points in `params`, with the
  // ambient gradient times gradient_scale (the trainer's clipping).
  void ascend(Vector& params, const PointGradient& point_gradient, double gradient_scale);
  void set_learning_rate(double learning_rate);

 private:
  // This rank's points in `values`: the model's row-major block, read and written in place.
  Eigen::Map<RowMatrix> local_points(Vector& values) const;

  const Model& model_;
  const Manifold& manifold_;  // the curved point space's
  Index point_cols_;
  Index local_offset_;
  Model::SharedPoints shared_;
  RiemannianAdam adam_;
  RiemannianAdam shared_adam_;
  // Column-major work copies of the points and their scaled gradient (the latent space's maps take
  // column-major blocks), kept between steps so that a step allocates nothing for them.
  Matrix points_, scaled_gradient_;
};

}  // namespace gplvm
