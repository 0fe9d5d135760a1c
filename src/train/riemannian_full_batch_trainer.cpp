#include "gplvm/train/riemannian_full_batch_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/model/lorentz_geometry.hpp"
#include "gplvm/models/latent_space_manifold.hpp"
#include "gplvm/optim/riemannian_adam.hpp"

namespace gplvm {
namespace {

// The paper optimiser's floor on the kernel and noise parameters (natural units).
constexpr double kPaperFloor = 1e-10;

// The model's parameters split into what moves on the space (the point rows of the local block)
// and what moves in R^n: the shared block followed by the local block's other columns.
class ParameterSplit {
 public:
  ParameterSplit(const Model& model, const LatentSpace& space)
      : model_(model), shared_(model.num_shared_parameters()), point_cols_(space.ambient_dim()) {}

  Matrix points(const Vector& params) const { return model_.local_block_rows(params).leftCols(point_cols_); }

  Vector euclidean(const Vector& params) const {
    const RowMatrix rows = model_.local_block_rows(params);
    const Index rest = rows.cols() - point_cols_;
    Vector e(shared_ + rows.rows() * rest);
    e.head(shared_) = params.head(shared_);
    if (rest > 0) Eigen::Map<RowMatrix>(e.data() + shared_, rows.rows(), rest) = rows.rightCols(rest);
    return e;
  }

  // params with the given points and Euclidean values.
  void assemble(const Matrix& points, const Vector& euclidean, Vector& params) const {
    RowMatrix rows = model_.local_block_rows(params);
    const Index rest = rows.cols() - point_cols_;
    params.head(shared_) = euclidean.head(shared_);
    rows.leftCols(point_cols_) = points;
    if (rest > 0)
      rows.rightCols(rest) = Eigen::Map<const RowMatrix>(euclidean.data() + shared_, rows.rows(), rest);
    model_.set_local_block_rows(params, rows);
  }

  Index shared() const noexcept { return shared_; }

 private:
  const Model& model_;
  Index shared_, point_cols_;
};

// Keeps the bounded shared parameters (log values) at or above their bounds.
void apply_lower_bounds(const FullBatchObjective& objective, Vector& euclidean) {
  for (const auto& [index, bound] : objective.shared_lower_bounds())
    euclidean[index] = std::max(euclidean[index], bound);
}

// The squared norm of the whole gradient (Riemannian for the points), summed over the ranks.
double gradient_norm(const Communicator& comm, const LatentSpace& space, const Matrix& points,
                     const Matrix& riemannian, const Vector& euclidean_gradient, Index shared) {
  double local = space.tangent_squared_norms(points, riemannian).sum() +
                 euclidean_gradient.tail(euclidean_gradient.size() - shared).squaredNorm();
  if (comm.is_root()) local += euclidean_gradient.head(shared).squaredNorm();
  return std::sqrt(comm.allreduce_sum(local));
}

// The paper's clipping: each point's step is its Riemannian gradient scaled so that the chart
// gradient (the derivative along the coordinates x~ of lift(x~)) has Euclidean norm at most 1. In
// R^Q the chart is the identity.
void clip_chart_gradients(const LatentSpace& space, const Matrix& points, const Matrix& ambient,
                          Matrix& riemannian) {
  const bool curved = space.ambient_dim() != space.intrinsic_dim();
  for (Index n = 0; n < points.rows(); ++n) {
    const double norm =
        curved ? lorentz::chart_gradient(points.row(n).transpose(), ambient.row(n).transpose()).norm()
               : ambient.row(n).norm();
    if (norm > 1.0) riemannian.row(n) /= norm;
  }
}

// One value of the paper's natural-unit step of a log-parametrised value: the gradient in the
// natural unit p = exp(theta), clipped to |g| <= 1, the new value floored.
double paper_log_step(double theta, double log_gradient, double rate) {
  const double p = std::exp(theta);
  const double g = std::clamp(log_gradient / p, -1.0, 1.0);
  return std::log(std::max(p + rate * g, kPaperFloor));
}

struct Iterate {
  Vector params, gradient;
  double value = 0;
};

class RiemannianRun {
 public:
  RiemannianRun(const Model& model, const FullBatchObjective& objective, const Communicator& comm,
                const RiemannianFullBatchOptions& options)
      : model_(model),
        objective_(objective),
        comm_(comm),
        options_(options),
        space_(*model.curved_point_space()),
        split_(model, space_) {}

  FullBatchResult run(const Vector& initial) {
    Iterate now{initial, Vector(), 0.0};
    now.value = objective_.evaluate(now.params, now.gradient);
    ++evaluations_;
    result_.curve.push_back(now.value);
    report(0, now);
    if (options_.method == RiemannianMethod::adam)
      run_adam(now);
    else
      run_paper(now);
    result_.params = now.params;
    result_.objective = now.value;
    result_.evaluations = evaluations_;
    return result_;
  }

