#include "gplvm/models/encoder_pretraining.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/keyed_permutation.hpp"
#include "gplvm/models/batch_row_exchange.hpp"
#include "gplvm/models/batch_workers.hpp"
#include "gplvm/parallel/reproducible_sum.hpp"

namespace gplvm {
namespace {

// Pre-training draws its batches from permutations keyed by the seed offset by this constant, so
// they are not the training run's first batches.
constexpr std::uint64_t kPretrainingSeedOffset = 0x9E3779B97F4A7C15ull;
constexpr Index kLossChunk = 4096;  // rows per encoder pass when forming the full-data loss

// Rows [begin, begin + count) of this rank's block, widened to float64.
RowMatrix local_block(const LocalRows& local_rows, Index begin, Index count) {
  if (const DataRef* rows = std::get_if<DataRef>(&local_rows)) return rows->middleRows(begin, count);
  return std::get<DataRefF>(local_rows).middleRows(begin, count).cast<double>();
}

RowMatrix gather_local(const LocalRows& local_rows, const std::vector<Index>& picks) {
  const Index d = std::visit([](const auto& r) { return static_cast<Index>(r.cols()); }, local_rows);
  RowMatrix out(static_cast<Index>(picks.size()), d);
  for (Index i = 0; i < out.rows(); ++i) out.row(i) = local_block(local_rows, picks[i], 1);
  return out;
}

// This rank's rows (local indices) among batch `b` of the epoch: positions [b B, (b + 1) B) of
// the epoch's permutation.
std::vector<Index> local_batch_rows(const KeyedPermutation& order, std::uint64_t first, std::uint64_t count,
                                    std::uint64_t begin, std::uint64_t rows) {
  std::vector<Index> picks;
  for (std::uint64_t p = first; p < first + count; ++p) {
    const std::uint64_t r = order(p);
    if (r >= begin && r < begin + rows) picks.push_back(static_cast<Index>(r - begin));
  }
  return picks;
}

// One step's gradient of the regression loss from the blocks of batch positions [first, first +
// batch) of the permutation that this rank works on, the blocks' gradients added exactly: the same
// bits at any rank count.
void block_summed_gradient(const Mlp& encoder, const double* weights, const Communicator& comm,
                           const RowPartition& partition, const LocalRows& local_rows,
                           const Matrix& local_targets, const KeyedPermutation& order, std::uint64_t first,
                           std::uint64_t batch, Mlp::Workspace& ws, Vector& gradient) {
  const int me = comm.rank();
  const std::uint64_t begin = partition.begin(me);
  const auto b = static_cast<Index>(batch);
  std::vector<int> owner(static_cast<std::size_t>(b));
  std::vector<Index> picks;  // this rank's batch rows (local indices), in position order
  for (Index p = 0; p < b; ++p) {
    const std::uint64_t row = order(first + static_cast<std::uint64_t>(p));
    owner[static_cast<std::size_t>(p)] = partition.owner(row);
    if (owner[static_cast<std::size_t>(p)] == me) picks.push_back(static_cast<Index>(row - begin));
  }
  const std::vector<int> worker = batch_block_workers(b, 0, comm.size());
  const RowMatrix inputs = gather_local(local_rows, picks);
  const Index d = inputs.cols(), q = local_targets.cols();
  RowMatrix held(inputs.rows(), d + q);
  held.leftCols(d) = inputs;
  for (Index i = 0; i < held.rows(); ++i)
    held.row(i).tail(q) = local_targets.row(picks[static_cast<std::size_t>(i)]);
  const RowMatrix work = exchange_batch_rows(comm, owner, worker, held);
  const std::vector<Index> block_rows = batch_block_rows(worker, 0, me);
  const Index p = encoder.num_parameters(), blocks = static_cast<Index>(block_rows.size());
  Matrix partials(p, blocks);
  if (blocks > 0) {
    const RowMatrix x = work.leftCols(d);
    Matrix out;
    encoder.forward_in_blocks<double>(weights, x, ws, out, block_rows);
    const Matrix d_out = (out - work.rightCols(q)) / static_cast<double>(batch);
    encoder.backward_in_blocks<double>(weights, x, ws, d_out, block_rows, partials.data(), p);
  }
  reproducible_sum(comm, BlockPartials<double>{partials.data(), blocks, p, p}, gradient.data());
}

}  // namespace

double encoder_regression_loss(const Mlp& encoder, const double* weights, const Communicator& comm,
                               const RowPartition& partition, const LocalRows& local_rows,
                               const Matrix& local_targets) {
  Mlp::Workspace ws;
  Matrix out;
  double sum = 0.0;
  for (Index begin = 0; begin < local_targets.rows(); begin += kLossChunk) {
    const Index count = std::min(kLossChunk, local_targets.rows() - begin);
    encoder.forward<double>(weights, local_block(local_rows, begin, count), ws, out);
    sum += (out - local_targets.middleRows(begin, count)).squaredNorm();
  }
  return comm.allreduce_sum(sum) / (2.0 * static_cast<double>(partition.num_rows()));
}

PretrainingLoss pretrain_encoder(const Mlp& encoder, double* weights, const Communicator& comm,
                                 const RowPartition& partition, const LocalRows& local_rows,
                                 const Matrix& local_targets, const EncoderPretraining& options) {
  const std::uint64_t n = partition.num_rows(), begin = partition.begin(comm.rank()),
                      rows = partition.count(comm.rank());
  require(static_cast<std::uint64_t>(local_targets.rows()) == rows,
          "pre-training targets do not match this rank's rows", {"", "rows", std::to_string(rows)});
  const auto batch = std::min<std::uint64_t>(static_cast<std::uint64_t>(options.batch_size), n);
  const std::uint64_t batches_per_epoch = n / batch;
  const Index p = encoder.num_parameters();
  Eigen::Map<Vector> w(weights, p);
  PretrainingLoss loss;
  loss.before = encoder_regression_loss(encoder, weights, comm, partition, local_rows, local_targets);
  Adam adam(p, options.adam);
  Mlp::Workspace ws;
  Matrix out;
  Vector gradient(p);
  for (Index step = 0; step < options.steps; ++step) {
    const std::uint64_t epoch = static_cast<std::uint64_t>(step) / batches_per_epoch;
    const KeyedPermutation order(n, options.seed + kPretrainingSeedOffset, epoch);
    const std::uint64_t first = (static_cast<std::uint64_t>(step) % batches_per_epoch) * batch;
    if (options.reproducible_sums) {
      block_summed_gradient(encoder, weights, comm, partition, local_rows, local_targets, order, first, batch,
                            ws, gradient);
      adam.descend(w, gradient);
      continue;
    }
    const std::vector<Index> picks = local_batch_rows(order, first, batch, begin, rows);
    gradient.setZero();
    if (!picks.empty()) {
      const RowMatrix inputs = gather_local(local_rows, picks);
      encoder.forward<double>(weights, inputs, ws, out);
      Matrix d_out(out.rows(), out.cols());
      for (Index i = 0; i < d_out.rows(); ++i)
        d_out.row(i) = (out.row(i) - local_targets.row(picks[i])) / static_cast<double>(batch);
      encoder.backward<double>(weights, inputs, ws, d_out, gradient.data());
    }
    comm.allreduce_sum(gradient.data(), p);
    adam.descend(w, gradient);
  }
  loss.after = encoder_regression_loss(encoder, weights, comm, partition, local_rows, local_targets);
  return loss;
}

}  // namespace gplvm
