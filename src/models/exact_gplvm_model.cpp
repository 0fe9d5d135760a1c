#include "gplvm/models/exact_gplvm_model.hpp"

#include "gplvm/models/fixed_hyperparameters.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/model/sphere_linear_basepoint.hpp"
#include "gplvm/models/exact_gplvm_objective.hpp"
#include "gplvm/models/sas_model_config.hpp"

namespace gplvm {
namespace {

// The model's flat parameters <-> the exact objective's slice ([shared on rank 0 | X rows]).
class ExactFullBatchObjective final : public FullBatchObjective {
 public:
  ExactFullBatchObjective(const ExactGplvmModel& model, double min_noise_variance, const Kernel& kernel,
                          const DataRef& local, const RowPartition& partition, const Communicator& comm,
                          const ExactDistributedOptions& gp)
      : model_(model),
        comm_(comm),
        min_noise_variance_(min_noise_variance),
        objective_(std::make_unique<ExactGplvmObjective>(kernel, local, partition, comm, gp)) {}

  double evaluate(const Vector& params, Vector& gradient) const override {
    const Index shared = model_.num_shared_parameters();
    const Vector x = objective_->pack(model_.local_block_rows(params), params.head(shared - 1),
                                      std::exp(params[shared - 1]));
    Vector x_gradient(x.size());
    const double negated = (*objective_)(x, x_gradient);
    // The objective is minimised and keeps the shared gradient on rank 0 only.
    gradient.resize(params.size());
    Vector shared_gradient = comm_.is_root() ? Vector(-x_gradient.head(shared)) : Vector(shared);
    comm_.broadcast(shared_gradient.data(), shared, 0);
    gradient.head(shared) = shared_gradient;
    model_.set_local_block_rows(gradient, -objective_->local_latents(x_gradient));
    for (const Index i : model_.fixed_parameters()) gradient[i] = 0.0;
    return -negated;
  }

  std::vector<std::pair<Index, double>> shared_lower_bounds() const override {
    return {{model_.num_shared_parameters() - 1, std::log(min_noise_variance_)}};
  }
  std::string value_name() const override { return "log_marginal_likelihood"; }

 private:
  const ExactGplvmModel& model_;
  const Communicator& comm_;
  double min_noise_variance_;
  std::unique_ptr<ExactGplvmObjective> objective_;  // its evaluations count, so not const
};

// The wrapped log-likelihood with the linear basepoint (objectives/wrapped_linear_basepoint.hpp,
// distributed): this rank's rows' coordinates V(x_j, p_j) and their Jacobians J_j, the exact GP of
// V on ScaLAPACK, and dL/dV_j = -alpha_j carried to x_j (A^T J_j^T) and to A (summed over ranks).
class LinearBasepointFullBatchObjective final : public FullBatchObjective {
 public:
  LinearBasepointFullBatchObjective(const ExactGplvmModel& model, Index noise_index,
                                    double min_noise_variance, const DataRef& local,
                                    const RowPartition& partition, const Communicator& comm,
                                    const ExactDistributedOptions& gp)
      : model_(model),
        comm_(comm),
        partition_(partition),
        noise_index_(noise_index),
        min_noise_variance_(min_noise_variance),
        gp_(gp),
        points_(chart_frame_points(local)) {}

