// The sparse GPLVMs' minibatch TrainingStep (uncollapsed bound on the batch rows each rank owns,
// statistics scaled by N/B) and full-batch objective (collapsed bound over every row).
#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/global_row_blocks.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/parallel/row_redistribution.hpp"

namespace gplvm {
namespace {

// The rank's rows must be its partition block, finite and D wide; InputError (naming the first
// bad global row) on every rank otherwise.
void validate_local_rows(const SparseGplvmModel& model, const Communicator& comm,
                         const RowPartition& partition, const DataRef& local) {
  require(partition.num_ranks() == comm.size(), "row partition was made for a different rank count",
          {"", "ranks", std::to_string(partition.num_ranks())});
  require(static_cast<std::uint64_t>(local.rows()) == partition.count(comm.rank()) &&
              partition.begin(comm.rank()) == model.local_begin() && partition.num_rows() == model.num_data(),
          "local data block does not match this rank's rows", {"", "rows", std::to_string(local.rows())});
  require(local.cols() == model.data_dim(), "local data has the wrong number of columns",
          {"", "data_dim", std::to_string(local.cols())});
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad = kNone;
  for (Index i = 0; i < local.rows() && bad == kNone; ++i)
    if (!local.row(i).allFinite()) bad = static_cast<std::int64_t>(partition.begin(comm.rank())) + i;
  const std::int64_t first_bad = comm.allreduce_min(bad);
  if (first_bad != kNone)
    throw InputError("data row contains NaN or Inf", {"", "row", std::to_string(first_bad)});
}

// The active set is a copy of latents, not a parameter: no gradient reaches it, and K_ZZ depends
// on it alone, so none reaches the latents through K_ZZ either. Its zero gradient with zero
// moments leaves Adam's step on it zero.
void drop_active_set_gradient(const SparseGplvmModel& model, Vector& gradient) {
  const Model::ActiveSet active = model.active_set();
  gradient.segment(active.points.offset, active.points.rows * model.ambient_dim()).setZero();
}

// Held hyperparameters (model.fixed_hyperparameters) get no gradient, so every full-batch
// optimiser leaves their bits: Adam's moments stay zero (a zero step) and the paper's ascent adds
// rate x 0. L-BFGS too, by induction over its iterations: with g_i = 0 at every iterate, every pair
// (s_k, y_k) has y_k,i = g_k+1,i - g_k,i = 0, and s_k,i = 0 while the entry has not moved; the
// two-loop recursion then keeps the direction's entry i at 0 (q_i starts 0 and loses alpha y_k,i = 0;
// the initial matrix is diagonal, H0_ii times 0; the second loop adds s_k,i (alpha - beta) = 0), and
// the line search moves x_i by t times 0, so s_k,i stays exactly 0. Sign aside, x + 0 is x's bits.
void drop_held_gradient(const SparseGplvmModel& model, Vector& gradient) {
  for (const Index i : model.fixed_parameter_indices()) gradient[i] = 0.0;
}

DataRef float64_rows(const LocalRows& local_rows) {
  require(std::holds_alternative<DataRef>(local_rows), "sparse GPLVMs hold their data rows in float64",
          {"", "model.precision", "float32"});
  return std::get<DataRef>(local_rows);
}

class SparseGplvmStep final : public TrainingStep {
 public:
  SparseGplvmStep(const SparseGplvmModel& model, const Communicator& comm, const RowPartition& partition,
                  DataRef local)
      : model_(model), comm_(comm), partition_(partition), local_(local) {
    validate_local_rows(model, comm, partition, local);
  }

