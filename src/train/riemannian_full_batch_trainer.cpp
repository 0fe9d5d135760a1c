#include "gplvm/train/riemannian_full_batch_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/phase_clock.hpp"
#include "gplvm/models/active_set.hpp"
#include "gplvm/optim/riemannian_adam.hpp"

namespace gplvm {
namespace {

// The paper optimiser's floors in natural units: the kernel and noise parameters (the point model's
// code) and the Bayesian kind's standard deviations (the Bayesian model's code).
constexpr double kPaperFloor = 1e-10, kPaperDeviationFloor = 1e-8;
// The paper's Bayesian code holds the variances for its first 100 iterations.
constexpr int kPaperHeldVarianceIterations = 100;
// The paper's sparse and Bayesian codes restart every active-set refresh at this rate.
constexpr double kPaperRefreshRate = 1e-3;

// The model's parameters split into what moves on the space (the point rows of the local block and
// the replicated points, Model::curved_shared_points) and what moves in R^n: the rest of the shared
// block, then the local block's other columns. An active set (Model::active_set) is in neither: it
// is not a parameter.
class ParameterSplit {
 public:
  ParameterSplit(const Model& model, const Manifold& manifold)
      : model_(model), point_cols_(manifold.ambient_dim()), shared_points_(model.curved_shared_points()) {
    std::vector<bool> excluded(static_cast<std::size_t>(model.num_shared_parameters()), false);
    for (const Model::SharedPoints& block : {shared_points_, model.active_set().points})
      for (Index i = 0; i < block.rows * point_cols_; ++i) excluded[block.offset + i] = true;
    for (Index i = 0; i < model.num_shared_parameters(); ++i)
      if (!excluded[i]) euclidean_shared_.push_back(i);
  }

  Matrix points(const Vector& params) const { return model_.local_block_rows(params).leftCols(point_cols_); }
  Matrix shared_points(const Vector& params) const {
    return Eigen::Map<const Matrix>(params.data() + shared_points_.offset, shared_points_.rows, point_cols_);
  }

  Vector euclidean(const Vector& params) const {
    const RowMatrix rows = model_.local_block_rows(params);
    const Index rest = rows.cols() - point_cols_, shared = euclidean_shared();
    Vector e(shared + rows.rows() * rest);
    for (Index i = 0; i < shared; ++i) e[i] = params[euclidean_shared_[i]];
    if (rest > 0) Eigen::Map<RowMatrix>(e.data() + shared, rows.rows(), rest) = rows.rightCols(rest);
    return e;
  }

  // params with the given points, replicated points and Euclidean values.
  void assemble(const Matrix& points, const Matrix& shared_points, const Vector& euclidean,
                Vector& params) const {
    RowMatrix rows = model_.local_block_rows(params);
    const Index rest = rows.cols() - point_cols_, shared = euclidean_shared();
    for (Index i = 0; i < shared; ++i) params[euclidean_shared_[i]] = euclidean[i];
    Eigen::Map<Matrix>(params.data() + shared_points_.offset, shared_points_.rows, point_cols_) =
        shared_points;
    rows.leftCols(point_cols_) = points;
    if (rest > 0)
      rows.rightCols(rest) = Eigen::Map<const RowMatrix>(euclidean.data() + shared, rows.rows(), rest);
    model_.set_local_block_rows(params, rows);
  }

  // How many leading Euclidean values are replicated (the rest are this rank's rows').
  Index euclidean_shared() const noexcept { return static_cast<Index>(euclidean_shared_.size()); }
  // The flat shared-block index of Euclidean value i < euclidean_shared().
  Index shared_index(Index i) const { return euclidean_shared_[i]; }