  double evaluate(const Vector& params, Vector& gradient) const override {
    const RowMatrix local = model_.local_block_rows(params);
    const Matrix X = comm_.allgather_rows(ConstMatrixRef(local));
    const SphereLinearBasepoint basepoint = *model_.linear_basepoint(params);
    const Index rows = local.rows();
    RowMatrix V(rows, basepoint.tangent_dim());
    std::vector<Matrix> jacobians(rows);
    for (Index j = 0; j < rows; ++j)
      V.row(j) = basepoint.coordinates(local.row(j).transpose(), points_.row(j).transpose(), &jacobians[j])
                     .transpose();
    ExactDistributedGp gp(*model_.kernel(params), model_.noise_variance(params), X, DataRef(V), partition_,
                          comm_, gp_);
    const GpGradient g = gp.gradient();
    const RowMatrix alpha = gp.local_alpha();
    const Matrix& A = basepoint.map();
    RowMatrix d_local = g.d_latents.middleRows(static_cast<Index>(partition_.begin(comm_.rank())), rows);
    Matrix d_map = Matrix::Zero(A.rows(), A.cols());
    for (Index j = 0; j < rows; ++j) {
      const Vector d_u = -(jacobians[j].transpose() * alpha.row(j).transpose());
      d_local.row(j) += (A.transpose() * d_u).transpose();
      d_map.noalias() += d_u * local.row(j);
    }
    comm_.allreduce_sum(d_map.data(), d_map.size());
    const Index shared = model_.num_shared_parameters(), h = g.d_kernel.size();
    gradient = Vector::Zero(params.size());
    gradient.head(h) = g.d_kernel;
    gradient[h] = g.d_log_noise;
    gradient.segment(shared - A.size(), A.size()) = Eigen::Map<const Vector>(d_map.data(), d_map.size());
    model_.set_local_block_rows(gradient, d_local);
    for (const Index i : model_.fixed_parameters()) gradient[i] = 0.0;
    return g.value;
  }

  std::vector<std::pair<Index, double>> shared_lower_bounds() const override {
    return {{noise_index_, std::log(min_noise_variance_)}};
  }
  std::string value_name() const override { return "log_marginal_likelihood"; }