 private:
  void report(int iteration, const Iterate& at) {
    const Matrix points = split_.points(at.params);
    Matrix riemannian = split_.points(at.gradient);
    space_.riemannian_gradient(points, riemannian);
    result_.gradient_norm =
        gradient_norm(comm_, space_, points, riemannian, split_.euclidean(at.gradient), split_.shared());
    if (options_.on_iteration) options_.on_iteration(iteration, at.value, result_.gradient_norm);
  }

  // After iteration `iteration` changed the objective by `change`: true (and the reason set) to stop.
  bool should_stop(int iteration, double change) {
    result_.iterations = iteration;
    if (std::abs(change) <= options_.tolerance) {
      result_.converged = true;
      result_.reason_text = "objective_change";
      return true;
    }
    if (options_.should_stop && options_.should_stop()) {
      result_.reason = TaoStopReason::stop_requested;
      result_.reason_text = to_string(result_.reason);
      return true;
    }
    if (iteration >= options_.max_iterations) {
      result_.reason = TaoStopReason::max_iterations;
      result_.reason_text = to_string(result_.reason);
      return true;
    }
    return false;
  }

  Iterate evaluated(Vector params) {
    Iterate next{std::move(params), Vector(), 0.0};
    next.value = objective_.evaluate(next.params, next.gradient);
    ++evaluations_;
    return next;
  }

  void run_adam(Iterate& now) {
    const LatentSpaceManifold manifold(space_);
    Matrix points = split_.points(now.params);
    Vector euclidean = split_.euclidean(now.params);
    RiemannianAdam point_adam(manifold, points.rows(), options_.adam);
    Adam euclidean_adam(euclidean.size(), options_.adam);
    for (int iteration = 1;; ++iteration) {
      point_adam.ascend(points, split_.points(now.gradient));
      euclidean_adam.ascend(euclidean, split_.euclidean(now.gradient));
      apply_lower_bounds(objective_, euclidean);
      Vector params = now.params;
      split_.assemble(points, euclidean, params);
      const double before = now.value;
      now = evaluated(std::move(params));
      result_.curve.push_back(now.value);
      report(iteration, now);
      if (!std::isfinite(now.value))
        throw NumericalError("the objective became non-finite under Riemannian Adam",
                             {"", "iteration", std::to_string(iteration)});
      if (should_stop(iteration, now.value - before)) return;
    }
  }

  // The paper's trial from `now` at the rate: points along their clipped Riemannian gradients,
  // log-parametrised shared values by natural-unit steps, other local values by clipped steps.
  Vector paper_trial(const Iterate& now, double rate) const {
    Matrix points = split_.points(now.params);
    const Matrix ambient = split_.points(now.gradient);
    Matrix step = ambient;
    space_.riemannian_gradient(points, step);
    clip_chart_gradients(space_, points, ambient, step);
    space_.retract(points, rate * step);
    Vector euclidean = split_.euclidean(now.params);
    const Vector gradient = split_.euclidean(now.gradient);
    for (Index i = 0; i < euclidean.size(); ++i)
      euclidean[i] = i < split_.shared() ? paper_log_step(euclidean[i], gradient[i], rate)
                                         : euclidean[i] + rate * std::clamp(gradient[i], -1.0, 1.0);
    apply_lower_bounds(objective_, euclidean);
    Vector params = now.params;
    split_.assemble(points, euclidean, params);
    return params;
  }

  void run_paper(Iterate& now) {
    double rate = options_.adam.learning_rate;
    for (int iteration = 1;; ++iteration) {
      Iterate trial = evaluated(paper_trial(now, rate));
      const double change = trial.value - now.value;
      // One decision for every rank (rank 0's), whatever rounding the ranks' values carry.
      double accept = std::isfinite(trial.value) && change > 0.0 ? 1.0 : 0.0;
      comm_.broadcast(&accept, 1, 0);
      if (accept > 0.0)
        now = std::move(trial);
      else
        rate *= 0.1;
      result_.curve.push_back(now.value);
      report(iteration, now);
      if (should_stop(iteration, std::isfinite(change) ? change : std::numeric_limits<double>::infinity()))
        return;
    }
  }

  const Model& model_;
  const FullBatchObjective& objective_;
  const Communicator& comm_;
  RiemannianFullBatchOptions options_;
  const LatentSpace& space_;
  ParameterSplit split_;
  FullBatchResult result_;
  std::int64_t evaluations_ = 0;
};

}  // namespace

FullBatchResult train_full_batch_riemannian(const Model& model, const FullBatchObjective& objective,
                                            const Communicator& comm, const Vector& initial_params,
                                            const RiemannianFullBatchOptions& options) {
  require(model.curved_point_space() != nullptr,
          "Riemannian full-batch training needs free latents on a curved latent space",
          {"", "model.latent_space", model.latent_space()});
  require(initial_params.size() == model.num_parameters(), "initial parameters do not fit the model",
          {"", "parameters", std::to_string(initial_params.size())});
  validate_adam_options(options.adam);
  return RiemannianRun(model, objective, comm, options).run(initial_params);
}

}  // namespace gplvm