 private:
  const Model& model_;
  Index point_cols_;
  Model::SharedPoints shared_points_;
  std::vector<Index> euclidean_shared_;
};

// Keeps the bounded shared parameters (log values) at or above their bounds.
void apply_lower_bounds(const FullBatchObjective& objective, const ParameterSplit& split, Vector& euclidean) {
  const auto bounds = objective.shared_lower_bounds();
  if (bounds.empty()) return;
  for (Index i = 0; i < split.euclidean_shared(); ++i)
    for (const auto& [index, bound] : bounds)
      if (split.shared_index(i) == index) euclidean[i] = std::max(euclidean[i], bound);
}

// A point block and its ambient gradient's Riemannian gradient.
struct PointGradient {
  Matrix points, riemannian;
};

PointGradient riemannian_of(const Manifold& manifold, Matrix points, Matrix ambient) {
  manifold.riemannian_gradient(points, ambient);
  return {std::move(points), std::move(ambient)};
}

// The norm of the whole gradient (Riemannian for the points), summed over the ranks; the replicated
// parts counted once.
double gradient_norm(const Communicator& comm, const Manifold& manifold, const PointGradient& local_points,
                     const PointGradient& shared_points, const Vector& euclidean_gradient, Index shared) {
  double local = manifold.tangent_squared_norms(local_points.points, local_points.riemannian).sum() +
                 euclidean_gradient.tail(euclidean_gradient.size() - shared).squaredNorm();
  if (comm.is_root())
    local += euclidean_gradient.head(shared).squaredNorm() +
             manifold.tangent_squared_norms(shared_points.points, shared_points.riemannian).sum();
  return std::sqrt(comm.allreduce_sum(local));
}

// The paper's clipping: each point's step is its Riemannian gradient scaled so that the chart
// gradient (on the hyperboloid the derivative along the coordinates x~ of lift(x~); the manifold
// says, Manifold::chart_gradient_norms) has Euclidean norm at most 1.
void clip_chart_gradients(const Manifold& manifold, const Matrix& points, const Matrix& ambient,
                          Matrix& riemannian) {
  const Vector norms = manifold.chart_gradient_norms(points, ambient);
  for (Index n = 0; n < points.rows(); ++n)
    if (norms[n] > 1.0) riemannian.row(n) /= norms[n];
}

// The paper's clipped step of a point block along its Riemannian gradient at `rate`.
void paper_point_step(const Manifold& manifold, Matrix& points, const Matrix& ambient, double rate) {
  Matrix step = ambient;
  manifold.riemannian_gradient(points, step);
  clip_chart_gradients(manifold, points, ambient, step);
  manifold.retract(points, rate * step);
}

// The paper's Bayesian code steps each latent's standard deviation sigma = exp(theta / 2) for a
// log variance theta: dF/dsigma = 2 (dF/dtheta) / sigma, clipped to |g| <= 1, sigma floored.
double paper_deviation_step(double theta, double log_gradient, double rate) {
  const double sigma = std::exp(0.5 * theta);
  const double g = std::clamp(2.0 * log_gradient / sigma, -1.0, 1.0);
  return 2.0 * std::log(std::max(sigma + rate * g, kPaperDeviationFloor));
}

// One value of the paper's natural-unit step of a log-parametrised value: the gradient in the
// natural unit p = exp(theta), clipped to |g| <= 1, the new value floored.
double paper_log_step(double theta, double log_gradient, double rate, double floor) {
  const double p = std::exp(theta);
  const double g = std::clamp(log_gradient / p, -1.0, 1.0);
  return std::log(std::max(p + rate * g, floor));
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
        manifold_(model.curved_point_space()->manifold()),
        split_(model, manifold_),
        first_(options.resume ? options.resume->iteration : 0),
        rate_(options.resume && options.resume->rate > 0 ? options.resume->rate
                                                         : options.adam.learning_rate) {}

  FullBatchResult run(const Vector& initial, RiemannianState* final_state) {
    Iterate now{initial, Vector(), 0.0};
    // A resumed iterate was last evaluated under its iteration's draw, and already holds its active
    // set; a fresh one draws the set's start (no-op without one).
    objective_.set_noise_draw(first_);
    if (!options_.resume) refresh_active_set(model_, comm_, now.params, 0);
    evaluate(now);
    result_.curve.push_back(now.value);
    report(0, now);
    // A run stopped after an iteration ends before that iteration's active-set refresh: do it now.
    if (options_.resume && first_ > 0 && refresh(first_, now)) rate_ = kPaperRefreshRate;
    if (options_.method == RiemannianMethod::adam)
      run_adam(now, final_state);
    else
      run_paper(now);
    result_.params = now.params;
    result_.objective = now.value;
    result_.evaluations = evaluations_;
    if (final_state) {
      final_state->iteration = first_ + static_cast<std::uint64_t>(result_.iterations);
      final_state->rate = options_.method == RiemannianMethod::paper_gd ? rate_ : 0.0;
    }
    return result_;
  }

 private:
  void report(int iteration, const Iterate& at) {
    result_.gradient_norm = gradient_norm(
        comm_, manifold_, riemannian_of(manifold_, split_.points(at.params), split_.points(at.gradient)),
        riemannian_of(manifold_, split_.shared_points(at.params), split_.shared_points(at.gradient)),
        split_.euclidean(at.gradient), split_.euclidean_shared());
    if (options_.on_iteration) options_.on_iteration(iteration, at.value, result_.gradient_norm);
  }

  // After iteration `iteration` (absolute): the active set redrawn from the current latents when its
  // interval has passed, and the iterate evaluated again under it. True if it was redrawn.
  bool refresh(std::uint64_t iteration, Iterate& now) {
    const auto every = static_cast<std::uint64_t>(model_.active_set().every);
    if (every == 0 || iteration % every != 0) return false;
    Vector params = std::move(now.params);
    refresh_active_set(model_, comm_, params, iteration / every);
    now = evaluated(std::move(params));
    return true;
  }

  // Whether `value` exceeds options_.stop_above: rank 0's answer, so that every rank stops at the
  // same iteration. Collective.
  bool above_stop(double value) const {
    double above = value > options_.stop_above ? 1.0 : 0.0;
    comm_.broadcast(&above, 1, 0);
    return above > 0.0;
  }

  // After iteration `iteration` changed the objective by `change` to `value`: true (and the reason
  // set) to stop.
  bool should_stop(int iteration, double change, double value) {
    result_.iterations = iteration;
    if (std::abs(change) <= options_.tolerance) {
      result_.converged = true;
      result_.reason_text = "objective_change";
      return true;
    }
    if (options_.stop_above < std::numeric_limits<double>::infinity() && above_stop(value)) {
      result_.converged = true;
      result_.reason_text = "objective_above_stop_above";
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
    evaluate(next);
    return next;
  }

  // The objective and its gradient at it.params, charged to the breakdown's `model` phase.
  void evaluate(Iterate& it) {
    const ScopedPhase phase(StepPhase::model);
    it.value = objective_.evaluate(it.params, it.gradient);
    ++evaluations_;
  }

  // The three optimisers' state in the parameters' layout (RiemannianState::moments).
  AdamState packed(const RiemannianAdam& points, const RiemannianAdam& shared_points, const Adam& euclidean,
                   const Vector& like) const {
    AdamState s{Vector::Zero(like.size()), Vector::Zero(like.size()), euclidean.state().steps};
    const auto per_coordinate = [&](const Vector& per_point) {
      return Matrix(per_point.replicate(1, manifold_.ambient_dim()));
    };
    split_.assemble(points.first_moment(), shared_points.first_moment(), euclidean.state().first_moment,
                    s.first_moment);
    split_.assemble(per_coordinate(points.second_moment()), per_coordinate(shared_points.second_moment()),
                    euclidean.state().second_moment, s.second_moment);
    return s;
  }

  void unpack(const AdamState& s, RiemannianAdam& points, RiemannianAdam& shared_points,
              Adam& euclidean) const {
    points.set_state(split_.points(s.first_moment), split_.points(s.second_moment).col(0), s.steps);
    shared_points.set_state(split_.shared_points(s.first_moment),
                            split_.shared_points(s.second_moment).col(0), s.steps);
    euclidean.set_state({split_.euclidean(s.first_moment), split_.euclidean(s.second_moment), s.steps});
  }

  void run_adam(Iterate& now, RiemannianState* final_state) {
    Matrix points = split_.points(now.params), shared_points = split_.shared_points(now.params);
    Vector euclidean = split_.euclidean(now.params);
    RiemannianAdam point_adam(manifold_, points.rows(), options_.adam);
    RiemannianAdam shared_point_adam(manifold_, shared_points.rows(), options_.adam);
    Adam euclidean_adam(euclidean.size(), options_.adam);
    if (options_.resume && options_.resume->moments.steps > 0)
      unpack(options_.resume->moments, point_adam, shared_point_adam, euclidean_adam);
    run_adam_iterations(now, points, shared_points, euclidean, point_adam, shared_point_adam, euclidean_adam);
    if (final_state) final_state->moments = packed(point_adam, shared_point_adam, euclidean_adam, now.params);
  }

  void run_adam_iterations(Iterate& now, Matrix& points, Matrix& shared_points, Vector& euclidean,
                           RiemannianAdam& point_adam, RiemannianAdam& shared_point_adam,
                           Adam& euclidean_adam) {
    for (int iteration = 1;; ++iteration) {
      const std::uint64_t absolute = first_ + static_cast<std::uint64_t>(iteration);
      point_adam.ascend(points, split_.points(now.gradient));
      if (shared_points.rows() > 0)
        shared_point_adam.ascend(shared_points, split_.shared_points(now.gradient));
      euclidean_adam.ascend(euclidean, split_.euclidean(now.gradient));
      apply_lower_bounds(objective_, split_, euclidean);
      Vector params = now.params;
      split_.assemble(points, shared_points, euclidean, params);
      const double before = now.value;
      objective_.set_noise_draw(absolute);  // fresh noise: a new draw per step
      now = evaluated(std::move(params));
      result_.curve.push_back(now.value);
      report(iteration, now);
      if (!std::isfinite(now.value))
        throw NumericalError("the objective became non-finite under Riemannian Adam",
                             {"", "iteration", std::to_string(iteration)});
      if (should_stop(iteration, now.value - before, now.value)) return;
      refresh(absolute, now);
    }
  }

  // The paper's trial from `now` at the rate: points (and replicated points) along their clipped
  // Riemannian gradients, log-parametrised values by natural-unit steps: the shared ones (kernel,
  // noise), and the local ones (the Bayesian kind's log variances, stepped as standard deviations)
  // once the first kPaperHeldVarianceIterations iterations have passed.
  Vector paper_trial(const Iterate& now, double rate, std::uint64_t iteration) const {
    Matrix points = split_.points(now.params), shared_points = split_.shared_points(now.params);
    paper_point_step(manifold_, points, split_.points(now.gradient), rate);
    paper_point_step(manifold_, shared_points, split_.shared_points(now.gradient), rate);
    Vector euclidean = split_.euclidean(now.params);
    const Vector gradient = split_.euclidean(now.gradient);
    const Index shared = split_.euclidean_shared();
    for (Index i = 0; i < shared; ++i)
      euclidean[i] = paper_log_step(euclidean[i], gradient[i], rate, kPaperFloor);
    if (iteration > static_cast<std::uint64_t>(kPaperHeldVarianceIterations))
      for (Index i = shared; i < euclidean.size(); ++i)
        euclidean[i] = paper_deviation_step(euclidean[i], gradient[i], rate);
    apply_lower_bounds(objective_, split_, euclidean);
    Vector params = now.params;
    split_.assemble(points, shared_points, euclidean, params);
    return params;
  }

  void run_paper(Iterate& now) {
    double& rate = rate_;
    for (int iteration = 1;; ++iteration) {
      const std::uint64_t absolute = first_ + static_cast<std::uint64_t>(iteration);
      if (objective_.redraws_noise()) {
        // Fresh noise: the iteration's draw, under which the iterate is evaluated again (value and
        // gradient), so that the trial and the iterate it must beat share the same samples.
        objective_.set_noise_draw(absolute);
        now = evaluated(std::move(now.params));
      }
      Iterate trial = evaluated(paper_trial(now, rate, absolute));
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
      if (should_stop(iteration, std::isfinite(change) ? change : std::numeric_limits<double>::infinity(),
                      now.value))
        return;
      if (refresh(absolute, now)) rate = kPaperRefreshRate;
    }
  }

  const Model& model_;
  const FullBatchObjective& objective_;
  const Communicator& comm_;
  RiemannianFullBatchOptions options_;
  const Manifold& manifold_;
  ParameterSplit split_;
  std::uint64_t first_;  // iterations done before this run (a resumed run's checkpoint)
  double rate_;          // paper_gd's current rate
  FullBatchResult result_;
  std::int64_t evaluations_ = 0;
};

}  // namespace

FullBatchResult train_full_batch_riemannian(const Model& model, const FullBatchObjective& objective,
                                            const Communicator& comm, const Vector& initial_params,
                                            const RiemannianFullBatchOptions& options,
                                            RiemannianState* final_state) {
  require(model.curved_point_space() != nullptr,
          "Riemannian full-batch training needs free latents on a curved latent space",
          {"", "model.latent_space", model.latent_space()});
  require(initial_params.size() == model.num_parameters(), "initial parameters do not fit the model",
          {"", "parameters", std::to_string(initial_params.size())});
  validate_adam_options(options.adam);
  if (const RiemannianState* r = options.resume; r && r->moments.steps > 0)
    require(r->moments.first_moment.size() == model.num_parameters() &&
                r->moments.second_moment.size() == model.num_parameters(),
            "the Riemannian optimiser's state does not fit the model", {"", "/state/adam_m_shared", ""});
  return RiemannianRun(model, objective, comm, options).run(initial_params, final_state);
}

}  // namespace gplvm
