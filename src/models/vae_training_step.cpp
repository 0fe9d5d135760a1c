#include "gplvm/models/vae_training_step.hpp"

#include <algorithm>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/batch_row_exchange.hpp"
#include "gplvm/models/batch_workers.hpp"
#include "gplvm/models/local_rows_check.hpp"
#include "gplvm/parallel/reproducible_sum.hpp"

namespace gplvm {

VaeTrainingStep::VaeTrainingStep(const VaeModel& model, const Communicator& comm,
                                 const RowPartition& partition, DataRef local_data)
    : model_(model), comm_(comm), partition_(partition), local_(local_data) {
  check_local_rows<double>(comm_, partition_, local_, model_.data_dim());
}

void VaeTrainingStep::gather_own_rows(const std::vector<std::uint64_t>& batch_rows) const {
  const int me = comm_.rank();
  const std::uint64_t begin = partition_.begin(me), end = begin + partition_.count(me);
  own_rows_.clear();
  for (const std::uint64_t row : batch_rows)
    if (row >= begin && row < end) own_rows_.push_back(row);
  own_data_.resize(static_cast<Index>(own_rows_.size()), model_.data_dim());
  for (Index i = 0; i < own_data_.rows(); ++i)
    own_data_.row(i) = local_.row(static_cast<Index>(own_rows_[i] - begin));
}

BatchTerms VaeTrainingStep::evaluate(const Vector& params, const std::vector<std::uint64_t>& batch_rows,
                                     StepKey key, Vector& gradient, const std::vector<int>* summed_slices,
                                     Float32Shadow* shadow) const {
  require(!shadow, "an fp32 shadow was given to a step of the VAE, which trains in float64 only",
          {"", "model.precision", "float64"});
  const auto b = static_cast<std::uint64_t>(batch_rows.size());
  require(b >= 1 && b <= model_.num_data(), "batch must hold between 1 and N rows",
          {"", "batch", std::to_string(b)});
  if (model_.reproducible_sums()) return evaluate_in_blocks(params, batch_rows, key, gradient, summed_slices);
  gather_own_rows(batch_rows);
  const Matrix eps = vae_reparameterisation_noise(CounterRng(model_.seed()), key.epoch, key.step, own_rows_,
                                                  model_.latent_dim());
  // The whole batch's weights on every rank: the rank sums then add up to the batch estimator.
  const double w = static_cast<double>(model_.num_data()) / static_cast<double>(b);
  // This rank's rows alone: a failure there is agreed before the sums, so no rank waits in them.
  VaeElboTerms terms;
  comm_.all_or_none([&] { terms = model_.elbo().evaluate(params, own_data_, eps, w, w, gradient); });

  double sums[3] = {terms.value, w * terms.log_likelihood, terms.kl};
  comm_.allreduce_sum(sums, 3);
  if (summed_slices)
    comm_.reduce_scatter_sum(gradient.data(), *summed_slices);
  else
    comm_.allreduce_sum(gradient.data(), gradient.size());
  return {sums[0], sums[1], sums[2]};
}

BatchTerms VaeTrainingStep::evaluate_in_blocks(const Vector& params,
                                               const std::vector<std::uint64_t>& batch_rows, StepKey key,
                                               Vector& gradient,
                                               const std::vector<int>* summed_slices) const {
  const auto b = static_cast<Index>(batch_rows.size());
  const int me = comm_.rank();
  std::vector<int> owner(batch_rows.size());
  for (std::size_t p = 0; p < batch_rows.size(); ++p) owner[p] = partition_.owner(batch_rows[p]);
  const std::vector<int> worker = batch_block_workers(b, 0, comm_.size());  // no active set: one range
  gather_own_rows(batch_rows);  // the owned rows in position order, as the exchange takes them
  const RowMatrix rows = exchange_batch_rows(comm_, owner, worker, own_data_);
  // This rank's positions (whole blocks, in position order), grouped by block.
  std::vector<std::uint64_t> block_rows;
  std::vector<Index> block_first;  // the first of each block's rows in `rows`, then the end
  for (Index p = 0, i = 0; p < b; ++p) {
    if (worker[p] != me) continue;
    if (block_first.empty() || batch_block_of(p, 0) != batch_block_of(p - 1, 0)) block_first.push_back(i);
    ++i;
  }
  block_first.push_back(rows.rows());
  const auto blocks = static_cast<Index>(block_first.size()) - 1;
  const Index n = params.size();
  const double w = static_cast<double>(model_.num_data()) / static_cast<double>(b);
  std::vector<double> term_partials(static_cast<std::size_t>(3 * blocks));
  std::vector<double> gradient_partials(static_cast<std::size_t>(n * blocks));
  std::vector<std::uint64_t> my_rows;
  for (Index p = 0; p < b; ++p)
    if (worker[p] == me) my_rows.push_back(batch_rows[p]);
  // This rank's blocks alone: a failure there is agreed before the sums, so no rank waits in them.
  comm_.all_or_none([&] {
    Vector block_gradient;
    for (Index k = 0; k < blocks; ++k) {
      const Index first = block_first[k], count = block_first[k + 1] - first;
      const std::vector<std::uint64_t> ids(my_rows.begin() + first, my_rows.begin() + first + count);
      const Matrix eps = vae_reparameterisation_noise(CounterRng(model_.seed()), key.epoch, key.step, ids,
                                                      model_.latent_dim());
      const RowMatrix block = rows.middleRows(first, count);
      const VaeElboTerms terms = model_.elbo().evaluate(params, block, eps, w, w, block_gradient);
      term_partials[3 * k] = terms.value;
      term_partials[3 * k + 1] = w * terms.log_likelihood;
      term_partials[3 * k + 2] = terms.kl;
      std::copy_n(block_gradient.data(), n, gradient_partials.data() + k * n);
    }
  });
  double sums[3];
  reproducible_sum(comm_, BlockPartials<double>{term_partials.data(), blocks, 3, 3}, sums);
  gradient.resize(n);
  reproducible_sum(comm_, BlockPartials<double>{gradient_partials.data(), blocks, n, n}, gradient.data(),
                   summed_slices);
  return {sums[0], sums[1], sums[2]};
}

}  // namespace gplvm
