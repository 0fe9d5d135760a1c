#include "gplvm/train/exact_trainer.hpp"

#include "gplvm/model/kernel_registry.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

bool same_on_every_rank(Index value, const Communicator& comm) {
  const auto v = static_cast<double>(value);
  return comm.allreduce_max(v) == -comm.allreduce_max(-v);
}

// ---------------------------------------------------------------------------------------------
// Training

void validate_training_options(const ExactTrainingOptions& o) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  require(positive(o.kernel_variance), "the initial kernel variance must be positive and finite",
          {"", "kernel_variance", std::to_string(o.kernel_variance)});
  require(positive(o.lengthscale), "the initial lengthscale must be positive and finite",
          {"", "lengthscale", std::to_string(o.lengthscale)});
  require(positive(o.min_noise_variance), "the noise variance floor must be positive and finite",
          {"", "min_noise_variance", std::to_string(o.min_noise_variance)});
  require(std::isfinite(o.noise_variance) && o.noise_variance >= o.min_noise_variance,
          "the initial noise variance must be finite and at least min_noise_variance (" +
              std::to_string(o.min_noise_variance) + ")",
          {"", "noise_variance", std::to_string(o.noise_variance)});
}

void validate_initial_latents(const ConstMatrixRef& latents, const RowPartition& partition,
                              const Communicator& comm) {
  const auto expected = static_cast<Index>(partition.count(comm.rank()));
  std::string problem;
  if (latents.rows() != expected)
    problem = "rank " + std::to_string(comm.rank()) + " has " + std::to_string(latents.rows()) +
              " initial latent rows but owns " + std::to_string(expected) + " data rows";
  else if (!latents.allFinite())
    problem = "initial latents of rank " + std::to_string(comm.rank()) + " contain NaN or Inf";
  comm.agree_on_problem(problem, "initial latents");
  require(same_on_every_rank(latents.cols(), comm), "ranks disagree on the latent dimension",
          {"", "latent_dim", std::to_string(latents.cols())});
  require(latents.cols() >= 1, "the latent dimension must be at least 1", {"", "latent_dim", "0"});
}

