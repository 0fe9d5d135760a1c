// The sparse GPLVMs under train.reproducible: every sum over rows is formed over blocks of rows
// that are the same at any rank count, and the blocks' partials are added exactly
// (parallel/reproducible_sum.hpp). A step works on the batch's row blocks (batch_block_workers);
// the start and the full-batch collapsed bound work on fixed blocks of global rows
// (global_row_blocks, sum_global_blocks).
#include <algorithm>
#include <numeric>
#include <span>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/batch_row_exchange.hpp"
#include "gplvm/models/batch_workers.hpp"
#include "gplvm/models/global_row_blocks.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/objectives/uncollapsed_bound.hpp"
#include "gplvm/parallel/reproducible_sum.hpp"
#include "gplvm/parallel/row_redistribution.hpp"

namespace gplvm {
namespace {

// Blocks of the global row layout summed in one exact sum: the statistics of this many blocks are
// held at once (M^2 + M D + 4 doubles each).
constexpr Index kGlobalBlocksPerSum = 16;

std::vector<std::uint64_t> partition_begins(const RowPartition& partition) {
  std::vector<std::uint64_t> begins;
  for (int r = 0; r <= partition.num_ranks(); ++r) begins.push_back(partition.begin(r));
  return begins;
}

}  // namespace

BatchTerms SparseGplvmModel::evaluate_batch_in_blocks(const Communicator& comm, const RowPartition& partition,
                                                      const Vector& params,
                                                      const std::vector<std::uint64_t>& batch_rows,
                                                      const DataRef& local, Vector& gradient,
                                                      StepKey key) const {
  const auto b = static_cast<Index>(batch_rows.size());
  const int me = comm.rank();
  const Index q = config_.latent_dim, a = ambient_dim(), d = config_.data_dim;
  const bool free = !encoders_;
  std::vector<int> owner(batch_rows.size());
  for (std::size_t p = 0; p < batch_rows.size(); ++p) owner[p] = partition.owner(batch_rows[p]);
  const std::vector<int> worker = batch_block_workers(b, 0, comm.size());  // one range: no active set
  std::vector<Index> owned;  // this rank's batch rows (local indices), in position order
  for (std::size_t p = 0; p < batch_rows.size(); ++p)
    if (owner[p] == me) owned.push_back(static_cast<Index>(batch_rows[p] - partition.begin(me)));

  // The owners send each row's data, and its latents when they are free (the owner's parameters;
  // wrapped-normal latents with their noise), to the worker of its block: one exchange.
  const Index variance_width = config_.bayesian ? q : 0;
  const Index noise_width = wrapped() ? config_.psi_samples * q : 0;
  const Index latent_width = free ? a + variance_width : 0;
  Latents owned_latents;
  if (free) owned_latents = latents_forward(params, owned, local, key);
  RowMatrix held(static_cast<Index>(owned.size()), d + latent_width + noise_width);
  for (Index i = 0; i < held.rows(); ++i) held.row(i).head(d) = local.row(owned[static_cast<std::size_t>(i)]);
  if (free) {
    held.middleCols(d, a) = owned_latents.mean;
    if (config_.bayesian) held.middleCols(d + a, q) = owned_latents.variance;
    if (wrapped()) held.rightCols(noise_width) = owned_latents.eps;
  }
  const RowMatrix work = exchange_batch_rows(comm, owner, worker, held);
  const RowMatrix data = work.leftCols(d);
  const std::vector<Index> block_rows = batch_block_rows(worker, 0, me);
  const auto blocks = static_cast<Index>(block_rows.size());

  const std::unique_ptr<Kernel> k = kernel(params);
  const Matrix Z = inducing_inputs(params);
  const Index m = Z.rows(), h = k->num_hyperparameters();
  // Z's gradient has A columns (the ambient coordinates of its points).
  // Steps 1-2: each block's statistics, formed on the block alone (fresh copies: products of the
  // block's shape and alignment), added exactly. The blocks are this rank's alone, so a failure
  // there is agreed before the sum.
  Latents l;
  std::vector<Latents> block_latents(static_cast<std::size_t>(blocks));
  std::vector<RowMatrix> block_data(static_cast<std::size_t>(blocks));
  std::vector<RowsCache> cache(static_cast<std::size_t>(blocks));
  const Index length = SparseStatistics::zero(m, d).packed_size();
  Matrix partials(length, blocks);
  comm.all_or_none([&] {
    if (free) {
      l.mean = work.middleCols(d, a);
      if (config_.bayesian) l.variance = work.middleCols(d + a, q);
      if (wrapped()) l.eps = work.rightCols(noise_width);
    } else if (blocks > 0) {
      encoders_->forward_in_blocks(params.data() + encoder_offset_, data, block_rows, l.mean,
                                   config_.bayesian ? &l.variance : nullptr);
    }
    for (Index j = 0, first = 0; j < blocks; first += block_rows[static_cast<std::size_t>(j)], ++j) {
      const auto s = static_cast<std::size_t>(j);
      const Index n = block_rows[s];
      block_latents[s].mean = l.mean.middleRows(first, n);
      if (config_.bayesian) block_latents[s].variance = l.variance.middleRows(first, n);
      if (wrapped()) block_latents[s].eps = l.eps.middleRows(first, n);
      block_data[s] = data.middleRows(first, n);
      rows_statistics(*k, Z, block_latents[s], block_data[s], cache[s]).pack(partials.col(j).data());
    }
  });
  std::vector<double> summed(static_cast<std::size_t>(length));
  reproducible_sum(comm, BlockPartials<double>{partials.data(), blocks, length, length}, summed.data());
  SparseStatistics statistics = SparseStatistics::zero(m, d);
  statistics.unpack(summed.data());
  const double rows_kl = statistics.kl;
  const double scale = static_cast<double>(num_data()) / static_cast<double>(b);
  statistics.scale(scale);

  // Step 3 on every rank alike (the same statistics, bit for bit).
  Matrix K;
  k->cross(Z, Z, K);
  const BoundAdjoints bound = bound_adjoints(params, statistics, K, scale, Bound::uncollapsed, gradient);

  // Steps 4-5: each block's latent gradients and its share of dZ, the kernel's and the encoders'
  // gradients (one column per block), added exactly.
  const Index encoder_size = layout_.num_shared() - encoder_offset_;
  const Index share_length = m * a + h + encoder_size;
  Matrix shares(share_length, blocks);
  Matrix d_mean(l.mean.rows(), a), d_variance(config_.bayesian ? l.mean.rows() : 0, q);
  for (Index j = 0, first = 0; j < blocks; first += block_rows[static_cast<std::size_t>(j)], ++j) {
    const auto s = static_cast<std::size_t>(j);
    const Index n = block_rows[s];
    SharedGradient share = SharedGradient::zero(m, a, h);
    Matrix block_d_mean, block_d_variance;
    rows_backward(*k, Z, block_latents[s], block_data[s], cache[s], bound.adjoint, block_d_mean,
                  block_d_variance, share);
    d_mean.middleRows(first, n) = block_d_mean;
    if (config_.bayesian) d_variance.middleRows(first, n) = block_d_variance;
    shares.col(j).head(m * a) = share.d_inducing.reshaped();
    shares.col(j).segment(m * a, h) = share.d_kernel;
  }
  if (!free && blocks > 0)
    encoders_->backward_in_blocks(params.data() + encoder_offset_, data, d_mean,
                                  config_.bayesian ? &d_variance : nullptr, block_rows,
                                  shares.data() + m * a + h, share_length);
  Vector shared(share_length);
  reproducible_sum(comm, BlockPartials<double>{shares.data(), blocks, share_length, share_length},
                   shared.data());
  Eigen::Map<Matrix>(gradient.data(), m, a) = shared.head(m * a).reshaped(m, a);
  gradient.segment(kernel_offset_, h) = shared.segment(m * a, h);
  gradient.segment(encoder_offset_, encoder_size) = shared.tail(encoder_size);
  add_inducing_kernel_share(*k, Z, K, bound.d_inducing_kernel, gradient);
  freeze_translation(gradient);

  if (free) {  // the latents' gradients go back to their owners, who add them to their block
    RowMatrix d_work(d_mean.rows(), latent_width);
    d_work.leftCols(a) = d_mean;
    if (config_.bayesian) d_work.rightCols(q) = d_variance;
    const RowMatrix d_owned = exchange_batch_rows(comm, worker, owner, d_work);
    const Matrix d_owned_variance = config_.bayesian ? Matrix(d_owned.rightCols(q)) : Matrix();
    latents_backward(params, owned, local, owned_latents, d_owned.leftCols(a), d_owned_variance, gradient);
  }
  return {bound.value, bound.value + scale * rows_kl, rows_kl};
}

Matrix SparseGplvmModel::encode_in_global_blocks(const Communicator& comm, const RowPartition& partition,
                                                 const Vector& params, const DataRef& local) const {
  require(encoders_.has_value(), "free latents are not encoded", {"", "model.latents", "free"});
  const GlobalRowBlocks blocks = global_row_blocks(partition);
  const int me = comm.rank();
  const RowMatrix rows =
      redistribute_rows(comm, local, partition.begin(me), partition.num_rows(), blocks.begins);
  const std::vector<Index> block_rows = blocks.block_rows(me);
  RowMatrix latents(rows.rows(), config_.latent_dim);
  // A few blocks per encoder pass, so that the activations held stay bounded.
  const auto num_blocks = static_cast<Index>(block_rows.size());
  for (Index j = 0, first = 0; j < num_blocks; j += kGlobalBlocksPerSum) {
    const Index count = std::min(kGlobalBlocksPerSum, num_blocks - j);
    const std::span<const Index> pass(block_rows.data() + j, static_cast<std::size_t>(count));
    Index n = 0;
    for (const Index r : pass) n += r;
    Matrix mean;
    encoders_->forward_in_blocks(params.data() + encoder_offset_, rows.middleRows(first, n), pass, mean,
                                 nullptr);
    latents.middleRows(first, n) = mean;
    first += n;
  }
  return redistribute_rows(comm, DataRef(latents), blocks.begins[static_cast<std::size_t>(me)],
                           partition.num_rows(), partition_begins(partition));
}

std::vector<Index> SparseGplvmModel::all_local_rows() const {
  std::vector<Index> all(static_cast<std::size_t>(local_rows()));
  std::iota(all.begin(), all.end(), Index{0});
  return all;
}

RowMatrix SparseGplvmModel::free_latents_in_blocks(const Communicator& comm, const RowPartition& partition,
                                                   const GlobalRowBlocks& blocks,
                                                   const Latents& owned) const {
  const Index a = ambient_dim(), q = config_.latent_dim, noise = owned.eps.cols();
  RowMatrix packed(owned.mean.rows(), a + (config_.bayesian ? q : 0) + noise);
  packed.leftCols(a) = owned.mean;
  if (config_.bayesian) packed.middleCols(a, q) = owned.variance;
  if (noise > 0) packed.rightCols(noise) = owned.eps;
  return redistribute_rows(comm, DataRef(packed), partition.begin(comm.rank()), partition.num_rows(),
                           blocks.begins);
}

SparseGplvmModel::Latents SparseGplvmModel::latent_rows(const RowMatrix& packed, Index first, Index n) const {
  const Index a = ambient_dim(), q = config_.latent_dim;
  Latents l;
  l.mean = packed.middleRows(first, n).leftCols(a);
  if (config_.bayesian) l.variance = packed.middleRows(first, n).middleCols(a, q);
  if (wrapped()) l.eps = packed.middleRows(first, n).rightCols(config_.psi_samples * q);
  return l;
}

Vector SparseGplvmModel::optimal_posterior_in_blocks(const Communicator& comm, const RowPartition& partition,
                                                     const Vector& params, const DataRef& local) const {
  const GlobalRowBlocks blocks = global_row_blocks(partition);
  const RowMatrix rows =
      redistribute_rows(comm, local, partition.begin(comm.rank()), partition.num_rows(), blocks.begins);
  // Free latents are the owners' parameters: their rows move to the block layout with the data.
  const RowMatrix free_latents =
      encoders_
          ? RowMatrix()
          : free_latents_in_blocks(comm, partition, blocks, latents_forward(params, all_local_rows(), local));
  const std::unique_ptr<Kernel> k = kernel(params);
  const Matrix Z = inducing_inputs(params);
  const Index m = Z.rows(), d = config_.data_dim;
  const Index length = SparseStatistics::zero(m, d).packed_size();
  Vector summed(length);
  sum_global_blocks(
      comm, blocks, length, kGlobalBlocksPerSum,
      [&](Index, Index first, Index n, double* partial) {
        const RowMatrix y = rows.middleRows(first, n);
        Latents l;
        if (encoders_)
          encoders_->forward(params.data() + encoder_offset_, y, l.mean,
                             config_.bayesian ? &l.variance : nullptr);
        else
          l = latent_rows(free_latents, first, n);
        RowsCache cache;
        rows_statistics(*k, Z, l, y, cache).pack(partial);
      },
      summed.data());
  SparseStatistics statistics = SparseStatistics::zero(m, d);
  statistics.unpack(summed.data());
  Matrix K;
  k->cross(Z, Z, K);
  const InducingPosterior posterior = optimal_inducing_posterior(statistics, K, noise_variance(params));
  Vector packed(InducingPosterior::packed_size(m, d));
  posterior.pack(packed.data());
  return packed;
}

double SparseGplvmModel::evaluate_full_batch_in_blocks(const Communicator& comm,
                                                       const RowPartition& partition,
                                                       const GlobalRowBlocks& blocks, const Vector& params,
                                                       const DataRef& local, const DataRef& block_data,
                                                       Vector& gradient, StepKey key) const {
  const Index q = config_.latent_dim, a = ambient_dim(), d = config_.data_dim;
  const bool free = !encoders_;
  Latents owned;
  RowMatrix free_latents;
  if (free) {
    owned = latents_forward(params, all_local_rows(), local, key);
    free_latents = free_latents_in_blocks(comm, partition, blocks, owned);
  }
  const std::unique_ptr<Kernel> k = kernel(params);
  const Matrix Z = inducing_inputs(params);
  const Index m = Z.rows(), h = k->num_hyperparameters();
  const auto num_blocks = static_cast<Index>(blocks.block_rows(comm.rank()).size());
  // A block's rows as a fresh copy, so that its products have the block's own shape and alignment
  // wherever it runs; its amortised latents from the encoders run on the block alone.
  const auto block_rows_of = [&](Index first, Index n) { return RowMatrix(block_data.middleRows(first, n)); };
  const auto encode_block = [&](const RowMatrix& y, Latents& l) {
    const Index n = y.rows();
    encoders_->forward_in_blocks(params.data() + encoder_offset_, y, std::span<const Index>(&n, 1), l.mean,
                                 config_.bayesian ? &l.variance : nullptr);
  };

  // Steps 1-2: each block's statistics, added exactly (the Psi-statistics kept for step 4).
  std::vector<Latents> block_latents(static_cast<std::size_t>(num_blocks));
  std::vector<RowsCache> cache(static_cast<std::size_t>(num_blocks));
  const Index length = SparseStatistics::zero(m, d).packed_size();
  Vector summed(length);
  sum_global_blocks(
      comm, blocks, length, kGlobalBlocksPerSum,
      [&](Index j, Index first, Index n, double* partial) {
        const auto s = static_cast<std::size_t>(j);
        const RowMatrix y = block_rows_of(first, n);
        if (free)
          block_latents[s] = latent_rows(free_latents, first, n);
        else
          encode_block(y, block_latents[s]);
        rows_statistics(*k, Z, block_latents[s], y, cache[s]).pack(partial);
      },
      summed.data());
  SparseStatistics statistics = SparseStatistics::zero(m, d);
  statistics.unpack(summed.data());

  // Step 3 on every rank alike (the same statistics, bit for bit).
  Matrix K;
  k->cross(Z, Z, K);
  const BoundAdjoints bound = bound_adjoints(params, statistics, K, 1.0, Bound::collapsed, gradient);

  // Steps 4-5: each block's latent gradients and its share of dZ, the kernel's and the encoders'
  // gradients, added exactly.
  const Index encoder_size = layout_.num_shared() - encoder_offset_;
  const Index share_length = m * a + h + encoder_size;
  Matrix d_mean(free_latents.rows(), a), d_variance(config_.bayesian ? free_latents.rows() : 0, q);
  Vector shared(share_length);
  sum_global_blocks(
      comm, blocks, share_length, kGlobalBlocksPerSum,
      [&](Index j, Index first, Index n, double* partial) {
        const auto s = static_cast<std::size_t>(j);
        const RowMatrix y = block_rows_of(first, n);
        SharedGradient share = SharedGradient::zero(m, a, h);
        Matrix block_d_mean, block_d_variance;
        rows_backward(*k, Z, block_latents[s], y, cache[s], bound.adjoint, block_d_mean, block_d_variance,
                      share);
        cache[s] = RowsCache();  // done with it
        Eigen::Map<Vector>(partial, m * a) = share.d_inducing.reshaped();
        Eigen::Map<Vector>(partial + m * a, h) = share.d_kernel;
        if (free) {
          d_mean.middleRows(first, n) = block_d_mean;
          if (config_.bayesian) d_variance.middleRows(first, n) = block_d_variance;
          return;
        }
        Latents again;  // the encoders' backward pass needs their forward pass on the same rows
        encode_block(y, again);
        encoders_->backward_in_blocks(params.data() + encoder_offset_, y, block_d_mean,
                                      config_.bayesian ? &block_d_variance : nullptr,
                                      std::span<const Index>(&n, 1), partial + m * a + h, share_length);
      },
      shared.data());
  Eigen::Map<Matrix>(gradient.data(), m, a) = shared.head(m * a).reshaped(m, a);
  gradient.segment(kernel_offset_, h) = shared.segment(m * a, h);
  gradient.segment(encoder_offset_, encoder_size) = shared.tail(encoder_size);
  add_inducing_kernel_share(*k, Z, K, bound.d_inducing_kernel, gradient);
  freeze_translation(gradient);

  if (free) {  // the latents' gradients go back to their owners (a move of rows, no sum)
    RowMatrix d_rows(d_mean.rows(), local_values_per_row());
    d_rows.leftCols(a) = d_mean;
    if (config_.bayesian) d_rows.rightCols(q) = d_variance;
    const RowMatrix d_owned =
        redistribute_rows(comm, DataRef(d_rows), blocks.begins[static_cast<std::size_t>(comm.rank())],
                          partition.num_rows(), partition_begins(partition));
    const Matrix d_owned_variance = config_.bayesian ? Matrix(d_owned.rightCols(q)) : Matrix();
    latents_backward(params, all_local_rows(), local, owned, d_owned.leftCols(a), d_owned_variance, gradient);
  }
  return bound.value;
}

}  // namespace gplvm
