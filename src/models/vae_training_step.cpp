#include "gplvm/models/vae_training_step.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/local_rows_check.hpp"

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

}  // namespace gplvm