TaoOptions tao_options(const ExactTrainingOptions& o) {
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

// ---------------------------------------------------------------------------------------------
// ExactGplvmObjective

struct ExactGplvmObjective::State {
  std::unique_ptr<Kernel> kernel;
  DataRef Y_local;
  RowPartition partition;
  const Communicator& comm;
  ExactDistributedOptions options;
  Index q = 0, shared = 0, rows = 0, first_row = 0;
  std::int64_t evaluations = 0;

  State(const Kernel& k, const DataRef& Y, const RowPartition& p, const Communicator& c,
        ExactDistributedOptions o)
      : kernel(k.clone()), Y_local(Y), partition(p), comm(c), options(o) {
    options.with_gradient = true;
    q = kernel->input_dim();
    shared = kernel->num_hyperparameters() + 1;
    rows = static_cast<Index>(partition.count(comm.rank()));
    first_row = static_cast<Index>(partition.begin(comm.rank()));
  }
  Index offset() const { return comm.is_root() ? shared : 0; }  // where the local latents start
};

ExactGplvmObjective::ExactGplvmObjective(const Kernel& kernel, const DataRef& Y_local,
                                         const RowPartition& partition, const Communicator& comm,
                                         ExactDistributedOptions options) {
  require_partitioned_data(Y_local, partition, comm);
  state_ = std::make_unique<State>(kernel, Y_local, partition, comm, options);
}

ExactGplvmObjective::~ExactGplvmObjective() = default;

Index ExactGplvmObjective::latent_dim() const noexcept {
  return state_->q;
}
Index ExactGplvmObjective::num_shared() const noexcept {
  return state_->shared;
}
Index ExactGplvmObjective::local_rows() const noexcept {
  return state_->rows;
}
Index ExactGplvmObjective::local_size() const noexcept {
  return state_->offset() + state_->rows * state_->q;
}
std::int64_t ExactGplvmObjective::evaluations() const noexcept {
  return state_->evaluations;
}

Vector ExactGplvmObjective::pack(const ConstMatrixRef& latents_local,
                                 const ConstVectorRef& log_hyperparameters, double noise_variance) const {
  const State& s = *state_;
  require(latents_local.rows() == s.rows && latents_local.cols() == s.q,
          "latents must be local_rows x latent_dim", {"", "latents", std::to_string(latents_local.rows())});
  Vector x(local_size());
  if (s.comm.is_root()) {
    require(log_hyperparameters.size() == s.shared - 1, "wrong number of kernel hyperparameters",
            {"", "hyperparameters", std::to_string(log_hyperparameters.size())});
    x.head(s.shared - 1) = log_hyperparameters;
    x[s.shared - 1] = std::log(noise_variance);
  }
  Eigen::Map<RowMatrix>(x.data() + s.offset(), s.rows, s.q) = latents_local;
  return x;
}

Matrix ExactGplvmObjective::local_latents(const ConstVectorRef& local_x) const {
  const State& s = *state_;
  return Eigen::Map<const RowMatrix>(local_x.data() + s.offset(), s.rows, s.q);
}

Vector ExactGplvmObjective::shared_parameters(const ConstVectorRef& local_x) const {
  const State& s = *state_;
  Vector shared = s.comm.is_root() ? Vector(local_x.head(s.shared)) : Vector(s.shared);
  s.comm.broadcast(shared.data(), s.shared, 0);
  return shared;
}

double ExactGplvmObjective::operator()(const ConstVectorRef& local_x, VectorRef local_gradient) {
  State& s = *state_;
  const Vector shared = shared_parameters(local_x);
  const Matrix local = local_latents(local_x);
  const Matrix X = s.comm.allgather_rows(ConstMatrixRef(local));
  s.kernel->set_hyperparameters(shared.head(s.shared - 1));
  const double noise = std::exp(shared[s.shared - 1]);

  ExactDistributedGp gp(*s.kernel, noise, X, s.Y_local, s.partition, s.comm, s.options);
  const GpGradient g = gp.gradient();
  ++s.evaluations;

  // TAO minimises: everything is negated. Each rank keeps its own rows; rank 0 the shared part.
  Eigen::Map<RowMatrix>(local_gradient.data() + s.offset(), s.rows, s.q) =
      -g.d_latents.middleRows(s.first_row, s.rows);
  if (s.comm.is_root()) {
    local_gradient.head(s.shared - 1) = -g.d_kernel;
    local_gradient[s.shared - 1] = -g.d_log_noise;
  }
  return -g.value;
}

// ---------------------------------------------------------------------------------------------
// train_exact_gplvm

ExactTrainingResult train_exact_gplvm(const DataRef& Y_local, const RowPartition& partition,
                                      const Communicator& comm, const ConstMatrixRef& initial_latents,
                                      const ExactTrainingOptions& options) {
  validate_training_options(options);
  require_partitioned_data(Y_local, partition, comm);
  validate_initial_latents(initial_latents, partition, comm);
  const Index q = initial_latents.cols();

  // The memory check reads /proc and talks to every rank: once here rather than per evaluation.
  ExactDistributedOptions gp = options.gp;
  if (gp.check_memory)
    check_exact_distributed_memory(static_cast<Index>(partition.num_rows()), Y_local.cols(), comm, gp);
  gp.check_memory = false;

  const std::shared_ptr<Kernel> kernel =
      make_kernel(options.kernel, q, {options.kernel_variance, options.lengthscale, options.kernel_period});
  ExactGplvmObjective objective(*kernel, Y_local, partition, comm, gp);
  TaoMinimizer minimizer(comm, objective.local_size(), tao_options(options));
  // Only the log noise variance is bounded (see ExactTrainingOptions::min_noise_variance).
  Vector lower = Vector::Constant(objective.local_size(), -std::numeric_limits<double>::infinity());
  const Vector upper = Vector::Constant(objective.local_size(), std::numeric_limits<double>::infinity());
  if (comm.is_root()) lower[objective.num_shared() - 1] = std::log(options.min_noise_variance);
  minimizer.set_bounds(lower, upper);

  const TaoResult tao =
      minimizer.minimize(objective.pack(initial_latents, kernel->hyperparameters(), options.noise_variance),
                         [&objective](const ConstVectorRef& x, VectorRef g) { return objective(x, g); });

  ExactTrainingResult result;
  result.latents = objective.local_latents(tao.solution);
  const Vector shared = objective.shared_parameters(tao.solution);
  kernel->set_hyperparameters(shared.head(objective.num_shared() - 1));
  result.kernel = kernel;
  result.noise_variance = std::exp(shared[objective.num_shared() - 1]);
  result.log_marginal_likelihood = -tao.objective;
  result.lml_curve.reserve(tao.history.size());
  for (const TaoIterate& it : tao.history) result.lml_curve.push_back(-it.objective);
  result.reason = tao.reason;
  result.converged = tao.converged;
  result.iterations = tao.iterations;
  result.evaluations = objective.evaluations();
  result.gradient_norm = tao.gradient_norm;
  return result;
}

}  // namespace gplvm
