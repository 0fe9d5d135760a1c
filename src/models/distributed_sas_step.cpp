#include "gplvm/models/distributed_sas_step.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>

#include "gplvm/core/denormals.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/phase_clock.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/models/batch_row_exchange.hpp"
#include "gplvm/models/batch_workers.hpp"
#include "gplvm/parallel/reproducible_sum.hpp"

namespace gplvm {
namespace {

// Batch rows per unit of a thread's share when rows are copied into place.
constexpr Index kRowsPerShareUnit = 16;

// Active rows gathered from all ranks as [batch position | latent sample | data], put back in
// batch order so every rank factorises the same matrix whatever the rank count.
struct ActiveRows {
  Matrix latents;
  RowMatrix data;
};

template <typename Scalar>
ActiveRows gather_active(const Communicator& comm, const std::vector<Index>& positions,
                         const std::vector<int>& active_per_rank, const Matrix& sample,
                         const RowMatrixT<Scalar>& data, Index num_active) {
  const ScopedPhase phase(StepPhase::active_gather);  // packing and placing the rows included
  const Index q = sample.cols(), d = data.cols();
  Index local = 0;
  while (local < static_cast<Index>(positions.size()) && positions[local] < num_active) ++local;
  RowMatrix packed(local, 1 + q + d);
  for_each_thread_share(local, kRowsPerShareUnit, [&](Index i0, Index i1) {
    for (Index i = i0; i < i1; ++i) {
      packed(i, 0) = static_cast<double>(positions[i]);
      packed.row(i).segment(1, q) = sample.row(i);
      packed.row(i).tail(d) = data.row(i).template cast<double>();
    }
  });
  const RowMatrix all = comm.allgather_rows(DataRef(packed), active_per_rank);
  if (all.rows() != num_active)
    throw Error("active-set gather returned " + std::to_string(all.rows()) + " rows");
  ActiveRows out{Matrix(num_active, q), RowMatrix(num_active, d)};
  for_each_thread_share(all.rows(), kRowsPerShareUnit, [&](Index i0, Index i1) {
    for (Index i = i0; i < i1; ++i) {
      const auto position = static_cast<Index>(all(i, 0));
      out.latents.row(position) = all.row(i).segment(1, q);
      out.data.row(position) = all.row(i).tail(d);
    }
  });
  return out;
}

// Columns per block of the data (the active data fit) and of the active set's adjoint under
// reproducible sums: like the batch's row blocks, units whose partial sums one rank forms whole,
// the same at every rank count. Without them each rank takes one block of an even share of the
// columns (no fixed unit to keep, and wider solves: a fixed 64 would leave ranks idle when D or A
// is small next to 64 times the rank count).
constexpr Index kReproducibleColumnsPerBlock = 64;

// This rank's share of n columns in whole blocks of `width`, the blocks split over the ranks as
// RowPartition splits rows; counts holds every rank's number of columns.
struct ColumnBlocks {
  Index width = 1;
  Index first = 0, count = 0;
  std::vector<int> counts;
  Index num_blocks() const { return (count + width - 1) / width; }
  Index block_first(Index k) const { return first + k * width; }
  Index block_count(Index k) const { return std::min(width, first + count - block_first(k)); }
};

ColumnBlocks column_blocks(Index n, const Communicator& comm, bool reproducible) {
  ColumnBlocks share;
  share.width =
      reproducible ? kReproducibleColumnsPerBlock : std::max<Index>(1, (n + comm.size() - 1) / comm.size());
  const RowPartition blocks(static_cast<std::uint64_t>((n + share.width - 1) / share.width), comm.size());
  share.counts.resize(comm.size());
  for (int r = 0; r < comm.size(); ++r) {
    const Index begin = std::min(n, static_cast<Index>(blocks.begin(r)) * share.width);
    const Index end = std::min(n, static_cast<Index>(blocks.begin(r) + blocks.count(r)) * share.width);
    share.counts[r] = static_cast<int>(end - begin);
    if (r == comm.rank()) share.first = begin, share.count = end - begin;
  }
  return share;
}

// The active set with its A^2 D whitening beta = L^{-1} Y_A split by blocks of the columns of Y_A:
// every rank factorises K_AA (A^3/3), whitens its blocks of the D columns, and the slices are
// gathered, so the active set's cost per rank falls with the rank count instead of being paid on
// every rank.
struct ActiveSetShare {
  SasActiveSet set;      // factor and the full beta
  ColumnBlocks columns;  // this rank's blocks of beta's columns, whose data fit it adds
};

// K_AA + s2 I and its Cholesky factor, formed by every rank.
SasActiveSet active_factor(const Kernel& kernel, double noise, const ActiveRows& active) {
  const ScopedPhase phase(StepPhase::active_factor);
  return sas_active_factor(kernel, noise, active.latents, active.data.cols());
}

ActiveSetShare share_active_set(const Communicator& comm, const Kernel& kernel, double noise,
                                const ActiveRows& active, bool reproducible) {
  ActiveSetShare share{active_factor(kernel, noise, active),
                       column_blocks(active.data.cols(), comm, reproducible)};
  const ColumnBlocks& c = share.columns;
  Matrix own(active.data.rows(), c.count);
  {
    const ScopedPhase phase(StepPhase::active_whiten);
    for (Index k = 0; k < c.num_blocks(); ++k)  // block by block: the same solves at any rank count
      own.middleCols(k * c.width, c.block_count(k)) =
          whiten_active_columns(share.set, active.data.middleCols(c.block_first(k), c.block_count(k)));
  }
  const ScopedPhase phase(StepPhase::whitened_gather);
  share.set.whitened_data = comm.allgather_columns(own, c.counts);
  return share;
}

// SasPartials of an A-row active set with every sum zero, to which a block's terms are added.
SasPartials zero_partials(Index a, Index q, Index num_hyperparameters) {
  SasPartials p;
  p.whitened_adjoint = Matrix::Zero(a, a);
  p.d_latents_active = Matrix::Zero(a, q);
  p.d_kernel = Vector::Zero(num_hyperparameters);
  return p;
}

// sas_combine with its two A x A x A solves split by blocks of columns of the adjoint:
// V = L^{-T} W by column blocks, gathered; then each rank forms and back-propagates its own
// columns of L^{-T} W L^{-1}, block by block, and one small reproducible sum adds the blocks'
// contributions (A Q + hyperparameters + 1).
GpGradient combine_by_columns(const Communicator& comm, const Kernel& kernel, double noise,
                              const SasActiveSet& set, const Matrix& X_active, const SasPartials& partials,
                              bool reproducible) {
  const Index a = X_active.rows(), q = X_active.cols(), h = kernel.num_hyperparameters();
  const ColumnBlocks c = column_blocks(a, comm, reproducible);
  const ScopedPhase phase(StepPhase::combine);
  const Matrix W = sas_whitened_adjoint(set, partials);
  Matrix v_columns(a, c.count);
  for (Index k = 0; k < c.num_blocks(); ++k) {
    auto block = v_columns.middleCols(k * c.width, c.block_count(k));
    block = W.middleCols(c.block_first(k), c.block_count(k));
    set.factor.solve_upper_in_place(block);
  }
  const Matrix V = [&] {
    const ScopedPhase gather(StepPhase::combine_gather);
    return comm.allgather_columns(v_columns, c.counts);
  }();

  const Index length = a * q + h + 1;
  Matrix blocks(length, c.num_blocks());  // one column of contributions per block
  for (Index k = 0; k < c.num_blocks(); ++k) {
    GpGradient mine{0.0, Matrix::Zero(a, q), Vector::Zero(h), 0.0};
    add_active_adjoint_columns(kernel, noise, set, X_active, V, c.block_first(k), c.block_count(k), mine);
    blocks.col(k) << mine.d_latents.reshaped(), mine.d_kernel, mine.d_log_noise;
  }
  Vector sum(length);
  const BlockPartials<double> column_partials{blocks.data(), blocks.cols(), length, length};
  {
    const ScopedPhase sum_phase(StepPhase::combine_sum);
    if (reproducible)
      reproducible_sum(comm, column_partials, sum.data());
    else
      per_rank_sum(comm, column_partials, sum.data());
  }

  GpGradient total = sas_partials_gradient(set, partials);
  total.d_latents += sum.head(a * q).reshaped(a, q);
  total.d_kernel += sum.segment(a * q, h);
  total.d_log_noise += sum[length - 1];
  return total;
}

}  // namespace

DistributedSasStep::DistributedSasStep(const SasModel& model, const Communicator& comm,
                                       const RowPartition& partition, DataRef local_data)
    : model_(model), comm_(comm), partition_(partition), local_f64_(local_data) {
  validate_local_data<double>(local_data);
}

DistributedSasStep::DistributedSasStep(const SasModel& model, const Communicator& comm,
                                       const RowPartition& partition, DataRefF local_data)
    : model_(model), comm_(comm), partition_(partition), local_f32_(local_data) {
  validate_local_data<float>(local_data);
}

template <typename Scalar>
void DistributedSasStep::validate_local_data(const DataRefT<Scalar>& local_data) const {
  check_local_rows<Scalar>(comm_, partition_, local_data, model_.config().data_dim);
}

DistributedSasStep::WorkRows DistributedSasStep::work_rows(const std::vector<std::uint64_t>& batch_rows,
                                                           const std::vector<int>& worker,
                                                           Index num_active) const {
  WorkRows work;
  work.active_per_rank.assign(comm_.size(), 0);
  // Sized once, so that a step allocates the same few blocks whatever the batch size.
  const auto own = static_cast<std::size_t>(std::count(worker.begin(), worker.end(), comm_.rank()));
  work.positions.reserve(own);
  work.rows.reserve(own);
  Index last_block = -1;
  for (Index p = 0; p < static_cast<Index>(batch_rows.size()); ++p) {
    if (worker[p] == comm_.rank()) {
      work.positions.push_back(p);
      work.rows.push_back(batch_rows[p]);
      // Per-rank sums need only the active and the remainder rows apart.
      const Index block = model_.config().reproducible_sums ? batch_block_of(p, num_active) : p >= num_active;
      if (block != last_block) work.block_rows.push_back(0);
      ++work.block_rows.back();
      last_block = block;
    }
    if (p < num_active) ++work.active_per_rank[worker[p]];
  }
  return work;
}

template <typename Row>
void DistributedSasStep::copy_local_row(std::uint64_t row, Row&& dst) const {
  using Scalar = typename std::decay_t<Row>::Scalar;
  const Index local = static_cast<Index>(row - partition_.begin(comm_.rank()));
  if (local_f32_)
    dst = local_f32_->row(local).template cast<Scalar>();
  else
    dst = local_f64_->row(local).template cast<Scalar>();
}

template <typename Scalar>
RowMatrixT<Scalar> DistributedSasStep::local_rows(const std::vector<std::uint64_t>& rows) const {
  const ScopedPhase phase(StepPhase::batch_rows);
  RowMatrixT<Scalar> data(static_cast<Index>(rows.size()), model_.config().data_dim);
  for_each_thread_share(data.rows(), kRowsPerShareUnit, [&](Index i0, Index i1) {
    for (Index i = i0; i < i1; ++i) copy_local_row(rows[i], data.row(i));
  });
  return data;
}

template <typename Scalar>
RowMatrixT<Scalar> DistributedSasStep::work_data(const std::vector<std::uint64_t>& batch_rows,
                                                 const std::vector<int>& worker, const WorkRows& work) const {
  const int me = comm_.rank(), ranks = comm_.size();
  std::vector<int> owner(batch_rows.size());
  bool any_moved = false;
  std::size_t num_outgoing = 0;
  for (std::size_t p = 0; p < batch_rows.size(); ++p) {
    owner[p] = partition_.owner(batch_rows[p]);
    any_moved = any_moved || owner[p] != worker[p];
    num_outgoing += owner[p] == me && worker[p] != me;
  }
  // Every rank sees the same owner and worker arrays, so all of them skip the exchange together.
  if (!any_moved) return local_rows<Scalar>(work.rows);

  // Rows to send, grouped by destination rank, in position order within a group: the order in
  // which the receiver places them.
  std::vector<std::uint64_t> outgoing;
  outgoing.reserve(num_outgoing);  // sized once, not grown row by row
  std::vector<int> send_rows(ranks, 0), receive_rows(ranks, 0);
  for (int r = 0; r < ranks; ++r) {
    if (r == me) continue;
    for (std::size_t p = 0; p < batch_rows.size(); ++p) {
      if (owner[p] == me && worker[p] == r) {
        outgoing.push_back(batch_rows[p]);
        ++send_rows[r];
      }
      if (owner[p] == r && worker[p] == me) ++receive_rows[r];
    }
  }
  const Index d = model_.config().data_dim;
  auto in_elements = [&](const std::vector<int>& rows, std::vector<int>& counts, std::vector<int>& displs) {
    counts.assign(ranks, 0);
    displs.assign(ranks, 0);
    for (int r = 0, at = 0; r < ranks; at += counts[r], ++r) {
      counts[r] = rows[r] * static_cast<int>(d);
      displs[r] = at;
    }
  };
  std::vector<int> send_counts, send_displs, receive_counts, receive_displs;
  in_elements(send_rows, send_counts, send_displs);
  in_elements(receive_rows, receive_counts, receive_displs);
  const RowMatrixT<Scalar> sent = local_rows<Scalar>(outgoing);
  RowMatrixT<Scalar> received(std::accumulate(receive_rows.begin(), receive_rows.end(), 0), d);
  {
    const ScopedPhase phase(StepPhase::row_exchange);
    comm_.alltoallv(sent.data(), send_counts, send_displs, received.data(), receive_counts, receive_displs);
  }

  // Each row at its place: own rows straight from the local block, the others in (source rank,
  // position) order, as they were sent.
  RowMatrixT<Scalar> data(static_cast<Index>(work.rows.size()), d);
  std::vector<Index> next(ranks, 0), source(data.rows());
  for (int r = 0, at = 0; r < ranks; at += receive_rows[r], ++r) next[r] = at;
  for (Index i = 0; i < data.rows(); ++i) {
    const int from = owner[work.positions[i]];
    source[i] = from == me ? -1 : next[from]++;
  }
  const ScopedPhase phase(StepPhase::batch_rows);
  for_each_thread_share(data.rows(), kRowsPerShareUnit, [&](Index i0, Index i1) {
    for (Index i = i0; i < i1; ++i) {
      if (source[i] < 0)
        copy_local_row(work.rows[i], data.row(i));
      else
        data.row(i) = received.row(source[i]);
    }
  });
  return data;
}

IndexRange DistributedSasStep::encoder_block() const {
  return model_.encoder_block();
}

BatchTerms DistributedSasStep::evaluate(const Vector& params, const std::vector<std::uint64_t>& batch_rows,
                                        Index num_active, StepKey key, Vector& gradient,
                                        const std::vector<int>* encoder_slices, Float32Shadow* shadow) const {
  const Index b = static_cast<Index>(batch_rows.size());
  require(!shadow || model_.config().precision == Precision::float32,
          "an fp32 shadow of the encoder was given to a step of an fp64 model",
          {"", "model.precision", "float64"});
  model_.remainder_weight(b, num_active);  // rejects A outside [1, B), B > N before any communication
  // Reproducible sums work on whole row blocks (batch_block_workers), so that every partial sum is
  // formed over the same rows at any rank count; free latents then travel from their owners to
  // the blocks' workers and their gradients back. Otherwise free latents are worked on by their
  // owner, amortised rows by balanced shares.
  const bool amortised = model_.config().latents == LatentKind::amortised;
  const bool reproducible = model_.config().reproducible_sums;
  const std::vector<int> worker = reproducible ? batch_block_workers(b, num_active, comm_.size())
                                               : batch_workers(batch_rows, num_active, partition_, amortised);
  const WorkRows work = work_rows(batch_rows, worker, num_active);
  const std::optional<FreeLatentRoute> route =
      reproducible && !amortised ? std::optional(free_latent_route(batch_rows, worker, num_active))
                                 : std::nullopt;
  const FreeLatentRoute* route_ptr = route ? &*route : nullptr;
  if (model_.config().precision == Precision::float64)
    return evaluate_in<double>(params, work, work_data<double>(batch_rows, worker, work), num_active, b, key,
                               gradient, encoder_slices, nullptr, route_ptr);
  const ScopedFlushDenormals flush(model_.config().flush_denormals);
  return evaluate_in<float>(params, work, work_data<float>(batch_rows, worker, work), num_active, b, key,
                            gradient, encoder_slices, shadow, route_ptr);
}

DistributedSasStep::FreeLatentRoute DistributedSasStep::free_latent_route(
    const std::vector<std::uint64_t>& batch_rows, const std::vector<int>& worker, Index num_active) const {
  FreeLatentRoute route{batch_workers(batch_rows, num_active, partition_, false), worker, {}};
  for (std::size_t p = 0; p < batch_rows.size(); ++p)
    if (route.owner[p] == comm_.rank()) route.owned_rows.push_back(batch_rows[p]);
  return route;
}

template <typename Scalar>
SasModel::LatentBatch DistributedSasStep::work_latents(const Vector& params, const WorkRows& own,
                                                       const RowMatrixT<Scalar>& data, StepKey key,
                                                       Float32Shadow* shadow, const FreeLatentRoute* route,
                                                       SasModel::LatentBatch& owned) const {
  const ScopedPhase phase(StepPhase::encoder_forward);
  // Per-rank sums: the encoder runs over all of this rank's rows at once.
  const SasModel::RowBlocks row_blocks = model_.config().reproducible_sums
                                             ? SasModel::RowBlocks(std::span<const Index>(own.block_rows))
                                             : std::nullopt;
  if (!route) {
    if constexpr (std::is_same_v<Scalar, float>)
      return model_.latents_forward(params, own.rows, data, key, shadow, row_blocks);
    else
      return model_.latents_forward(params, own.rows, data, key, row_blocks);
  }
  // Free latents read no data: the owners' rows go in without columns.
  const RowMatrixT<Scalar> no_columns(static_cast<Index>(route->owned_rows.size()), 0);
  if constexpr (std::is_same_v<Scalar, float>)
    owned = model_.latents_forward(params, route->owned_rows, DataRefF(no_columns), key);
  else
    owned = model_.latents_forward(params, route->owned_rows, DataRef(no_columns), key);
  // The worker needs the sample (the objective), and the mean and variance (the KL of its blocks).
  // Means and samples have the space's ambient width a, variances its intrinsic q (lorentz: a = q + 1).
  const Index q = model_.config().latent_dim, a = model_.ambient_dim();
  const bool bayesian = model_.config().bayesian;
  RowMatrix held(owned.mean.rows(), bayesian ? 2 * a + q : a);
  held.leftCols(a) = owned.mean;
  if (bayesian) held.middleCols(a, q) = owned.variance, held.rightCols(a) = owned.sample;
  const RowMatrix moved = [&] {
    const ScopedPhase exchange(StepPhase::latent_exchange);
    return exchange_batch_rows(comm_, route->owner, route->worker, held);
  }();
  SasModel::LatentBatch latents;
  latents.mean = moved.leftCols(a);
  latents.sample = latents.mean;
  if (bayesian) latents.variance = moved.middleCols(a, q), latents.sample = moved.rightCols(a);
  return latents;
}

// In fp32 mode the rows are rounded to float once, here: the encoder and the remainder's data
// products use them as float, the active rows travel and are factorised as (exactly converted)
// doubles, so the objective is that of the fp32-rounded data throughout.
template <typename Scalar>
BatchTerms DistributedSasStep::evaluate_in(const Vector& params, const WorkRows& own,
                                           const RowMatrixT<Scalar>& data, Index num_active, Index b,
                                           StepKey key, Vector& gradient,
                                           const std::vector<int>* encoder_slices, Float32Shadow* shadow,
                                           const FreeLatentRoute* route) const {
  const double weight = model_.remainder_weight(b, num_active);
  const bool reproducible = model_.config().reproducible_sums;
  const SasModel::RowBlocks row_blocks =
      reproducible ? SasModel::RowBlocks(std::span<const Index>(own.block_rows)) : std::nullopt;
  SasModel::LatentBatch owned;  // along a route: the latents of the rows this rank owns
  const SasModel::LatentBatch latents = work_latents(params, own, data, key, shadow, route, owned);
  const ActiveRows active =
      gather_active(comm_, own.positions, own.active_per_rank, latents.sample, data, num_active);

  const std::unique_ptr<Kernel> kernel_ptr = model_.kernel(params);
  const Kernel& kernel = *kernel_ptr;
  const double noise = model_.noise_variance(params);
  const ActiveSetShare share = share_active_set(comm_, kernel, noise, active, reproducible);
  const Index own_active =
      std::count_if(own.positions.begin(), own.positions.end(), [&](Index p) { return p < num_active; });
  Matrix d_sample(own.rows.size(), model_.ambient_dim());
  SasPartials partials = zero_partials(num_active, model_.ambient_dim(), kernel.num_hyperparameters());
  const Index length = partials.packed_size() + 1;  // the partials, then the KL

  // One partial per row block (remainder terms and the KL of its rows) and per column block of
  // the active data fit, summed reproducibly (the same bits at any rank count).
  const Index num_row_blocks = static_cast<Index>(own.block_rows.size());
  Matrix blocks = Matrix::Zero(length, num_row_blocks + share.columns.num_blocks());
  // The remainder rows are this rank's alone, so a numerical failure there (a non-positive
  // predictive variance) can happen on one rank only: every rank learns of it before the sums
  // below, and all throw the same error instead of the others waiting in a collective.
  std::vector<double> buffer(length);
  {  // the agreement and the sum are the partials' collectives; what is summed is the remainder's
    const ScopedPhase sum_phase(StepPhase::partials_sum);
    comm_.all_or_none([&] {
      const ScopedPhase phase(StepPhase::remainder);
      for (Index k = 0, first = 0; k < num_row_blocks; first += own.block_rows[k], ++k) {
        const Index n = own.block_rows[k];
        if (first >= own_active) {  // blocks never mix active and remainder rows
          const SasPartials terms = sas_remainder_terms(kernel, noise, share.set, active.latents,
                                                        latents.sample.middleRows(first, n),
                                                        DataRefT<Scalar>(data.middleRows(first, n)), weight);
          terms.pack(blocks.col(k).data());
          d_sample.middleRows(first, n) = terms.d_latents_remainder;
        }
        if (model_.config().bayesian) blocks(length - 1, k) = model_.latents_kl(latents, first, n);
      }
      for (Index k = 0; k < share.columns.num_blocks(); ++k) {
        SasPartials fit = zero_partials(num_active, model_.ambient_dim(), kernel.num_hyperparameters());
        fit.add_active_data_fit(
            share.set.whitened_data.middleCols(share.columns.block_first(k), share.columns.block_count(k)));
        fit.pack(blocks.col(num_row_blocks + k).data());
      }
    });
    const BlockPartials<double> step_partials{blocks.data(), blocks.cols(), length, length};
    if (reproducible)
      reproducible_sum(comm_, step_partials, buffer.data());
    else
      per_rank_sum(comm_, step_partials, buffer.data());
  }
  partials.unpack(buffer.data());
  const double kl = buffer.back();
  const GpGradient total =
      combine_by_columns(comm_, kernel, noise, share.set, active.latents, partials, reproducible);

  model_.zero_all_but_encoder(gradient);
  gradient.head(total.d_kernel.size()) = total.d_kernel;
  gradient[total.d_kernel.size()] = total.d_log_noise;
  for (Index i = 0; i < own_active; ++i) d_sample.row(i) = total.d_latents.row(own.positions[i]);
  const double kl_w = model_.kl_weight(b);
  // Last reduction: the encoder gradient (ranks back-propagated only their own rows, one partial
  // per row block), in the encoder's precision; into this rank's slice when the optimiser is sharded.
  auto reduce = [&](const auto& partials_of_blocks, auto* g) {
    const ScopedPhase phase(StepPhase::gradient_sum);
    reproducible_sum(comm_, partials_of_blocks, g, encoder_slices);
  };
  auto reduce_per_rank = [&](auto* g, Index n) {
    const ScopedPhase phase(StepPhase::gradient_sum);
    if (encoder_slices)
      comm_.reduce_scatter_sum(g, *encoder_slices);
    else
      comm_.allreduce_sum(g, n);
  };
  SasModel::EncoderGradientSum sum;
  sum.block_rows = row_blocks;
  sum.blocks_f64 = [&](const BlockPartials<double>& p, double* g) { reduce(p, g); };
  sum.blocks_f32 = [&](const BlockPartials<float>& p, float* g) { reduce(p, g); };
  sum.f64 = [&](double* g, Index n) { reduce_per_rank(g, n); };
  sum.f32 = [&](float* g, Index n) { reduce_per_rank(g, n); };
  // Back-propagation, its sums charged to gradient_sum (the guards above).
  const ScopedPhase backward_phase(StepPhase::encoder_backward);
  if (route) {  // the gradients go back to the free latents' owners, who add them to their block
    const Matrix d_owned = [&] {
      const ScopedPhase exchange(StepPhase::latent_exchange);
      return exchange_batch_rows(comm_, route->worker, route->owner, RowMatrix(d_sample));
    }();
    const RowMatrixT<Scalar> no_columns(static_cast<Index>(route->owned_rows.size()), 0);
    if constexpr (std::is_same_v<Scalar, float>)
      model_.latents_backward(params, route->owned_rows, DataRefF(no_columns), owned, d_owned, kl_w, gradient,
                              sum, shadow);
    else
      model_.latents_backward(params, route->owned_rows, DataRef(no_columns), owned, d_owned, kl_w, gradient,
                              sum);
  } else if constexpr (std::is_same_v<Scalar, float>) {
    model_.latents_backward(params, own.rows, data, latents, d_sample, kl_w, gradient, sum, shadow);
  } else {
    model_.latents_backward(params, own.rows, data, latents, d_sample, kl_w, gradient, sum);
  }
  return {total.value - kl_w * kl, total.value, kl};
}

}  // namespace gplvm
