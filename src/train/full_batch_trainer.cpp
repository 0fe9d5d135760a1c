#include "gplvm/train/full_batch_trainer.hpp"

#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/phase_clock.hpp"
#include "gplvm/objectives/exact_distributed.hpp"

namespace gplvm {
namespace {

std::vector<int> row_counts(const Model& model, const Communicator& comm) {
  std::vector<int> counts;
  for (const std::int64_t n : comm.allgather(static_cast<std::int64_t>(model.local_rows())))
    counts.push_back(static_cast<int>(n));
  return counts;
}

// Vectors of the replicated length that TAO's L-BFGS (TAOBLMVM) holds: its limited memory (5
// pairs of steps and gradient changes, PETSc's default) and about a dozen of its own (iterate,
// gradients, bounds, step, line-search work), with the layout's copies: 24, rounded up; and the
// record of its latest iterates and gradients that a checkpoint keeps (7 of each): 38 in all.
constexpr double kReplicatedVectors = 38;

// Refuses (InputError naming the key, on every rank) a replicated vector that would not fit.
void check_replicated_memory(const Model& model, const Communicator& comm) {
  const double length =
      static_cast<double>(model.num_shared_parameters()) +
      static_cast<double>(model.num_data()) * static_cast<double>(model.local_values_per_row());
  const double needed = kReplicatedVectors * 8.0 * length, available = available_bytes_per_rank(comm);
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  char numbers[160];
  std::snprintf(numbers, sizeof numbers,
                "%.0f parameters on every rank: about %.2f GiB per rank, %.2f GiB available", length,
                needed / gib, available / gib);
  require(needed <= available,
          std::string("train.reproducible runs L-BFGS on a copy of every parameter on every rank (") +
              numbers + "); use fewer ranks per node or train.reproducible = false",
          {"", "train.reproducible", "true"});
}

// The model's parameters <-> TAO's vector on this rank.
class FullBatchLayout {
 public:
  virtual ~FullBatchLayout() = default;
  // The communicator TAO's vector lives on, and this rank's length of it.
  virtual const Communicator& tao_comm() const = 0;
  virtual Index slice_size() const = 0;
  // Whether this rank's slice starts with the shared block (where its bounds are set).
  virtual bool holds_shared() const = 0;
  // Collective: parameters (or a gradient) -> this rank's slice, and a slice -> parameters.
  virtual Vector slice(const Vector& params) const = 0;
  virtual void unslice(const ConstVectorRef& x, Vector& params) const = 0;
};

// TAO's vector distributed over the ranks: the shared block on rank 0, then every rank's own local
// block (rank r's slice: its local block, preceded on rank 0 by the shared block).
class DistributedLayout final : public FullBatchLayout {
 public:
  DistributedLayout(const Model& model, const Communicator& comm)
      : comm_(comm),
        shared_(model.num_shared_parameters()),
        local_(model.num_parameters() - model.num_shared_parameters()) {}

  const Communicator& tao_comm() const override { return comm_; }
  Index slice_size() const override { return (comm_.is_root() ? shared_ : 0) + local_; }
  bool holds_shared() const override { return comm_.is_root(); }

  Vector slice(const Vector& params) const override {
    Vector x(slice_size());
    if (comm_.is_root()) x.head(shared_) = params.head(shared_);
    x.tail(local_) = params.tail(local_);
    return x;
  }

  // Rank 0's shared block goes to every rank.
  void unslice(const ConstVectorRef& x, Vector& params) const override {
    params.resize(shared_ + local_);
    if (comm_.is_root()) params.head(shared_) = x.head(shared_);
    comm_.broadcast(params.data(), shared_, 0);
    params.tail(local_) = x.tail(local_);
  }

 private:
  const Communicator& comm_;
  Index shared_, local_;
};

// TAO's vector replicated on every rank (a sequential vector on MPI_COMM_SELF): the shared block,
// then every data row's local values in global row order. Every rank runs the same L-BFGS
// arithmetic on the same bits, whatever the rank count; a slice gathers the rows' values (a move,
// no sum), and a rank takes its own rows back from the replicated vector.
class ReplicatedLayout final : public FullBatchLayout {
 public:
  ReplicatedLayout(const Model& model, const Communicator& comm)
      : model_(model),
        comm_(comm),
        self_(MPI_COMM_SELF),
        shared_(model.num_shared_parameters()),
        width_(model.local_values_per_row()),
        row_counts_(row_counts(model, comm)) {}

  const Communicator& tao_comm() const override { return self_; }
  Index slice_size() const override { return shared_ + static_cast<Index>(model_.num_data()) * width_; }
  bool holds_shared() const override { return true; }

  Vector slice(const Vector& params) const override {
    Vector x(slice_size());
    x.head(shared_) = params.head(shared_);
    if (width_ == 0) return x;
    const RowMatrix rows = comm_.allgather_rows(DataRef(model_.local_block_rows(params)), row_counts_);
    x.tail(rows.size()) = rows.reshaped<Eigen::RowMajor>();
    return x;
  }