  // Every rank knows the batch; each takes the rows it owns (owner computes, nothing is moved).
  BatchTerms evaluate(const Vector& params, const std::vector<std::uint64_t>& batch_rows, StepKey key,
                      Vector& gradient, const std::vector<int>*, Float32Shadow*) const override {
    if (model_.config().reproducible_sums) {
      const BatchTerms terms =
          model_.evaluate_batch_in_blocks(comm_, partition_, params, batch_rows, local_, gradient, key);
      drop_active_set_gradient(model_, gradient);
      return terms;
    }
    const std::uint64_t begin = partition_.begin(comm_.rank()), end = begin + partition_.count(comm_.rank());
    rows_.clear();
    for (const std::uint64_t row : batch_rows)
      if (row >= begin && row < end) rows_.push_back(static_cast<Index>(row - begin));
    data_.resize(static_cast<Index>(rows_.size()), local_.cols());
    for (Index i = 0; i < data_.rows(); ++i) data_.row(i) = local_.row(rows_[i]);
    const double scale = static_cast<double>(model_.num_data()) / static_cast<double>(batch_rows.size());
    const BatchTerms terms = model_.evaluate_rows(comm_, params, rows_, data_, scale,
                                                  SparseGplvmModel::Bound::uncollapsed, gradient, key);
    drop_active_set_gradient(model_, gradient);
    return terms;
  }

 private:
  const SparseGplvmModel& model_;
  const Communicator& comm_;
  RowPartition partition_;
  DataRef local_;
  mutable std::vector<Index> rows_;  // reused from step to step
  mutable RowMatrix data_;
};

// The collapsed bound over every row: per-rank sums, or under reproducible_sums sums over fixed
// blocks of global rows, whose data rows are moved to the block layout once, here.
class SparseGplvmFullBatch final : public FullBatchObjective {
 public:
  SparseGplvmFullBatch(const SparseGplvmModel& model, const Communicator& comm, const RowPartition& partition,
                       DataRef local)
      : model_(model),
        comm_(comm),
        partition_(partition),
        local_(local),
        rows_(static_cast<std::size_t>(local.rows())) {
    validate_local_rows(model, comm, partition, local);
    for (Index i = 0; i < local.rows(); ++i) rows_[i] = i;
    if (!model.config().reproducible_sums) return;
    blocks_ = global_row_blocks(partition);
    block_data_ =
        redistribute_rows(comm, local, partition.begin(comm.rank()), partition.num_rows(), blocks_.begins);
  }

  double evaluate(const Vector& params, Vector& gradient) const override {
    const double value = model_.config().reproducible_sums
                             ? model_.evaluate_full_batch_in_blocks(comm_, partition_, blocks_, params,
                                                                    local_, block_data_, gradient, key_)
                             : model_
                                   .evaluate_rows(comm_, params, rows_, local_, 1.0,
                                                  SparseGplvmModel::Bound::collapsed, gradient, key_)
                                   .objective;
    drop_active_set_gradient(model_, gradient);
    drop_held_gradient(model_, gradient);
    return value;
  }

  bool redraws_noise() const override { return model_.config().psi_noise == PsiNoise::fresh; }
  // Draw i is the minibatch key (epoch i, step 0): the noise of fresh draws is keyed by both.
  void set_noise_draw(std::uint64_t draw) const override { key_ = StepKey{draw, 0}; }

 private:
  const SparseGplvmModel& model_;
  const Communicator& comm_;
  RowPartition partition_;
  DataRef local_;
  std::vector<Index> rows_;
  mutable StepKey key_;  // the current noise draw (set_noise_draw); fixed noise ignores it
  GlobalRowBlocks blocks_;
  RowMatrix block_data_;
};

}  // namespace

std::unique_ptr<TrainingStep> SparseGplvmModel::make_step(const Communicator& comm,
                                                          const RowPartition& partition,
                                                          LocalRows local_rows) const {
  require(config_.training == SparseTraining::minibatch,
          "a full-batch sparse GPLVM is trained by L-BFGS on its full-batch objective, not by steps",
          {"", "sparse.training", "full_batch"});
  return std::make_unique<SparseGplvmStep>(*this, comm, partition, float64_rows(local_rows));
}

// Also for minibatch models (whose q(u) then has zero gradient): their collapsed bound is the
// value the uncollapsed one reaches at the optimal q(u).
std::unique_ptr<FullBatchObjective> SparseGplvmModel::make_full_batch_objective(const Communicator& comm,
                                                                                const RowPartition& partition,
                                                                                LocalRows local_rows) const {
  return std::make_unique<SparseGplvmFullBatch>(*this, comm, partition, float64_rows(local_rows));
}

}  // namespace gplvm
