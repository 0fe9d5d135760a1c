#pragma once
// Riemannian Adam for the free points of a model on a curved latent space
// (Model::curved_point_space(): the first ambient_dim() columns of its local block rows) inside
// the minibatch trainer, beside the sharded Adam that moves every other parameter.
//
// The points' gradient is taken out of the flat gradient before sharded Adam sees it, so their
// Euclidean moments stay zero and sharded Adam leaves them where they are (a zero gradient with
// zero moments is a zero step). Those otherwise unused point columns of the flat AdamState are
// where the Riemannian moments travel (checkpoints, rollbacks): the first moment in the first
// moment's point columns, each point's scalar second moment in the first point column of the
// second moment. So a checkpoint holds them in global row order and resumes at any rank count
// with no dataset of its own.
#include "gplvm/model/latent_space.hpp"
#include "gplvm/models/latent_space_manifold.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/optim/riemannian_adam.hpp"

namespace gplvm {

class PointRowsAdam {
 public:
  // model.curved_point_space() must be non-null; the model must outlive this.
  PointRowsAdam(const Model& model, AdamOptions options);

  // Moves the Riemannian moments out of `state`'s point columns into the optimiser (zeroing them
  // there for sharded Adam); the step count is state.steps.
  void take_moments(AdamState& state);
  // Writes the optimiser's moments into `state`'s point columns.
  void put_moments(AdamState& state) const;

  // Removes the points' ambient gradient from `gradient` (zeroes it there) and returns it.
  Matrix take_gradient(Vector& gradient) const;
  // One Riemannian Adam step of this rank's points in `params`, with the ambient gradient times
  // gradient_scale (the trainer's clipping).
  void ascend(Vector& params, const Matrix& point_gradient, double gradient_scale);
  void set_learning_rate(double learning_rate) { adam_.set_learning_rate(learning_rate); }

 private:
  const Model& model_;
  LatentSpaceManifold manifold_;
  Index point_cols_;
  RiemannianAdam adam_;
};

}  // namespace gplvm