  void unslice(const ConstVectorRef& x, Vector& params) const override {
    params.resize(model_.num_parameters());
    params.head(shared_) = x.head(shared_);
    if (width_ == 0) return;
    const auto rows = static_cast<Index>(model_.local_rows());
    const Index first = shared_ + static_cast<Index>(model_.local_begin()) * width_;
    model_.set_local_block_rows(params, Eigen::Map<const RowMatrix>(x.data() + first, rows, width_));
  }

 private:
  const Model& model_;
  const Communicator& comm_;
  Communicator self_;
  Index shared_, width_;
  std::vector<int> row_counts_;
};

std::unique_ptr<FullBatchLayout> make_layout(const Model& model, const Communicator& comm, bool replicated) {
  if (!replicated) return std::make_unique<DistributedLayout>(model, comm);
  return std::make_unique<ReplicatedLayout>(model, comm);
}

TaoOptions tao_options(const FullBatchOptions& o) {
  TaoOptions tao;
  tao.gatol = o.gatol;
  tao.grtol = o.grtol;
  tao.gttol = o.gttol;
  tao.max_iterations = o.max_iterations;
  tao.frtol = o.frtol;
  tao.should_stop = o.should_stop;
  if (o.on_iteration)
    tao.on_iteration = [callback = o.on_iteration](const TaoIterate& it) {
      callback(it.iteration, -it.objective, it.gradient_norm);
    };
  return tao;
}

}  // namespace

FullBatchResult train_full_batch(const Model& model, const FullBatchObjective& objective,
                                 const Communicator& comm, const Vector& initial_params,
                                 const FullBatchOptions& options, const LbfgsMemory* memory) {
  require(initial_params.size() == model.num_parameters(), "initial parameters do not fit the model",
          {"", "parameters", std::to_string(initial_params.size())});
  if (options.replicated) check_replicated_memory(model, comm);
  const std::unique_ptr<FullBatchLayout> made = make_layout(model, comm, options.replicated);
  const FullBatchLayout& layout = *made;
  TaoMinimizer minimizer(layout.tao_comm(), layout.slice_size(), tao_options(options));
  // The shared block leads the slice of rank 0 (distributed) or of every rank (replicated).
  const auto bounds = objective.shared_lower_bounds();
  if (!bounds.empty()) {
    constexpr double infinity = std::numeric_limits<double>::infinity();
    Vector lower = Vector::Constant(layout.slice_size(), -infinity);
    if (layout.holds_shared())
      for (const auto& [index, bound] : bounds) lower[index] = bound;
    minimizer.set_bounds(lower, Vector::Constant(layout.slice_size(), infinity));
  }
  Vector params, gradient;
  std::int64_t evaluations = 0;
  // TAO minimises: everything is negated.
  const auto negated = [&](const ConstVectorRef& x, VectorRef x_gradient) {
    layout.unslice(x, params);
    const ScopedPhase phase(StepPhase::model);
    const double value = objective.evaluate(params, gradient);
    ++evaluations;
    x_gradient = -layout.slice(gradient);
    return -value;
  };
  TaoMemory resume;
  if (memory != nullptr) {
    std::string problem;
    if (memory->gradient.size() != memory->size() || memory->objective.size() != memory->size() ||
        memory->gradient_norm.size() != memory->size())
      problem = "the L-BFGS memory's parts have different lengths";
    for (std::size_t i = 0; problem.empty() && i < memory->size(); ++i)
      if (memory->x[i].size() != model.num_parameters() ||
          memory->gradient[i].size() != model.num_parameters())
        problem = "L-BFGS memory point " + std::to_string(i) + " does not fit the model's parameters";
    comm.agree_on_problem(problem, "L-BFGS memory");
    for (std::size_t i = 0; i < memory->size(); ++i)
      resume.points.push_back({layout.slice(memory->x[i]), layout.slice(memory->gradient[i]),
                               memory->objective[i], memory->gradient_norm[i]});
  }
  const TaoResult tao = minimizer.minimize(layout.slice(initial_params), negated, &resume);

  FullBatchResult result;
  layout.unslice(tao.solution, result.params);
  result.objective = -tao.objective;
  for (const TaoIterate& it : tao.history) result.curve.push_back(-it.objective);
  result.reason = tao.reason;
  result.reason_text = to_string(tao.reason);
  result.converged = tao.converged;
  result.iterations = tao.iterations;
  result.evaluations = evaluations;
  result.gradient_norm = tao.gradient_norm;
  result.lbfgs_restorable = tao.memory_restorable;
  for (const TaoMemoryPoint& p : tao.memory.points) {
    Vector x, g;
    layout.unslice(p.x, x);
    layout.unslice(p.gradient, g);
    result.lbfgs.x.push_back(std::move(x));
    result.lbfgs.gradient.push_back(std::move(g));
    result.lbfgs.objective.push_back(p.objective);
    result.lbfgs.gradient_norm.push_back(p.gradient_norm);
  }
  return result;
}

}  // namespace gplvm
