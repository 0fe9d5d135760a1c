#pragma once
// Pre-training of an amortised mean encoder to given target latents (model.encoder_pretrain_steps;
// docs/math/initialisation.md): Adam on the regression loss
//   L(w) = 1/(2B) sum_{n in batch} || f_w(y_n) - z_n ||^2
// over batches of B rows, data-parallel: each rank forms the gradient of its own batch rows, one
// allreduce sums it, and every rank takes the same Adam step (or, with reproducible_sums, per-block
// gradients summed exactly).
//
// Batches are consecutive slices of a keyed permutation of all N rows (a seed derived from the
// run's; epoch), as training's are, so the batches and hence the weights do not depend on the rank count
// beyond rounding.
#include <cstdint>

#include "gplvm/core/types.hpp"
#include "gplvm/model/mlp.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

struct EncoderPretraining {
  Index steps = 0;
  Index batch_size = 1024;  // at most N
  AdamOptions adam;
  std::uint64_t seed = 0;
  // The model's train.reproducible (set by the model from its own flag): each batch is cut into blocks of 64
  // positions (batch_block_workers), the rows and their targets move to the blocks' workers, and the blocks'
  // gradients are added exactly (parallel/reproducible_sum.hpp), so the weights are the same bits at any rank
  // count.
  bool reproducible_sums = false;
};

struct PretrainingLoss {
  double before = 0, after = 0;  // L over all N rows at the initial and final weights
};

// Fits weights (encoder.num_parameters(), updated in place) so that encoder(local rows) matches
// local_targets (this rank's rows x output dim). Collective.
PretrainingLoss pretrain_encoder(const Mlp& encoder, double* weights, const Communicator& comm,
                                 const RowPartition& partition, const LocalRows& local_rows,
                                 const Matrix& local_targets, const EncoderPretraining& options);

// L over all N rows (1/(2N) sum_n ||f_w(y_n) - z_n||^2). Collective.
double encoder_regression_loss(const Mlp& encoder, const double* weights, const Communicator& comm,
                               const RowPartition& partition, const LocalRows& local_rows,
                               const Matrix& local_targets);

}  // namespace gplvm
