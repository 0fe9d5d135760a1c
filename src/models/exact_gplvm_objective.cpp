#include "gplvm/models/exact_gplvm_objective.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/pca_latents.hpp"

namespace gplvm {

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

}  // namespace gplvm
