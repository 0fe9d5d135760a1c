#include "gplvm/train/full_batch_trainer.hpp"

#include <limits>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// The model's parameters <-> this rank's slice of TAO's vector.
class FullBatchLayout {
 public:
  FullBatchLayout(const Model& model, const Communicator& comm)
      : comm_(comm),
        shared_(model.num_shared_parameters()),
        local_(model.num_parameters() - model.num_shared_parameters()) {}

  Index slice_size() const { return (comm_.is_root() ? shared_ : 0) + local_; }

  Vector slice(const Vector& params) const {
    Vector x(slice_size());
    if (comm_.is_root()) x.head(shared_) = params.head(shared_);
    x.tail(local_) = params.tail(local_);
    return x;
  }

  // Collective: rank 0's shared block goes to every rank.
  void unslice(const ConstVectorRef& x, Vector& params) const {
    params.resize(shared_ + local_);
    if (comm_.is_root()) params.head(shared_) = x.head(shared_);
    comm_.broadcast(params.data(), shared_, 0);
    params.tail(local_) = x.tail(local_);
  }

 private:
  const Communicator& comm_;
  Index shared_, local_;
};

TaoOptions tao_options(const FullBatchOptions& o) {
  TaoOptions tao;
  tao.gatol = o.gatol;
  tao.grtol = o.grtol;
  tao.gttol = o.gttol;
  tao.max_iterations = o.max_iterations;
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
                                 const FullBatchOptions& options) {
  require(initial_params.size() == model.num_parameters(), "initial parameters do not fit the model",
          {"", "parameters", std::to_string(initial_params.size())});
  const FullBatchLayout layout(model, comm);
  TaoMinimizer minimizer(comm, layout.slice_size(), tao_options(options));
  // The shared block is rank 0's part of TAO's vector, so its bounds are set there.
  const auto bounds = objective.shared_lower_bounds();
  if (!bounds.empty()) {
    constexpr double infinity = std::numeric_limits<double>::infinity();
    Vector lower = Vector::Constant(layout.slice_size(), -infinity);
    if (comm.is_root())
      for (const auto& [index, bound] : bounds) lower[index] = bound;
    minimizer.set_bounds(lower, Vector::Constant(layout.slice_size(), infinity));
  }
  Vector params, gradient;
  std::int64_t evaluations = 0;
  // TAO minimises: everything is negated.
  const auto negated = [&](const ConstVectorRef& x, VectorRef x_gradient) {
    layout.unslice(x, params);
    const double value = objective.evaluate(params, gradient);
    ++evaluations;
    x_gradient = -layout.slice(gradient);
    return -value;
  };
  const TaoResult tao = minimizer.minimize(layout.slice(initial_params), negated);

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
  return result;
}

}  // namespace gplvm
