#include "gplvm/models/distributed_sas_step.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>

#include "gplvm/core/denormals.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/models/batch_workers.hpp"
#include "gplvm/model/gaussian_kl.hpp"

namespace gplvm {
namespace {

// Batch rows per unit of a thread's share when rows are copied into place.
constexpr Index kRowsPerShareUnit = 16;

// Every rank's count in a partition, as the known-count gathers take them.
std::vector<int> counts_of(const RowPartition& partition) {
  std::vector<int> counts(partition.num_ranks());
  for (int r = 0; r < partition.num_ranks(); ++r) counts[r] = static_cast<int>(partition.count(r));
  return counts;
}

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

// The active set with its A^2 D whitening beta = L^{-1} Y_A split by columns of Y_A: every rank
// factorises K_AA (A^3/3), whitens its slice of the D columns, and the slices are gathered, so
// the active set's cost per rank falls with the rank count instead of being paid on every rank.
struct ActiveSetShare {
  SasActiveSet set;        // factor and the full beta
  Index first_column = 0;  // this rank's slice of beta's columns, whose data fit it adds to its
  Index num_columns = 0;   // partials
  auto own_columns() const { return set.whitened_data.middleCols(first_column, num_columns); }
};

ActiveSetShare share_active_set(const Communicator& comm, const Kernel& kernel, double noise,
                                const ActiveRows& active) {
  ActiveSetShare share{sas_active_factor(kernel, noise, active.latents, active.data.cols())};
  const RowPartition columns(static_cast<std::uint64_t>(active.data.cols()), comm.size());
  share.first_column = static_cast<Index>(columns.begin(comm.rank()));
  share.num_columns = static_cast<Index>(columns.count(comm.rank()));
  share.set.whitened_data = comm.allgather_columns(
      whiten_active_columns(share.set, active.data.middleCols(share.first_column, share.num_columns)),
      counts_of(columns));
  return share;
}

// sas_combine with its two A x A x A solves split by columns of the adjoint: V = L^{-T} W by
// column slices, gathered; then each rank forms and back-propagates its own columns of
// L^{-T} W L^{-1}, and one small allreduce sums those contributions (A Q + hyperparameters + 1).
GpGradient combine_by_columns(const Communicator& comm, const Kernel& kernel, double noise,
                              const SasActiveSet& set, const Matrix& X_active, const SasPartials& partials) {
  const Index a = X_active.rows();
  const RowPartition columns(static_cast<std::uint64_t>(a), comm.size());
  const Index first = static_cast<Index>(columns.begin(comm.rank()));
  const Index count = static_cast<Index>(columns.count(comm.rank()));
  Matrix v_columns = sas_whitened_adjoint(set, partials).middleCols(first, count);
  set.factor.solve_upper_in_place(v_columns);
  const Matrix V = comm.allgather_columns(v_columns, counts_of(columns));

  GpGradient mine{0.0, Matrix::Zero(a, X_active.cols()), Vector::Zero(kernel.num_hyperparameters()), 0.0};
  add_active_adjoint_columns(kernel, noise, set, X_active, V, first, count, mine);
  std::vector<double> buffer(mine.d_latents.size() + mine.d_kernel.size() + 1);
  std::copy_n(mine.d_latents.data(), mine.d_latents.size(), buffer.begin());
  std::copy_n(mine.d_kernel.data(), mine.d_kernel.size(), buffer.begin() + mine.d_latents.size());
  buffer.back() = mine.d_log_noise;
  comm.allreduce_sum(buffer.data(), static_cast<Index>(buffer.size()));

  GpGradient total = sas_partials_gradient(set, partials);
  total.d_latents += Eigen::Map<const Matrix>(buffer.data(), a, X_active.cols());
  total.d_kernel += Eigen::Map<const Vector>(buffer.data() + mine.d_latents.size(), mine.d_kernel.size());
  total.d_log_noise += buffer.back();
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
  for (Index p = 0; p < static_cast<Index>(batch_rows.size()); ++p) {
    if (worker[p] == comm_.rank()) {
      work.positions.push_back(p);
      work.rows.push_back(batch_rows[p]);
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
  comm_.alltoallv(sent.data(), send_counts, send_displs, received.data(), receive_counts, receive_displs);

  // Each row at its place: own rows straight from the local block, the others in (source rank,
  // position) order, as they were sent.
  RowMatrixT<Scalar> data(static_cast<Index>(work.rows.size()), d);
  std::vector<Index> next(ranks, 0), source(data.rows());
  for (int r = 0, at = 0; r < ranks; at += receive_rows[r], ++r) next[r] = at;
  for (Index i = 0; i < data.rows(); ++i) {
    const int from = owner[work.positions[i]];
    source[i] = from == me ? -1 : next[from]++;
  }
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
  // Free latents live with their owner, so only amortised models move rows to balance the work.
  const bool balance = model_.config().latents == LatentKind::amortised;
  const std::vector<int> worker = batch_workers(batch_rows, num_active, partition_, balance);
  const WorkRows work = work_rows(batch_rows, worker, num_active);
  if (model_.config().precision == Precision::float64)
    return evaluate_in<double>(params, work, work_data<double>(batch_rows, worker, work), num_active, b, key,
                               gradient, encoder_slices, nullptr);
  const ScopedFlushDenormals flush(model_.config().flush_denormals);
  return evaluate_in<float>(params, work, work_data<float>(batch_rows, worker, work), num_active, b, key,
                            gradient, encoder_slices, shadow);
}

// In fp32 mode the rows are rounded to float once, here: the encoder and the remainder's data
// products use them as float, the active rows travel and are factorised as (exactly converted)
// doubles, so the objective is that of the fp32-rounded data throughout.
template <typename Scalar>
BatchTerms DistributedSasStep::evaluate_in(const Vector& params, const WorkRows& own,
                                           const RowMatrixT<Scalar>& data, Index num_active, Index b,
                                           StepKey key, Vector& gradient,
                                           const std::vector<int>* encoder_slices,
                                           Float32Shadow* shadow) const {
  const double weight = model_.remainder_weight(b, num_active);
  SasModel::LatentBatch latents;
  if constexpr (std::is_same_v<Scalar, float>)
    latents = model_.latents_forward(params, own.rows, data, key, shadow);
  else
    latents = model_.latents_forward(params, own.rows, data, key);
  const ActiveRows active =
      gather_active(comm_, own.positions, own.active_per_rank, latents.sample, data, num_active);

  const std::unique_ptr<Kernel> kernel_ptr = model_.kernel(params);
  const Kernel& kernel = *kernel_ptr;
  const double noise = model_.noise_variance(params);
  const ActiveSetShare share = share_active_set(comm_, kernel, noise, active);
  const Index own_active =
      std::count_if(own.positions.begin(), own.positions.end(), [&](Index p) { return p < num_active; });
  const Index own_remainder = static_cast<Index>(own.rows.size()) - own_active;
  SasPartials partials =
      sas_remainder_terms(kernel, noise, share.set, active.latents, latents.sample.bottomRows(own_remainder),
                          DataRefT<Scalar>(data.bottomRows(own_remainder)), weight);
  partials.add_active_data_fit(share.own_columns());

  // One allreduce: the partials and this rank's share of the KL.
  const double local_kl = model_.config().bayesian ? gaussian_kl(latents.mean, latents.variance) : 0.0;
  std::vector<double> buffer(partials.packed_size() + 1);
  partials.pack(buffer.data());
  buffer.back() = local_kl;
  comm_.allreduce_sum(buffer.data(), static_cast<Index>(buffer.size()));
  partials.unpack(buffer.data());
  const double kl = buffer.back();
  const GpGradient total = combine_by_columns(comm_, kernel, noise, share.set, active.latents, partials);

  model_.zero_all_but_encoder(gradient);
  gradient.head(total.d_kernel.size()) = total.d_kernel;
  gradient[total.d_kernel.size()] = total.d_log_noise;
  Matrix d_sample(own.rows.size(), model_.config().latent_dim);
  for (Index i = 0; i < own_active; ++i) d_sample.row(i) = total.d_latents.row(own.positions[i]);
  d_sample.bottomRows(own_remainder) = partials.d_latents_remainder;
  const double kl_w = model_.kl_weight(b);
  // Second reduction: the encoder gradient (ranks back-propagated only their own rows), in the
  // encoder's precision; a reduce-scatter when the optimiser is sharded.
  auto reduce = [&](auto* g, Index n) {
    if (encoder_slices)
      comm_.reduce_scatter_sum(g, *encoder_slices);
    else
      comm_.allreduce_sum(g, n);
  };
  const SasModel::EncoderGradientSum sum{[&](double* g, Index n) { reduce(g, n); },
                                         [&](float* g, Index n) { reduce(g, n); }};
  if constexpr (std::is_same_v<Scalar, float>)
    model_.latents_backward(params, own.rows, data, latents, d_sample, kl_w, gradient, sum, shadow);
  else
    model_.latents_backward(params, own.rows, data, latents, d_sample, kl_w, gradient, sum);
  return {total.value - kl_w * kl, total.value, kl};
}

}  // namespace gplvm