 private:
  const ExactGplvmModel& model_;
  const Communicator& comm_;
  RowPartition partition_;
  Index noise_index_;
  double min_noise_variance_;
  ExactDistributedOptions gp_;
  RowMatrix points_;  // this rank's points in the chart's frame
};

}  // namespace

ExactGplvmConfig exact_gplvm_config(const Config& c, Index data_dim) {
  ExactGplvmConfig e;
  e.base = sas_model_config(c, data_dim);
  e.base.latents = LatentKind::free;  // whatever model.latents says
  require(e.base.precision == Precision::float64,
          "model.kind = \"exact\" runs in float64 only (its Cholesky of the N x N kernel needs it)",
          {"", "model.precision", "float32"});
  e.min_noise_variance = c.get_double("exact.min_noise_variance");
  require(e.base.decoder.noise_variance >= e.min_noise_variance,
          "the initial noise variance must be at least exact.min_noise_variance (" +
              std::to_string(e.min_noise_variance) + ")",
          {"", "model.noise_variance", std::to_string(e.base.decoder.noise_variance)});
  e.gp.block_size = static_cast<int>(c.get_int("exact.block_size"));
  e.gp.grid_rows = static_cast<int>(c.get_int("exact.grid_rows"));
  e.gp.grid_cols = static_cast<int>(c.get_int("exact.grid_cols"));
  e.linear_basepoint = c.get_string("model.basepoint") == "linear";
  require(!e.linear_basepoint || !latent_space_is(e.base.latent_space, &LatentSpace::is_curved),
          "model.basepoint = \"linear\" takes Euclidean latents (m(x) = Exp_mu0(B0 A x))",
          {"", "model.latent_space", e.base.latent_space});
  return e;
}

ExactGplvmModel::ExactGplvmModel(ExactGplvmConfig config, std::uint64_t num_data, std::uint64_t local_begin,
                                 std::uint64_t local_rows)
    : Model({.num_data = num_data,
             .local_begin = local_begin,
             .local_rows = local_rows,
             .data_dim = config.base.data_dim,
             .seed = config.base.seed,
             .latents = {LatentKind::free, false, config.base.latent_dim, config.base.latent_space}}),
      config_(std::move(config)),
      decoder_(config_.base, num_data, local_begin, local_rows),
      map_size_(config_.linear_basepoint ? decoder_.data_dim() * decoder_.latent_dim() : 0),
      layout_(static_cast<Index>(local_rows)) {
  const std::vector<ParameterBlock>& blocks = decoder_.parameter_layout().blocks();
  for (const ParameterBlock& b : blocks)
    if (b.placement == Placement::replicated) layout_.add(b);
  if (map_size_ > 0)
    layout_.add({.name = "basepoint_map", .rows = decoder_.data_dim(), .cols = decoder_.latent_dim()});
  for (const ParameterBlock& b : blocks)
    if (b.placement == Placement::per_row) layout_.add(b);
}

Vector ExactGplvmModel::decoder_values(const Vector& values) const {
  if (map_size_ == 0) return values;
  const Index shared = decoder_.num_shared_parameters();
  Vector out(values.size() - map_size_);
  out << values.head(shared), values.tail(values.size() - shared - map_size_);
  return out;
}

// A starts at 0 (the constant-basepoint model at the decoder's start), after the decoder's shared
// block.
Vector ExactGplvmModel::initial_parameters() const {
  const Vector decoder = decoder_.initial_parameters();
  if (map_size_ == 0) return decoder;
  const Index shared = decoder_.num_shared_parameters();
  Vector p(decoder.size() + map_size_);
  p << decoder.head(shared), Vector::Zero(map_size_), decoder.tail(decoder.size() - shared);
  return p;
}

Matrix ExactGplvmModel::basepoint_map(const Vector& params) const {
  if (map_size_ == 0) return Matrix();
  const Index dim = decoder_.data_dim(), q = decoder_.latent_dim();
  return Eigen::Map<const Matrix>(params.data() + decoder_.num_shared_parameters(), dim, q);
}

std::optional<SphereLinearBasepoint> ExactGplvmModel::linear_basepoint(const Vector& params) const {
  if (map_size_ == 0) return std::nullopt;
  return chart_frame_basepoint(basepoint_map(params));
}

void ExactGplvmModel::write_parameters(Hdf5ResultWriter& out, const Vector& params) const {
  decoder_.write_parameters(out, decoder_values(params));
  if (map_size_ > 0) out.write_matrix("/params/basepoint_map", basepoint_map(params));
}

void ExactGplvmModel::initialise_from_data(const Communicator& comm, const RowPartition& partition,
                                           LocalRows local_rows) {
  require(std::holds_alternative<DataRef>(local_rows), "the exact model needs its rows in float64",
          {"", "model.precision", "float32"});
  decoder_.initialise_from_data(comm, partition, local_rows);  // the free latents' start (model.init)
}

std::unique_ptr<TrainingStep> ExactGplvmModel::make_step(const Communicator&, const RowPartition&,
                                                         LocalRows) const {
  throw InputError("model.kind = \"exact\" is trained full batch (L-BFGS), not in minibatch steps",
                   {"", "model.kind", "exact"});
}

std::unique_ptr<FullBatchObjective> ExactGplvmModel::make_full_batch_objective(const Communicator& comm,
                                                                               const RowPartition& partition,
                                                                               LocalRows local_rows) const {
  require(std::holds_alternative<DataRef>(local_rows), "the exact model needs its rows in float64",
          {"", "model.precision", "float32"});
  const DataRef& local = std::get<DataRef>(local_rows);
  // The memory check reads /proc and talks to every rank: once here, not at every evaluation.
  ExactDistributedOptions gp = config_.gp;
  if (gp.check_memory)
    check_exact_distributed_memory(static_cast<Index>(partition.num_rows()), local.cols(), comm, gp);
  gp.check_memory = false;
  if (map_size_ > 0)
    return std::make_unique<LinearBasepointFullBatchObjective>(
        *this, decoder_.num_shared_parameters() - 1, config_.min_noise_variance, local, partition, comm, gp);
  return std::make_unique<ExactFullBatchObjective>(*this, config_.min_noise_variance,
                                                   decoder_.kernel_prototype(), local, partition, comm, gp);
}

}  // namespace gplvm
